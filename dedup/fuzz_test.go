package dedup

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/warcio"
)

// rawRecord is a record as a reader returns it, with its bytes.
type rawRecord struct {
	rec   *warcio.Record
	plain []byte // the record's decompressed bytes (nil for a damaged region that does not decompress)
	file  []byte // its bytes as stored when they form a whole, or nil
}

// readAll reads every record of b with a lenient reader, keeping raw bytes.
func readAll(t *testing.T, b []byte) []rawRecord {
	t.Helper()
	r := warcio.NewReader(bytes.NewReader(b), "fuzz")
	r.KeepRaw, r.Lenient, r.VerifyDigests = true, true, true
	var out []rawRecord
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("lenient reader: %v", err)
		}
		raw, err := r.Finish()
		if err != nil {
			t.Fatalf("lenient reader: %v", err)
		}
		var rr rawRecord
		rr.rec = rec
		if raw.Plain != nil {
			var buf bytes.Buffer
			raw.Plain.WriteTo(&buf)
			rr.plain = buf.Bytes()
		}
		if raw.File != nil {
			var buf bytes.Buffer
			raw.File.WriteTo(&buf)
			rr.file = buf.Bytes()
			if raw.FileIsMember {
				// A record in a gzip member of its own: its plain bytes are
				// the member's content.
				zr, err := gzip.NewReader(bytes.NewReader(rr.file))
				if err != nil {
					t.Fatalf("a whole member does not decompress: %v", err)
				}
				if rr.plain, err = io.ReadAll(zr); err != nil {
					t.Fatalf("a whole member does not decompress: %v", err)
				}
			}
		}
		raw.Release()
		out = append(out, rr)
		if len(out) > len(b)+1 {
			t.Fatal("more records than bytes: the reader does not advance")
		}
	}
}

// fuzzSeeds are small WARCs made with warcio.Writer: exact and near
// duplicates, an image and its copy, a 404, a request, a repeated record ID,
// in plain and gzip form, one with a damaged member and one cut short.
func fuzzSeeds(t testing.TB) [][]byte {
	page := story(5, 10, 0)
	recs := []response{
		{id: "<urn:uuid:1>", uri: "http://a.example/x", body: page},
		{id: "<urn:uuid:2>", uri: "http://b.example/x", body: page},
		{id: "<urn:uuid:3>", uri: "http://c.example/x", body: story(5, 10, 1)},
		{id: "<urn:uuid:4>", uri: "http://a.example/i.png", ctype: "image/png", body: img[:300]},
		{id: "<urn:uuid:4>", uri: "http://b.example/i.png", ctype: "image/png", body: img[:300]},
	}
	plain := responsesWARC(t, false, recs...)
	gz := responsesWARC(t, true, recs...)
	var other bytes.Buffer
	w := warcio.NewWriter(&other, false)
	for _, r := range []struct{ typ, block string }{
		{"warcinfo", "software: fuzz\r\n"},
		{"request", "GET /x HTTP/1.1\r\nHost: a.example\r\n\r\n"},
		{"response", "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n" + page},
		{"response", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	} {
		w.WriteRecord(&warcio.Header{Version: "WARC/1.0", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: r.typ}, {Name: "WARC-Record-ID", Value: "<urn:uuid:o-" + r.typ + ">"},
			{Name: "WARC-Date", Value: "2026-01-01T00:00:00Z"}, {Name: "WARC-Target-URI", Value: "http://a.example/x"},
		}}, []byte(r.block))
	}
	damaged := bytes.Clone(gz)
	for i := len(damaged) / 2; i < len(damaged)/2+16; i++ {
		damaged[i] ^= 0x55
	}
	// Two crawls, the second a deduplicating crawler's revisits of the
	// first's responses (brokenCase).
	_, crawls, _ := brokenCase(t)
	return [][]byte{plain, gz, append(other.Bytes(), plain...), damaged, plain[:len(plain)-200], append(bytes.Clone(crawls[0]), crawls[1]...)}
}

// FuzzRun runs the whole pipeline over any bytes, strict and lenient, with
// the SpotSigs or Henzinger method and near duplicates made revisits or
// annotated (by flags): it must not panic or hang; a lenient run must not
// fail, and its output, read back, must hold every input record in its
// place, as itself (the same bytes) or, for a response, as a revisit of the
// same capture, plus the annotations the run counted.
//
// Its inputs are WARC files of several kilobytes, which the fuzzer's default
// minimization (60 s for each new input) takes most of a short run to
// shrink: `go test ./dedup -run '^$' -fuzz '^FuzzRun$' -fuzzminimizetime 5s`
// ran 4,614 inputs in 150 s, against 34 in 240 s without the flag.
func FuzzRun(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		for _, flags := range []uint8{0, 1, 2} {
			f.Add(s, flags)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, flags uint8) {
		opts := DefaultOptions()
		opts.MinSize = 64 // small inputs reach the deduplication paths
		opts.Workers = 2
		if flags&1 != 0 {
			opts.Method = MethodHenzinger
		}
		if flags&2 != 0 {
			opts.Near = NearAnnotate
		}
		gz := len(in) > 1 && in[0] == 0x1f && in[1] == 0x8b
		run := func(lenient bool) ([]byte, error) {
			o := opts
			o.Lenient = lenient
			d := New(o)
			defer d.Close()
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() {
				// Twice: the second pass finds the first's records kept.
				err := d.Run(bytes.NewReader(in), "one", &out, gz)
				if err == nil {
					err = d.Run(bytes.NewReader(in), "two", io.Discard, gz)
				}
				done <- err
			}()
			select {
			case err := <-done:
				var pe *PanicError
				if errors.As(err, &pe) {
					t.Fatalf("lenient %v: %v\n%s", lenient, pe, pe.Stack)
				}
				return out.Bytes(), err
			case <-time.After(20 * time.Second):
				t.Fatalf("lenient %v: Run did not return", lenient)
				return nil, nil
			}
		}
		if out, err := run(false); err == nil {
			checkAccounted(t, in, out, gz, opts.Near == NearAnnotate)
		}
		out, err := run(true)
		if errors.Is(err, warcio.ErrRanOn) {
			return // the one damage a lenient run fails on (the input stays)
		}
		if err != nil {
			t.Fatalf("lenient run failed: %v", err)
		}
		checkAccounted(t, in, out, gz, opts.Near == NearAnnotate)
	})
}

