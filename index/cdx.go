package index

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadCDX reads a CDX or CDXJ index of earlier crawls and calls fn with a
// Record for each 200 response in it that has a payload digest: what a later
// exact copy becomes a revisit of, as wget's --warc-dedup does with the CDX
// files --warc-cdx writes. Two forms are read:
//
//   - CDX with a legend line (" CDX a b a m s k r M V g u", as wget writes;
//     the letters of the Internet Archive's CDX format: a the URL, b the
//     14-digit date, m the MIME type, s the status, k the digest, V the
//     offset, g the file name, u the record's UUID);
//   - CDXJ (pywb, jwarc): "SURT TIMESTAMP {json}" with url, mime, status,
//     digest, offset and filename.
//
// The records have no SHA-256: an exact duplicate of one is confirmed by
// its SHA-1 alone, as wget confirms it. CDXJ lines have no record ID, so
// revisits of them carry WARC-Refers-To-Target-URI and -Date only, which
// is what replay tools resolve them by.
func ReadCDX(r io.Reader, name string, fn func(*Record) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var legend []string
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(t) == "" {
			continue
		}
		bad := func(why string) error { return fmt.Errorf("%s: line %d: %s", name, line, why) }
		if legend == nil && (strings.HasPrefix(t, " CDX ") || strings.HasPrefix(t, "CDX ")) {
			legend = strings.Fields(t)[1:]
			continue
		}
		var rec *Record
		var status string
		if i := strings.IndexByte(t, '{'); i > 0 && strings.HasSuffix(t, "}") {
			var j struct {
				URL, Mime, Status, Digest, Filename, Offset string
			}
			var raw map[string]any
			if err := json.Unmarshal([]byte(t[i:]), &raw); err != nil {
				return bad("not a CDXJ line: " + err.Error())
			}
			str := func(k string) string {
				switch v := raw[k].(type) {
				case string:
					return v
				case float64:
					return strconv.FormatFloat(v, 'f', -1, 64)
				}
				return ""
			}
			j.URL, j.Mime, j.Status, j.Digest, j.Filename, j.Offset = str("url"), str("mime"), str("status"), str("digest"), str("filename"), str("offset")
			f := strings.Fields(t[:i])
			if len(f) < 2 {
				return bad("no timestamp")
			}
			rec = &Record{URI: j.URL, Date: cdxDate(f[1]), Digest: j.Digest, File: j.Filename}
			rec.Offset, _ = strconv.ParseInt(j.Offset, 10, 64)
			status = j.Status
			if j.Mime == "warc/revisit" {
				continue
			}
		} else {
			if legend == nil {
				return bad("neither a CDX legend line nor CDXJ")
			}
			f := strings.Fields(t)
			if len(f) != len(legend) {
				return bad(fmt.Sprintf("%d fields, the legend has %d", len(f), len(legend)))
			}
			rec = &Record{}
			seenA := false
			for k, l := range legend {
				v := f[k]
				switch l {
				case "a":
					if !seenA { // wget's legend names a twice; the first is the URL
						rec.URI, seenA = v, true
					}
				case "b":
					rec.Date = cdxDate(v)
				case "m":
					if v == "warc/revisit" {
						rec = nil
					}
				case "s":
					status = v
				case "k":
					rec.Digest = v
				case "g":
					rec.File = v
				case "V", "v":
					rec.Offset, _ = strconv.ParseInt(v, 10, 64)
				case "u":
					if v != "-" {
						rec.ID = "<urn:uuid:" + strings.TrimPrefix(strings.Trim(v, "<>"), "urn:uuid:") + ">"
					}
				}
				if rec == nil {
					break
				}
			}
			if rec == nil {
				continue
			}
		}
		if status != "200" || rec.Digest == "" || rec.Digest == "-" || rec.URI == "" || rec.Date == "" {
			continue
		}
		if !strings.Contains(rec.Digest, ":") {
			rec.Digest = "sha1:" + rec.Digest
		}
		rec.Computed, rec.Bare = rec.Digest, true
		if err := fn(rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// cdxDate turns a CDX timestamp (14 digits, fewer, or more for fractions
// of a second, as Heritrix's 17) into a WARC-Date to the second; "" if it
// is not one.
func cdxDate(ts string) string {
	if len(ts) < 4 || len(ts) > 20 {
		return ""
	}
	for _, c := range ts {
		if c < '0' || c > '9' {
			return ""
		}
	}
	ts = ts[:min(len(ts), 14)]
	ts += "00000101000000"[len(ts):]
	return ts[0:4] + "-" + ts[4:6] + "-" + ts[6:8] + "T" + ts[8:10] + ":" + ts[10:12] + ":" + ts[12:14] + "Z"
}
