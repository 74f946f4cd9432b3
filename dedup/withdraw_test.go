package dedup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// img is a payload no page analysis looks at.
var img = strings.Repeat("\x89PNG binary image data ", 100)

// The three files of the withdrawal tests: A keeps page X and an image; B
// keeps page Y, repeats A's image and keeps page Z; C holds an exact and a
// near copy of Y and an exact copy of X.
func fileA(t testing.TB) []byte {
	return responsesWARC(t, false,
		response{id: "<urn:uuid:a-x>", uri: "http://a.example/x", body: story(1, 100, 0)},
		response{id: "<urn:uuid:a-img>", uri: "http://a.example/img.png", ctype: "image/png", body: img},
		response{id: "<urn:uuid:a-img2>", uri: "http://a.example/img2.png", ctype: "image/png", body: img})
}

// fileB returns B and the offset half way through its last record, Z, so
// that a failure there comes after Y was decided.
func fileB(t testing.TB, compress bool) ([]byte, int) {
	rs := []response{
		{id: "<urn:uuid:b-y>", uri: "http://b.example/y", body: story(2, 100, 0)},
		{id: "<urn:uuid:b-img>", uri: "http://b.example/img.png", ctype: "image/png", body: img},
		{id: "<urn:uuid:b-z>", uri: "http://b.example/z", body: story(3, 100, 0)},
	}
	head := responsesWARC(t, compress, rs[:2]...)
	all := responsesWARC(t, compress, rs...)
	return all, len(head) + (len(all)-len(head))/2
}

func fileC(t testing.TB) []byte {
	return responsesWARC(t, false,
		response{id: "<urn:uuid:c-y>", uri: "http://c.example/y-copy", body: story(2, 100, 0)},
		response{id: "<urn:uuid:c-yn>", uri: "http://c.example/y-near", body: story(2, 100, 1)},
		response{id: "<urn:uuid:c-x>", uri: "http://c.example/x-copy", body: story(1, 100, 0)},
		response{id: "<urn:uuid:c-img>", uri: "http://c.example/img.png", ctype: "image/png", body: img})
}

// failingReader returns the first n bytes of b, then err.
type failingReader struct {
	b   []byte
	n   int
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, r.err
	}
	k := copy(p, r.b[:min(r.n, len(r.b))])
	r.b, r.n = r.b[k:], r.n-k
	return k, nil
}

// failingWriter takes n bytes, then fails.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

var errDisk = errors.New("read error: the disk is on fire")

// runFiles runs the files through one Deduper, with a failure where fail
// says, and returns the outputs, the report, and the Stats after each file.
type runStep struct {
	name string
	in   io.Reader
	out  io.Writer // nil: a buffer
	// withdraw after the Run succeeded
	withdraw bool
}

type runResult struct {
	outs  map[string][]byte
	errs  map[string]error
	stats []Stats // after each step, deep copies
	rep   string  // the report after Close
}

func runSteps(t *testing.T, opts Options, steps []runStep) runResult {
	t.Helper()
	var rep bytes.Buffer
	opts.Report = &rep
	d := New(opts)
	res := runResult{outs: map[string][]byte{}, errs: map[string]error{}}
	for _, s := range steps {
		var buf bytes.Buffer
		out := s.out
		if out == nil {
			out = &buf
		}
		err := d.Run(s.in, s.name, out, false)
		res.errs[s.name] = err
		res.outs[s.name] = buf.Bytes()
		if s.withdraw {
			d.Withdraw()
		}
		st := d.Stats
		st.In, st.Out = maps.Clone(st.In), maps.Clone(st.Out)
		res.stats = append(res.stats, st)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	res.rep = rep.String()
	return res
}

// refersTo maps each revisit's target URI to the record it refers to.
func refersTo(t *testing.T, out []byte) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, r := range readBack(t, out) {
		if r.Type() == "revisit" {
			m[r.Header.Get("WARC-Target-URI")] = r.Header.Get("WARC-Refers-To")
		}
	}
	return m
}