// checkAccounted checks that out holds in's records in order, each as
// itself or replaced by a revisit, plus the annotations the run wrote.
//
// For gzip input, damaged regions are left out on both sides, and records
// read back from the bytes of a damaged region are allowed in the output.
// The reader may return the start of a member that turns out damaged as
// one record and the member's stored bytes, from its start, as another; and
// after a member with a bad checksum it may take the next, sound members
// for part of the damaged region. The pipeline copies each as it was given
// (damaged bytes as stored), and a record re-compressed into a sound member
// before them lets the reader find those members' records in the output,
// or the start of a record in a member whose checksum fails after it.
func checkAccounted(t *testing.T, in, out []byte, gz, annotate bool) {
	t.Helper()
	want, got := readAll(t, in), readAll(t, out)
	var damaged [][]byte // the stored bytes of the input's damaged regions
	if gz {
		for _, r := range want {
			if r.rec.Kind == warcio.KindDamaged && r.file != nil {
				damaged = append(damaged, r.file)
			}
		}
		want, got = whole(want), whole(got)
	}
	fromDamaged := func(g rawRecord) bool {
		for _, b := range damaged {
			if g.file != nil && bytes.Contains(b, g.file) {
				return true
			}
			// A record that is no whole member (its member turns out
			// damaged after it) has no stored bytes of its own: it comes
			// from a damaged region if it starts inside a copy of one.
			if g.file == nil && len(b) > 0 {
				for p := 0; p <= len(out)-len(b); {
					k := bytes.Index(out[p:], b)
					if k < 0 {
						break
					}
					if start := int64(p + k); start <= g.rec.Offset && g.rec.Offset < start+int64(len(b)) {
						return true
					}
					p += k + 1
				}
			}
		}
		return false
	}
	j := 0
	for i, w := range want {
		for {
			if j >= len(got) {
				t.Fatalf("input record %d (%s at %d) missing from the output: %d records in, %d out",
					i, kindName(w.rec), w.rec.Offset, len(want), len(got))
			}
			g := got[j]
			j++
			if g.rec.Kind == w.rec.Kind && bytes.Equal(g.plain, w.plain) && (w.plain != nil || bytes.Equal(g.file, w.file)) {
				break // itself
			}
			if w.rec.Kind == warcio.KindWARC && strings.EqualFold(w.rec.Type(), "response") && g.rec.Type() == "revisit" &&
				g.rec.Header.Get("WARC-Target-URI") == w.rec.Header.Get("WARC-Target-URI") &&
				g.rec.Header.Get("WARC-Date") == w.rec.Header.Get("WARC-Date") && g.rec.Header.Get("WARC-Refers-To") != "" {
				break // replaced
			}
			if fromDamaged(g) {
				continue
			}
			t.Fatalf("input record %d (%s %s at %d) is output as %s %s:\n%q\nwant\n%q", i, kindName(w.rec), w.rec.ID(), w.rec.Offset,
				kindName(g.rec), g.rec.ID(), trim(g.plain), trim(w.plain))
		}
		for annotate && j < len(got) && isAnnotation(got[j], w.rec) {
			j++
		}
	}
	for ; j < len(got); j++ {
		if !fromDamaged(got[j]) {
			t.Fatalf("%d records out for %d in: %s %s at %d is extra", len(got), len(want), kindName(got[j].rec), got[j].rec.ID(), got[j].rec.Offset)
		}
	}
}

// whole returns the records that are not damaged regions or padding.
func whole(rs []rawRecord) []rawRecord {
	var w []rawRecord
	for _, r := range rs {
		if r.rec.Kind != warcio.KindDamaged && r.rec.Kind != warcio.KindPadding {
			w = append(w, r)
		}
	}
	return w
}

// isAnnotation says whether r is an annotation this package wrote after the
// record of: a metadata record that refers to it, with an annotation's block.
func isAnnotation(r rawRecord, of *warcio.Record) bool {
	if r.rec.Type() != "metadata" || of.ID() == "" || r.rec.Header.Get("WARC-Refers-To") != of.ID() {
		return false
	}
	for _, key := range []string{"near-duplicate-of", "contains-text-of", "text-contained-in"} {
		if bytes.Contains(r.plain, []byte("\r\n\r\n"+key+": ")) {
			return true
		}
	}
	return false
}

func trim(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return string(b)
}
