package dedup

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/warcdedup/warcdedup/internal/testfs"
)

// members writes each part as a gzip member of its own.
func members(t *testing.T, parts ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&buf)
		zw.Write(p)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestTrailerInNextMember: when a writer put a record's closing CR LF CR LF,
// whole or in part, at the start of the next record's gzip member, and
// records are replaced (an exact copy, then a near copy, each with the
// trailer of the record before in its member, and its own in the next), the
// output keeps those bytes: its decompressed stream has every record's
// CR LF CR LF in place, and is the input's up to the first record replaced.
// So with a trailer in a member of its own, with a last record replaced
// whose trailer is cut, with records sharing a member, with plain files, and
// with a plain file that starts with blank lines. The usual layout, a member
// for each record with its trailer inside, is copied as it was. The map,
// judge and apply steps write the same output. With --near=annotate the
// annotation after the near copy starts with the end of that record's
// trailer (the next member then starts with blank lines).
func TestTrailerInNextMember(t *testing.T) {
	all := responsesWARC(t, false,
		response{id: "<urn:uuid:t1>", uri: "http://a.example/1", body: story(31, 60, 0)},
		response{id: "<urn:uuid:t2>", uri: "http://b.example/2", body: story(31, 60, 0)},
		response{id: "<urn:uuid:t3>", uri: "http://a.example/3", body: story(31, 60, 1)},
		response{id: "<urn:uuid:t4>", uri: "http://a.example/4", body: story(32, 60, 0)},
	)
	var recs [][]byte
	for _, part := range bytes.SplitAfter(all, []byte("\r\n\r\nWARC/1.1\r\n")) {
		if len(recs) > 0 {
			part = append([]byte("WARC/1.1\r\n"), part...)
		}
		recs = append(recs, bytes.TrimSuffix(part, []byte("WARC/1.1\r\n")))
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	r1, r2, r3, r4 := recs[0], recs[1], recs[2], recs[3]
	crlf2 := []byte("\r\n\r\n")
	cut := func(r []byte, n int) []byte { return r[:len(r)-n] }
	for _, tc := range []struct {
		name  string
		files [][]byte // the record replaced first is in the last
	}{
		{"one member per record", [][]byte{members(t, r1, r2, r3, r4)}},
		{"trailers in the next member", [][]byte{members(t, cut(r1, 4), cat(crlf2, cut(r2, 4)), cat(crlf2, cut(r3, 4)), cat(crlf2, r4))}},
		{"trailers split across members", [][]byte{members(t, cut(r1, 2), cat(crlf2[:2], cut(r2, 2)), cat(crlf2[:2], cut(r3, 2)), cat(crlf2[:2], r4))}},
		{"trailers in members of their own", [][]byte{members(t, cut(r1, 4), crlf2, cut(r2, 4), crlf2, r3, r4)}},
		{"the last record's trailer cut", [][]byte{members(t, r1, r4, r2, cut(r3, 3))}},
		{"a trailer before records sharing a member", [][]byte{members(t, cut(r1, 4), cat(crlf2, r2, r3, r4))}},
		{"plain", [][]byte{cat(r1, r2, r3, r4)}},
		{"plain, blank lines before the first record", [][]byte{members(t, r1), cat(crlf2, r2, r3, r4)}},
	} {
		for mode, modeName := range map[NearMode]string{NearRevisit: "revisit", NearAnnotate: "annotate"} {
			for _, compress := range []bool{true, false} {
				name := tc.name + ", " + modeName + ", gzip " + strconv.FormatBool(compress)
				t.Run(name, func(t *testing.T) {
					var names []string
					for i := range tc.files {
						names = append(names, "in"+strconv.Itoa(i)+".warc")
					}
					opts := DefaultOptions()
					opts.Near = mode
					outs, st, _ := oneMachine(t, opts, names, tc.files, compress)
					annotate := mode == NearAnnotate
					if near := st.NearRevisits + st.Annotations; st.Revisits != 1 || near != 1 {
						t.Fatalf("%d exact revisits and %d near revisits or annotations, want 1 and 1", st.Revisits, near)
					}
					for i, out := range outs {
						in := testfs.Plain(t, tc.files[i])
						got := testfs.Plain(t, out)
						n, m := testfs.Framed(t, "output", got, annotate), bytes.Count(in, []byte("\r\nWARC-Type: "))
						if annotate && i == len(outs)-1 {
							m++
						}
						if n != m {
							t.Errorf("%s: %d records, want %d", names[i], n, m)
						}
						keep := len(in)
						if i == len(outs)-1 {
							keep = bytes.Index(in, []byte("WARC-Record-ID: <urn:uuid:t2>"))
							keep = bytes.LastIndex(in[:keep], []byte("WARC/1.1\r\n"))
						}
						if !bytes.HasPrefix(got, in[:keep]) {
							t.Errorf("%s: the output's stream is not the input's up to the first record replaced", names[i])
						}
					}
					if tc.name == "one member per record" && compress {
						first := members(t, r1)
						second := testfs.Plain(t, outs[0][len(first):])
						if !bytes.HasPrefix(outs[0], first) || !bytes.HasPrefix(second, []byte("WARC/1.1\r\n")) {
							t.Error("the usual layout is not copied as it was")
						}
					}
					souts, _, _ := throughStages(t, opts, names, tc.files, compress)
					for i := range outs {
						if !bytes.Equal(souts[i], outs[i]) {
							t.Errorf("%s: the map, judge and apply steps wrote another output than one machine", names[i])
						}
					}
				})
			}
		}
	}
}