// TestFailedRunWithdrawn: file B fails after keeping page Y (a read error, a
// truncated gzip member in strict mode, or a write error). A later file's
// copies of Y, exact and near, are kept, not made revisits of B's records,
// while its copy of A's page X still refers to A; the Stats after B's
// failure are those after A; and file C's output, the Stats and the report
// are exactly those of a run without B.
func TestFailedRunWithdrawn(t *testing.T) {
	a, c := fileA(t), fileC(t)
	plainB, cut := fileB(t, false)
	gzB, gzCut := fileB(t, true)
	failures := []struct {
		name string
		step func() runStep
		is   func(error) bool
	}{
		{"read error", func() runStep {
			return runStep{name: "B", in: &failingReader{b: plainB, n: cut, err: errDisk}}
		}, func(err error) bool { return err != nil && strings.Contains(err.Error(), errDisk.Error()) }},
		{"truncated gzip", func() runStep {
			return runStep{name: "B", in: bytes.NewReader(gzB[:gzCut])}
		}, func(err error) bool { var pe *warcio.ParseError; return errors.As(err, &pe) }},
		{"write error", func() runStep {
			return runStep{name: "B", in: bytes.NewReader(plainB), out: &failingWriter{n: 100}}
		}, func(err error) bool { return err != nil && strings.Contains(err.Error(), "disk full") }},
	}
	for _, method := range []Method{MethodSpotSigs, MethodHenzinger} {
		opts := DefaultOptions()
		opts.Method = method
		opts.Workers = 2
		// The control: with B whole, C's copies of Y refer to B.
		whole := runSteps(t, opts, []runStep{{name: "A", in: bytes.NewReader(a)}, {name: "B", in: bytes.NewReader(plainB)}, {name: "C", in: bytes.NewReader(c)}})
		if r := refersTo(t, whole.outs["C"]); r["http://c.example/y-copy"] != "<urn:uuid:b-y>" || r["http://c.example/y-near"] != "<urn:uuid:b-y>" {
			t.Fatalf("method %d, control: C's copies of Y refer to %v, want B's Y", method, r)
		}
		without := runSteps(t, opts, []runStep{{name: "A", in: bytes.NewReader(a)}, {name: "C", in: bytes.NewReader(c)}})
		for _, f := range failures {
			name := fmt.Sprintf("method %d, %s", method, f.name)
			got := runSteps(t, opts, []runStep{{name: "A", in: bytes.NewReader(a)}, f.step(), {name: "C", in: bytes.NewReader(c)}})
			if !f.is(got.errs["B"]) {
				t.Fatalf("%s: B's Run returned %v", name, got.errs["B"])
			}
			if !reflect.DeepEqual(got.stats[1], got.stats[0]) {
				t.Errorf("%s: Stats after B's failure\n%+v\nwant those after A\n%+v", name, got.stats[1], got.stats[0])
			}
			r := refersTo(t, got.outs["C"])
			if r["http://c.example/y-copy"] != "" || r["http://c.example/x-copy"] != "<urn:uuid:a-x>" ||
				r["http://c.example/img.png"] != "<urn:uuid:a-img>" {
				t.Errorf("%s: C's revisits refer to %v; want the exact copy of Y kept and X's copy referring to A", name, r)
			}
			for u, id := range r {
				if strings.HasPrefix(id, "<urn:uuid:b-") {
					t.Errorf("%s: C's %s refers to %s, in the failed file B", name, u, id)
				}
			}
			if !bytes.Equal(got.outs["C"], without.outs["C"]) {
				t.Errorf("%s: C's output differs from a run without B", name)
			}
			if !reflect.DeepEqual(got.stats[2], without.stats[1]) {
				t.Errorf("%s: Stats after C\n%+v\nwant those of a run without B\n%+v", name, got.stats[2], without.stats[1])
			}
			if got.rep != without.rep {
				t.Errorf("%s: report\n%s\nwant that of a run without B\n%s", name, got.rep, without.rep)
			}
		}
	}
}

// TestWithdraw: Withdraw after a successful Run takes back everything the
// Run added, as if the file had not been given; it is a no-op when called
// twice, before any Run, after a failed Run (which withdrew itself: A must
// stay), and after Close.
func TestWithdraw(t *testing.T) {
	a, c := fileA(t), fileC(t)
	b, cut := fileB(t, false)
	opts := DefaultOptions()
	without := runSteps(t, opts, []runStep{{name: "A", in: bytes.NewReader(a)}, {name: "C", in: bytes.NewReader(c)}})
	for _, tc := range []struct {
		name  string
		steps []runStep
	}{
		{"after success", []runStep{{name: "A", in: bytes.NewReader(a)}, {name: "B", in: bytes.NewReader(b), withdraw: true}, {name: "C", in: bytes.NewReader(c)}}},
		{"twice", []runStep{{name: "A", in: bytes.NewReader(a)}, {name: "B", in: bytes.NewReader(b), withdraw: true}, {name: "-", in: bytes.NewReader(nil), withdraw: true}, {name: "C", in: bytes.NewReader(c)}}},
		{"after failure", []runStep{{name: "A", in: bytes.NewReader(a)}, {name: "B", in: &failingReader{b: b, n: cut, err: errDisk}, withdraw: true}, {name: "C", in: bytes.NewReader(c)}}},
	} {
		got := runSteps(t, opts, tc.steps)
		if tc.name == "twice" {
			// The empty file between B and C is withdrawn in its turn, which
			// must take back its EmptyFiles count and nothing of A.
			got.stats = append(got.stats[:2], got.stats[3:]...)
		}
		if !reflect.DeepEqual(got.stats[1], got.stats[0]) {
			t.Errorf("%s: Stats after B\n%+v\nwant those after A\n%+v", tc.name, got.stats[1], got.stats[0])
		}
		if !bytes.Equal(got.outs["C"], without.outs["C"]) || got.rep != without.rep {
			t.Errorf("%s: C's output or the report differs from a run without B:\n%s\nwant\n%s", tc.name, got.rep, without.rep)
		}
		if r := refersTo(t, got.outs["C"]); r["http://c.example/x-copy"] != "<urn:uuid:a-x>" {
			t.Errorf("%s: C's copy of X refers to %q, want A's X", tc.name, r["http://c.example/x-copy"])
		}
	}

	// Before any Run, and after Close: no-ops.
	var rep bytes.Buffer
	opts.Report = &rep
	d := New(opts)
	d.Withdraw()
	if err := d.Run(bytes.NewReader(a), "A", io.Discard, false); err != nil {
		t.Fatal(err)
	}
	if rep.Len() != 0 {
		t.Errorf("A's report line was written before the next Run or Close: %q", rep.String())
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	n := rep.Len()
	d.Withdraw()
	if d.Stats.Revisits != 1 || !strings.Contains(rep.String(), `"record_id":"<urn:uuid:a-img2>"`) || rep.Len() != n {
		t.Errorf("Withdraw after Close changed something: %+v\n%s", d.Stats, rep.String())
	}
}
