package dedup

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// throughStages runs the files as a cluster job does: a Map with a Deduper
// of its own for each file, every Fact through its binary form to one
// Judge in the run's order, every Decision through its binary form to an
// Apply with a Deduper of its own for each file. It returns each file's
// output and the judging Deduper's Stats and report.
func throughStages(t *testing.T, opts Options, names []string, files [][]byte, compress bool) ([][]byte, Stats, string) {
	t.Helper()
	var facts [][][]byte
	for i, in := range files {
		d := New(opts)
		var fs [][]byte
		err := d.Map(bytes.NewReader(in), names[i], func(f *Fact) error {
			b, err := f.AppendBinary(nil)
			fs = append(fs, b)
			return err
		})
		if err != nil {
			t.Fatalf("map %s: %v", names[i], err)
		}
		d.Close()
		facts = append(facts, fs)
	}
	var report bytes.Buffer
	o := opts
	o.Report = &report
	j := New(o)
	var decs [][][]byte
	for i, fs := range facts {
		var ds [][]byte
		for _, b := range fs {
			var f Fact
			if err := f.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			dec, err := j.Judge(names[i], &f)
			if err != nil {
				t.Fatalf("judge %s: %v", names[i], err)
			}
			if !dec.Pass() || dec.Repeat() > 0 {
				ds = append(ds, dec.AppendBinary(nil))
			}
		}
		decs = append(decs, ds)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	var outs [][]byte
	for i, in := range files {
		d := New(opts)
		ds := decs[i]
		next := func() (*Decision, error) {
			if len(ds) == 0 {
				return nil, io.EOF
			}
			dec := new(Decision)
			err := dec.UnmarshalBinary(ds[0])
			ds = ds[1:]
			return dec, err
		}
		var out bytes.Buffer
		if err := d.Apply(bytes.NewReader(in), names[i], &out, compress, int64(len(facts[i])), next); err != nil {
			t.Fatalf("apply %s: %v", names[i], err)
		}
		d.Close()
		outs = append(outs, out.Bytes())
	}
	return outs, j.Stats, report.String()
}

// oneMachine runs the files through one Deduper, as the command line does.
func oneMachine(t *testing.T, opts Options, names []string, files [][]byte, compress bool) ([][]byte, Stats, string) {
	t.Helper()
	var report bytes.Buffer
	o := opts
	o.Report = &report
	d := New(o)
	var outs [][]byte
	for i, in := range files {
		var out bytes.Buffer
		if err := d.Run(bytes.NewReader(in), names[i], &out, compress); err != nil {
			t.Fatalf("run %s: %v", names[i], err)
		}
		outs = append(outs, out.Bytes())
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return outs, d.Stats, report.String()
}

// stageInputs are files with exact and near duplicates within and across
// files and sites, a repeated record ID, records that are never replaced,
// and the repository's sample crawl.
func stageInputs(t testing.TB) ([]string, [][]byte) {
	seeds := fuzzSeeds(t)
	a := story(11, 12, 0)
	more := responsesWARC(t, true,
		response{id: "<urn:uuid:m1>", uri: "http://a.example/y", body: story(11, 12, 1)},
		response{id: "<urn:uuid:m2>", uri: "http://d.example/copy", body: a},
		response{id: "<urn:uuid:1>", uri: "http://e.example/x", body: story(5, 10, 2)},
		response{id: "<urn:uuid:m3>", uri: "http://a.example/z", body: story(12, 12, 0)},
	)
	first := responsesWARC(t, true, response{id: "<urn:uuid:f1>", uri: "http://a.example/w", body: a})
	names := []string{"first.warc.gz", "seed-plain.warc", "seed.warc.gz", "other.warc", "more.warc.gz"}
	files := [][]byte{first, seeds[0], seeds[1], seeds[2], more}
	if b, err := os.ReadFile("../testdata/sample.warc.gz"); err == nil {
		names, files = append(names, "sample.warc.gz"), append(files, b)
	} else {
		t.Fatal(err)
	}
	return names, files
}

// TestStagesEqualOneMachine: map, judge and apply, each file a task of its
// own and every Fact and Decision through its binary form, write the
// records one machine writes, byte for byte, with the same counts and the
// same report, for each method and near-duplicate mode.
func TestStagesEqualOneMachine(t *testing.T) {
	names, files := stageInputs(t)
	for _, tc := range []struct {
		name   string
		method Method
		mode   NearMode
	}{
		{"spotsigs", MethodSpotSigs, NearRevisit},
		{"annotate", MethodSpotSigs, NearAnnotate},
		{"henzinger", MethodHenzinger, NearRevisit},
		{"off", MethodSpotSigs, NearOff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.MinSize = 64
			opts.Workers = 2
			opts.Method, opts.Near = tc.method, tc.mode
			want, wst, wrep := oneMachine(t, opts, names, files, true)
			got, gst, grep := throughStages(t, opts, names, files, true)
			revisits := 0
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Errorf("%s: the stages wrote %d bytes, one machine %d, and they differ", names[i], len(got[i]), len(want[i]))
				}
				for _, r := range readBack(t, want[i]) {
					if r.Type() == "revisit" {
						revisits++
					}
				}
			}
			if revisits < 3 {
				t.Errorf("only %d revisits: the inputs do not exercise the decisions", revisits)
			}
			if tc.mode == NearAnnotate && wst.Annotations == 0 {
				t.Error("no annotation: the inputs do not exercise --near=annotate")
			}
			wst.BytesOut, gst.BytesOut = 0, 0 // Judge writes nothing
			if a, b := jsonOf(t, wst), jsonOf(t, gst); a != b {
				t.Errorf("counts differ:\none machine %s\nstages      %s", a, b)
			}
			if wrep != grep {
				t.Errorf("reports differ:\none machine\n%s\nstages\n%s", wrep, grep)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestApplyRefusesOtherDecisions: decisions made for one file do not
// rewrite another: a decision at an offset where no record starts, past the
// last record, or for a record whose payload differs fails the file.
func TestApplyRefusesOtherDecisions(t *testing.T) {
	names, files := stageInputs(t)
	opts := DefaultOptions()
	opts.MinSize = 64
	j := New(opts)
	var decs, all []Decision
	for i, in := range files {
		m := New(opts)
		if err := m.Map(bytes.NewReader(in), names[i], func(f *Fact) error {
			dec, err := j.Judge(names[i], f)
			if i == 2 && !dec.Pass() {
				decs = append(decs, dec)
			}
			if !dec.Pass() {
				all = append(all, dec)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(decs) == 0 {
		t.Fatal("no decision for seed.warc.gz")
	}
	records := int64(-1)
	apply := func(in []byte, ds ...Decision) error {
		d := New(opts)
		defer d.Close()
		return d.Apply(bytes.NewReader(in), "x", io.Discard, true, records, func() (*Decision, error) {
			if len(ds) == 0 {
				return nil, io.EOF
			}
			dec := ds[0]
			ds = ds[1:]
			return &dec, nil
		})
	}
	if err := apply(files[2], decs...); err != nil {
		t.Fatalf("the file's own decisions: %v", err)
	}
	// A revisit decision moved onto its kept record (the same payload), at
	// that record's offset in its file.
	var self Decision
	var selfIn []byte
	for _, dec := range all {
		if dec.act != actExact || dec.repeat != 0 {
			continue
		}
		for i, in := range files {
			m := New(opts)
			m.Map(bytes.NewReader(in), names[i], func(f *Fact) error {
				if f.id == dec.kept.id && selfIn == nil {
					self, selfIn = dec, in
					self.Offset = f.Offset
				}
				return nil
			})
		}
		if selfIn != nil {
			break
		}
	}
	if selfIn == nil {
		t.Fatal("no exact revisit decision whose kept record is in the files")
	}
	shifted := decs[0]
	shifted.Offset++
	past := decs[0]
	past.Offset = 1 << 40
	for _, tc := range []struct {
		name string
		in   []byte
		dec  Decision
		want string
	}{
		{"no record there", files[2], shifted, "where no record starts"},
		{"past the end", files[2], past, "past the file's last record"},
		{"another file", files[4], decs[0], "not the one its decision was made for"},
		{"the kept record itself", selfIn, self, "names the record itself as its kept copy"},
	} {
		err := apply(tc.in, tc.dec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	// The file's own decisions, for a file said to hold one record more.
	n := int64(len(readBack(t, files[2])))
	records = n
	if err := apply(files[2], decs...); err != nil {
		t.Fatalf("%d records, as mapped: %v", n, err)
	}
	records = n + 1
	if err := apply(files[2], decs...); err == nil || !strings.Contains(err.Error(), "it is not the file that was mapped") {
		t.Errorf("a record missing: got %v", err)
	}
}

// TestFactDecisionRoundTrip: a Fact and a Decision read back from their
// binary form write themselves the same.
func TestFactDecisionRoundTrip(t *testing.T) {
	names, files := stageInputs(t)
	opts := DefaultOptions()
	opts.MinSize = 64
	j := New(opts)
	kinds := map[string]int{}
	for i, in := range files {
		m := New(opts)
		err := m.Map(bytes.NewReader(in), names[i], func(f *Fact) error {
			b, err := f.AppendBinary(nil)
			if err != nil {
				return err
			}
			var g Fact
			if err := g.UnmarshalBinary(b); err != nil {
				return err
			}
			if c, _ := g.AppendBinary(nil); !bytes.Equal(b, c) {
				t.Errorf("%s at %d: the fact does not read back as written", names[i], f.Offset)
			}
			dec, err := j.Judge(names[i], &g)
			if err != nil {
				return err
			}
			kinds[strconv.Itoa(int(dec.act))+"/"+strconv.FormatBool(dec.annotate)]++
			db := dec.AppendBinary(nil)
			var e Decision
			if err := e.UnmarshalBinary(db); err != nil {
				return err
			}
			if !bytes.Equal(e.AppendBinary(nil), db) {
				t.Errorf("%s at %d: the decision does not read back as written", names[i], f.Offset)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if kinds["1/false"] == 0 || kinds["2/false"] == 0 {
		t.Errorf("decisions made: %v; want exact and near revisits", kinds)
	}
}

// FuzzFact: reading any bytes as a Fact or a Decision fails or gives one
// that writes itself back the same.
func FuzzFact(f *testing.F) {
	names, files := stageInputs(f)
	opts := DefaultOptions()
	opts.MinSize = 64
	j := New(opts)
	for i, in := range files[:5] {
		m := New(opts)
		err := m.Map(bytes.NewReader(in), names[i], func(fc *Fact) error {
			b, err := fc.AppendBinary(nil)
			if err != nil {
				return err
			}
			f.Add(b)
			dec, err := j.Judge(names[i], fc)
			f.Add(dec.AppendBinary(nil))
			return err
		})
		if err != nil {
			f.Fatal(err)
		}
	}
	// An input revisit's fact (clsRefers).
	_, crawls, _ := brokenCase(f)
	if err := New(opts).Map(bytes.NewReader(crawls[1]), "crawl2", func(fc *Fact) error {
		b, err := fc.AppendBinary(nil)
		f.Add(b)
		return err
	}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fc Fact
		if fc.UnmarshalBinary(b) == nil {
			c, err := fc.AppendBinary(nil)
			if err != nil {
				t.Fatalf("a fact read back does not write: %v", err)
			}
			var g Fact
			if err := g.UnmarshalBinary(c); err != nil {
				t.Fatalf("a fact written does not read: %v", err)
			}
			if d, _ := g.AppendBinary(nil); !bytes.Equal(c, d) {
				t.Fatal("a fact does not write itself back the same")
			}
		}
		var dec Decision
		if dec.UnmarshalBinary(b) == nil {
			c := dec.AppendBinary(nil)
			var e Decision
			if err := e.UnmarshalBinary(c); err != nil {
				t.Fatalf("a decision written does not read: %v", err)
			}
			if !bytes.Equal(e.AppendBinary(nil), c) {
				t.Fatal("a decision does not write itself back the same")
			}
		}
	})
}

// TestFactCompactFields: a Fact's record ID, date and digests come back as
// they were written, whether they take the compact form (the spellings of
// Heritrix, wget and warcio) or stay strings (any other spelling).
func TestFactCompactFields(t *testing.T) {
	const (
		uuid  = "<urn:uuid:0ef6c639-030a-5c23-93ab-634e8838f399>"
		date  = "2026-03-02T06:00:08Z"
		sha1a = "sha1:QTF23MUKSD7HST5O76F365Y65EWCXU43"
		sha1b = "sha1:2Y5TQBQ3A4IMLHVYAAOAJIX3BMFYS3OY"
	)
	upper, lower := strings.ToUpper(uuid), strings.ToLower(sha1a)
	tests := []struct {
		name             string
		kind, id, date   string
		digest, computed string
		verbatim         []string // the fields written as strings
	}{
		{"as crawlers write them", "response", uuid, date, sha1a, sha1a, nil},
		{"a computed digest that differs", "response", uuid, date, sha1a, sha1b, nil},
		{"a date before 1970", "response", uuid, "1969-07-20T20:17:40Z", sha1a, sha1a, nil},
		{"upper-case UUID", "response", upper, date, sha1a, sha1a, []string{upper}},
		{"an ID of another scheme", "response", "<urn:x-example:1>", date, sha1a, sha1a, []string{"<urn:x-example:1>"}},
		{"a UUID a digit short", "response", uuid[:45] + ">", date, sha1a, sha1a, []string{uuid[:45] + ">"}},
		{"fractions of a second", "response", uuid, "2026-03-02T06:00:08.123Z", sha1a, sha1a, []string{"2026-03-02T06:00:08.123Z"}},
		{"a date with an offset", "response", uuid, "2026-03-02T07:00:08+01:00", sha1a, sha1a, []string{"2026-03-02T07:00:08+01:00"}},
		{"a month 13", "response", uuid, "2026-13-02T06:00:08Z", sha1a, sha1a, []string{"2026-13-02T06:00:08Z"}},
		{"lower-case base32", "response", uuid, date, lower, sha1a, []string{lower}},
		{"a computed digest in lower case", "response", uuid, date, sha1a, lower, []string{lower}},
		{"a SHA-256 digest", "response", uuid, date, "sha256:" + strings.Repeat("a", 64), sha1a, []string{"sha256:" + strings.Repeat("a", 64)}},
		{"a SHA-1 in hex", "response", uuid, date, "sha1:" + strings.Repeat("0", 40), sha1a, []string{"sha1:" + strings.Repeat("0", 40)}},
		{"a kind no list names", "x-custom", uuid, date, sha1a, sha1a, []string{"x-custom"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Fact{Offset: 1234, kind: tc.kind, size: 5678, id: tc.id, cls: clsEligible, uri: "http://example.org/",
				date: tc.date, digest: tc.digest, computed: tc.computed, length: 99}
			b, err := f.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			var g Fact
			if err := g.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if g.kind != f.kind || g.id != f.id || g.date != f.date || g.digest != f.digest || g.computed != f.computed ||
				g.Offset != f.Offset || g.size != f.size || g.uri != f.uri || g.length != f.length {
				t.Errorf("read back %+v, wrote %+v", g, f)
			}
			for _, v := range []string{tc.kind, tc.id, tc.date, tc.digest, tc.computed} {
				if want := slices.Contains(tc.verbatim, v); bytes.Contains(b, []byte(v)) != want {
					t.Errorf("%q written as a string: %v, want %v", v, !want, want)
				}
			}
		})
	}
}

// TestStagesEmptyMembers: empty gzip members (valid gzip, no record) before,
// between and after the records: map, judge and apply write what a run on
// one machine writes, and the rounds decide the same. Their offsets in the
// decompressed stream are a record's.
func TestStagesEmptyMembers(t *testing.T) {
	page := story(61, 40, 0)
	rec := func(id, uri string) []byte {
		return responsesWARC(t, false, response{id: id, uri: uri, body: page})
	}
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	r1, r2, empty := member(rec("<urn:uuid:1>", "http://a.example/1")), member(rec("<urn:uuid:2>", "http://b.example/2")), member(nil)
	for name, in := range map[string][]byte{
		"first":   slices.Concat(empty, r1, r2),
		"between": slices.Concat(r1, empty, r2),
		"last":    slices.Concat(r1, r2, empty, empty),
	} {
		t.Run(name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.MinSize = 64
			want, wst, _ := oneMachine(t, opts, []string{"in.warc.gz"}, [][]byte{in}, true)
			got, _, _ := throughStages(t, opts, []string{"in.warc.gz"}, [][]byte{in}, true)
			if !bytes.Equal(got[0], want[0]) {
				t.Error("the stages' output is not one machine's")
			}
			if wst.Revisits+wst.NearRevisits != 1 {
				t.Errorf("one machine: %d revisits, want the copy replaced", wst.Revisits+wst.NearRevisits)
			}
			facts := mapWARC(t, in, &opts)
			decided, _ := runRounds(t, opts, facts)
			_, decs := roundPairs(t, facts, decided)
			if len(decs) != 1 {
				t.Errorf("the rounds decide %d records, want 1", len(decs))
			}
		})
	}
}
