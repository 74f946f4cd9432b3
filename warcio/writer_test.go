package warcio

import (
	"bytes"
	"errors"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testfs"
)

// CopyRaw of a Raw that holds no bytes is an error, not a record silently
// missing from the output.
func TestCopyRawNoBytes(t *testing.T) {
	in := record(t, false, 1, textPage(1))
	recs, err := readAll(t, "one", in, false)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	tests := []struct {
		name string
		raw  *Raw
		err  error
	}{
		{"nil Raw (KeepRaw unset)", nil, ErrNoRaw},
		{"no Plain and no File", &Raw{Size: int64(len(in))}, ErrNoRaw},
		{"empty Raw", &Raw{}, ErrNoRaw},
		{"the record's Raw", recs[0].Raw, nil},
	}
	for _, gz := range []bool{false, true} {
		for _, tc := range tests {
			var out bytes.Buffer
			w := NewWriter(&out, gz)
			err := w.CopyRaw(tc.raw)
			if !errors.Is(err, tc.err) {
				t.Errorf("%s (gzip %v): got %v, want %v", tc.name, gz, err, tc.err)
			}
			if tc.err != nil && (out.Len() != 0 || w.Offset() != 0) {
				t.Errorf("%s (gzip %v): %d bytes written", tc.name, gz, out.Len())
			}
			if tc.err == nil && !gz && !bytes.Equal(out.Bytes(), in) {
				t.Errorf("%s: wrote %d bytes, the record has %d", tc.name, out.Len(), len(in))
			}
		}
	}
}

// TestReplaceRecordLead: where a writer put a record's closing CR LF CR LF
// (whole or in part) at the start of the next record's gzip member, a record
// replaced by ReplaceRecord keeps the newlines its input held before its
// first byte, and ends as its input did, the next member holding the rest:
// the output's decompressed stream is the input's with the record's header
// and block, and only those, replaced, and every record ends in CR LF CR LF.
// A record so replaced that is the last gets the rest from Close. Records of
// the usual layout, one member each with its trailer inside, are written as
// they were.
func TestReplaceRecordLead(t *testing.T) {
	r1, r2, r3 := record(t, false, 1, textPage(1)), record(t, false, 2, textPage(2)), record(t, false, 3, textPage(3))
	crlf2 := []byte("\r\n\r\n")
	for _, tc := range []struct {
		name      string
		parts     [][]byte // gzip members, or a plain file's parts
		plain     bool
		lead      int64 // Raw.Lead of record 2
		cut       int   // Raw.TrailerCut of record 2
		closeOwed bool  // Close ends record 2
	}{
		{"one member per record", [][]byte{r1, r2, r3}, false, 0, 0, false},
		{"trailers in the next member", [][]byte{r1[:len(r1)-4], cat(crlf2, r2[:len(r2)-4]), cat(crlf2, r3)}, false, 4, 4, false},
		{"trailers split across members", [][]byte{r1[:len(r1)-2], cat(crlf2[:2], r2[:len(r2)-2]), cat(crlf2[:2], r3)}, false, 2, 2, false},
		{"trailer in a member of its own", [][]byte{r1, r2[:len(r2)-4], crlf2, r3}, false, 0, 4, false},
		{"trailer before records sharing a member", [][]byte{r1[:len(r1)-4], cat(crlf2, r2, r3)}, false, 4, 0, false},
		{"trailer before a block that goes on in the next member", [][]byte{r1[:len(r1)-4], cat(crlf2, r2[:len(r2)-20]), r2[len(r2)-20:], r3}, false, 4, 0, false},
		{"the last record's trailer cut", [][]byte{r1, r3, r2[:len(r2)-3]}, false, 0, 3, true},
		{"plain", [][]byte{r1, r2, r3}, true, 0, 0, false},
		{"plain, blank lines before the first record", [][]byte{crlf2, r2, r3}, true, 4, 0, false},
	} {
		in := cat(tc.parts...)
		if !tc.plain {
			in = gzipMembers(t, tc.parts...)
		}
		stream := cat(tc.parts...)
		recs, err := readAll(t, tc.name, in, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		h := &Header{Version: "WARC/1.1", Fields: []Field{
			{"WARC-Type", "revisit"},
			{"WARC-Record-ID", testID(20)},
			{"WARC-Date", "2026-01-01T00:00:00Z"},
			{"WARC-Target-URI", "http://a.example/2"},
		}}
		block := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
		var newRec bytes.Buffer
		if err := NewWriter(&newRec, false).WriteRecord(h, block); err != nil {
			t.Fatal(err)
		}
		// The input's stream with record 2's header and block replaced.
		body, newBody := r2[:len(r2)-4], newRec.Bytes()[:newRec.Len()-4]
		at := bytes.Index(stream, body)
		want := cat(stream[:at], newBody, stream[at+len(body):])
		if tc.closeOwed {
			want = append(want, crlf2[4-tc.cut:]...)
		}
		for _, gz := range []bool{true, false} {
			var out bytes.Buffer
			w := NewWriter(&out, gz)
			replaced := 0
			for _, rec := range recs {
				if rec.ID() == testID(2) {
					if rec.Raw.Lead != tc.lead || rec.Raw.TrailerCut != tc.cut {
						t.Errorf("%s: Lead %d, TrailerCut %d; want %d, %d", tc.name, rec.Raw.Lead, rec.Raw.TrailerCut, tc.lead, tc.cut)
					}
					replaced++
					err = w.ReplaceRecord(rec.Raw, h, block)
				} else {
					err = w.CopyRaw(rec.Raw)
				}
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
			}
			if replaced != 1 {
				t.Fatalf("%s: %d records replaced", tc.name, replaced)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got := out.Bytes()
			if gz {
				got = testfs.Plain(t, got)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (gzip %v): the output's stream is not the input's with the record replaced:\n%q\nwant\n%q", tc.name, gz, got, want)
			}
			if n, m := testfs.Framed(t, "output", got, false), len(withoutPadding(recs)); n != m || bytes.Count(got, []byte("WARC/1.1\r\n")) != m {
				t.Errorf("%s (gzip %v): %d records (%d WARC/1.1 lines), the input has %d", tc.name, gz, n, bytes.Count(got, []byte("WARC/1.1\r\n")), m)
			}
			if gz && !tc.plain {
				// The records passed through are their members as stored.
				first := gzipMembers(t, tc.parts[0])
				if !bytes.HasPrefix(out.Bytes(), first) {
					t.Errorf("%s: the first member is not copied as it was", tc.name)
				}
				if tc.lead == 0 && tc.cut == 0 && len(tc.parts) == 3 {
					var usual bytes.Buffer
					uw := NewWriter(&usual, true)
					uw.CopyRaw(recs[0].Raw)
					uw.WriteRecord(h, block)
					uw.CopyRaw(recs[2].Raw)
					if !bytes.Equal(out.Bytes(), usual.Bytes()) {
						t.Errorf("%s: the output is not what CopyRaw and WriteRecord write", tc.name)
					}
				}
			}
		}
	}
}
