package dedup

import (
	"strings"
	"time"
)

// Keys of the steps between machines. An engine sorts lines by their keys in
// byte order, and the keys must put a run's records in the order one machine
// takes them: files by the WARC-Date of their first record (files without one
// last), then by their position in the list; a file's records by their
// offset in it. They are short: a record's key is on many lines of the
// partitioned rounds (one for each LSH band of a kept page).

// FileKey is the key of a file: "0" and the WARC-Date of its first record
// (UTC, to the second, then the fraction without its trailing zeros if it has
// one), or "1" for a file without one; then "-" and the file's position in
// the list (sortableHex).
func FileKey(first time.Time, dated bool, pos uint64) string {
	var b []byte
	if dated {
		t := first.UTC()
		b = append(b, '0')
		b = t.AppendFormat(b, "20060102150405")
		if ns := t.Nanosecond(); ns > 0 {
			frac := []byte{'.'}
			for d := 100000000; d > 0 && ns > 0; d /= 10 {
				frac = append(frac, byte('0'+ns/d))
				ns %= d
			}
			b = append(b, frac...)
		}
	} else {
		b = append(b, '1')
	}
	b = append(b, '-')
	return string(sortableHex(b, pos))
}

// RecordKey is the key of the record at offset off (in the decompressed
// file) of the file keyed file: the file's key, ":" and the offset
// (sortableHex).
func RecordKey(file string, off int64) string {
	b := append([]byte(file), ':')
	return string(sortableHex(b, uint64(off)))
}

// sortableHex appends n in hex after a letter that counts its digits ("a"
// for one, "p" for sixteen): such strings compare in byte order as the
// numbers do, and small numbers are short.
func sortableHex(b []byte, n uint64) []byte {
	const digits = "0123456789abcdef"
	var buf [16]byte
	i := len(buf)
	for {
		i--
		buf[i] = digits[n&15]
		n >>= 4
		if n == 0 {
			break
		}
	}
	b = append(b, byte('a'+len(buf)-i-1))
	return append(b, buf[i:]...)
}

// parseSortableHex reads what sortableHex wrote, the whole of s.
func parseSortableHex(s string) (uint64, bool) {
	if len(s) < 2 || s[0] < 'a' || s[0] > 'p' || int(s[0]-'a')+2 != len(s) || len(s) > 2 && s[1] == '0' {
		return 0, false
	}
	var n uint64
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// offsetOf is the offset in a record key (RecordKey).
func offsetOf(recKey string) (int64, bool) {
	i := strings.LastIndexByte(recKey, ':')
	if i < 0 {
		return 0, false
	}
	n, ok := parseSortableHex(recKey[i+1:])
	return int64(n), ok && n <= 1<<63-1
}
