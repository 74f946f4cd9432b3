package dedup

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/index"
)

// keyedFact is a Fact with its file's name and its record key.
type keyedFact struct {
	file, key string
	f         *Fact
}

// readKeyedFacts reads the sorted output of `warcdedup map` with the keys.
func readKeyedFacts(t *testing.T, path string) []keyedFact {
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []keyedFact
	name := ""
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), "\t")
		b, err := base64.StdEncoding.DecodeString(val)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(key, ":") {
			name, _, _ = strings.Cut(string(b), "\x00")
			continue
		}
		f := new(Fact)
		if err := f.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		out = append(out, keyedFact{name, key, f})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// roundStats are what a run of the rounds measured: lines and bytes into
// each round, and its largest group.
type roundStats struct {
	name          string
	lines, bytes  int
	groups, large int
	largeKey      string
}

// runRounds runs the rounds over facts in capture order as an engine would,
// sorting between rounds, and returns the decision lines (keyed by file).
func runRounds(t testing.TB, opts Options, facts []keyedFact) ([]Line, []roundStats) {
	return runSeededRounds(t, opts, nil, facts)
}

// runSeededRounds runs the rounds as runRounds does, with the records of an
// index (seeds, in its order) as warcdedup map --rounds --index writes them.
func runSeededRounds(t testing.TB, opts Options, seeds []*index.Record, facts []keyedFact) ([]Line, []roundStats) {
	var in, decided []Line
	for i, rec := range seeds {
		if err := SeedLines(i+1, rec, func(l Line) error { in = append(in, l); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	for _, kf := range facts {
		if err := RoundFacts(kf.key, cloneFact(kf.f), func(l Line) error { in = append(in, l); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	var stats []roundStats
	for _, name := range RoundNames {
		r, err := NewRound(name, opts)
		if err != nil {
			t.Fatal(err)
		}
		sortLines(in)
		st := roundStats{name: name, lines: len(in)}
		start := 0
		for i, l := range in {
			st.bytes += len(l.Key) + 2 + base64.StdEncoding.EncodedLen(len(l.Val))
			if i == len(in)-1 || Group(in[i+1].Key) != Group(l.Key) {
				if !strings.ContainsRune(roundTags[name], rune(l.Key[0])) {
					start = i + 1
					continue
				}
				st.groups++
				if i+1-start > st.large {
					st.large, st.largeKey = i+1-start, Group(l.Key)
				}
				start = i + 1
			}
		}
		stats = append(stats, st)
		var next []Line
		if err := r.Groups(in, func(l Line) error { next = append(next, l); return nil }); err != nil {
			t.Fatal(err)
		}
		in = next
	}
	for _, l := range in {
		if c := l.Key[0]; c < '0' || c > '9' {
			t.Fatalf("a line of no file after the last round: %.40q", l.Key)
		}
		decided = append(decided, l)
	}
	return decided, stats
}

// TestRoundsAgainstOneMachine runs the partitioned rounds over the map
// output WARCDEDUP_PARTITION_FACTS names and counts the duplicate pairs that
// differ from one machine's decisions (docs/scale.md; at most 0.5%).
func TestRoundsAgainstOneMachine(t *testing.T) {
	facts, opts := partitionFacts(t)
	one, oneDec := onePairs(t, opts, facts)
	decided, stats := runRounds(t, opts, facts)
	for _, s := range stats {
		t.Logf("round %-8s %9d lines %12d bytes %8d groups, largest %d (%.40s)", s.name, s.lines, s.bytes, s.groups, s.large, s.largeKey)
	}
	byID := map[string]*Fact{}
	for _, kf := range facts {
		byID[kf.f.id] = kf.f
	}
	part, partDec := roundPairs(t, facts, decided)
	missing, added := 0, 0
	for k := range one {
		if !part[k] {
			missing++
			if testing.Verbose() {
				o, p := oneDec[k.id], partDec[k.id]
				t.Logf("missing %s -> %s: one %d %.3f %s %s; rounds %d %.3f %s %s", k.id, k.kept, o.act, o.m.Similarity, o.m.Relation, o.m.kept.uri, p.act, p.m.Similarity, p.m.Relation, p.m.kept.uri)
			}
		}
	}
	for k := range part {
		if !one[k] {
			added++
			if testing.Verbose() {
				p := partDec[k.id]
				t.Logf("added %s -> %s: rounds %d %.3f %s %s (%s)", k.id, k.kept, p.act, p.m.Similarity, p.m.Relation, p.m.kept.uri, byID[k.id].uri)
			}
		}
	}
	t.Logf("%d records; one machine %d pairs, rounds %d; %d missing, %d added", len(facts), len(one), len(part), missing, added)
	if opts.Near == NearAnnotate {
		// Containments are no duplicate pairs: counted, not bounded.
		oneC, partC := containPairs(facts, oneDec), containPairs(facts, partDec)
		both := 0
		for k := range oneC {
			if partC[k] {
				both++
			}
		}
		t.Logf("annotated containments: one machine %d, rounds %d, in both %d", len(oneC), len(partC), both)
	}
	if diff := float64(missing+added) / float64(max(len(one), 1)); diff > 0.005 {
		t.Errorf("the rounds differ from one machine on %.2f%% of its pairs, want at most 0.5%%", 100*diff)
	}
}

// containPairs are the annotated containments of decs (by record ID).
func containPairs(facts []keyedFact, decs map[string]Decision) map[pairKey]bool {
	out := map[pairKey]bool{}
	for _, kf := range facts {
		if dec, ok := decs[kf.f.id]; ok {
			if k, ok := containOf(kf.f, &dec); ok {
				out[k] = true
			}
		}
	}
	return out
}

// partitionFacts reads the sorted output of `warcdedup map` that
// WARCDEDUP_PARTITION_FACTS names, or skips the test; the options are the
// defaults, with --near=annotate if WARCDEDUP_PARTITION_NEAR says so.
func partitionFacts(t *testing.T) ([]keyedFact, Options) {
	path := os.Getenv("WARCDEDUP_PARTITION_FACTS")
	if path == "" {
		t.Skip("WARCDEDUP_PARTITION_FACTS is not set: no partition measurement")
	}
	opts := DefaultOptions()
	opts.TempDir = t.TempDir()
	if os.Getenv("WARCDEDUP_PARTITION_NEAR") == "annotate" {
		opts.Near = NearAnnotate
	}
	return readKeyedFacts(t, path), opts
}

// onePairs are the pairs one machine's decisions make over facts, in order,
// and the decisions (those that change the output) by record ID.
func onePairs(t *testing.T, opts Options, facts []keyedFact) (map[pairKey]bool, map[string]Decision) {
	t.Helper()
	return seededPairs(t, opts, nil, facts)
}

// seededPairs are onePairs of one machine seeded with the records of an
// index (seeds, in its order).
func seededPairs(t *testing.T, opts Options, seeds []*index.Record, facts []keyedFact) (map[pairKey]bool, map[string]Decision) {
	t.Helper()
	pairs, decs := map[pairKey]bool{}, map[string]Decision{}
	d := New(opts)
	defer d.Close()
	for _, rec := range seeds {
		if err := d.Seed(rec); err != nil {
			t.Fatal(err)
		}
	}
	for _, kf := range facts {
		dec, err := d.Judge(kf.file, cloneFact(kf.f))
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := pairOf(kf.f, &dec); ok {
			pairs[k] = true
		}
		if !dec.Pass() {
			decs[kf.f.id] = dec
		}
	}
	return pairs, decs
}

// roundPairs are the pairs the rounds' decision lines make, and the
// decisions (those that change the output) by record ID.
func roundPairs(t *testing.T, facts []keyedFact, decided []Line) (map[pairKey]bool, map[string]Decision) {
	t.Helper()
	byKey := map[string]*Fact{}
	for _, kf := range facts {
		byKey[kf.key] = kf.f
	}
	pairs, decs := map[pairKey]bool{}, map[string]Decision{}
	for _, l := range decided {
		if l.Val[0] != ValDecision {
			continue
		}
		var dec Decision
		if err := dec.UnmarshalBinary(l.Val[1:]); err != nil {
			t.Fatal(err)
		}
		f := byKey[recordKeyOf(l.Key, dec.Offset)]
		if f == nil {
			t.Fatalf("a decision for no record: %s %x", l.Key, dec.Offset)
		}
		if k, ok := pairOf(f, &dec); ok {
			pairs[k] = true
		}
		if !dec.Pass() {
			decs[f.id] = dec
		}
	}
	return pairs, decs
}

// recordKeyOf is the key of the record at offset off of the file keyed
// file, as warcdedup map writes it.
func recordKeyOf(file string, off int64) string { return RecordKey(file, off) }

// chainFacts maps the pages of TestRoundsChains with opts (given the
// MinSize and TempDir the pages need): a story kept on one site, copies of
// it on others, exact copies, a page of its own.
func chainFacts(t *testing.T, opts *Options) []keyedFact {
	t.Helper()
	warc := responsesWARC(t, false,
		response{id: "<urn:uuid:a>", uri: "http://a.example/s", body: story(21, 12, 0)},
		response{id: "<urn:uuid:b1>", uri: "http://b.example/s", body: story(21, 12, 1)},
		response{id: "<urn:uuid:b2>", uri: "http://b.example/t", body: strings.Replace(story(21, 12, 1), "</article>", "<p>Updated at noon.</p></article>", 1)},
		response{id: "<urn:uuid:c>", uri: "http://c.example/copy", body: story(21, 12, 1)},
		response{id: "<urn:uuid:d>", uri: "http://d.example/x", body: story(22, 12, 0)},
		response{id: "<urn:uuid:a2>", uri: "http://a.example/s2", body: story(21, 12, 0)},
		response{id: "<urn:uuid:e>", uri: "http://e.example/r", body: strings.Replace(story(21, 12, 1), "</article>", "<p>Reprinted.</p></article>", 1)},
	)
	return mapWARC(t, warc, opts)
}

// mapWARC maps the records of warc, one file, with opts (given the MinSize
// and TempDir small test pages need), as a map task keys them.
func mapWARC(t *testing.T, warc []byte, opts *Options) []keyedFact {
	t.Helper()
	opts.MinSize = 64
	opts.TempDir = t.TempDir()
	var facts []keyedFact
	m := New(*opts)
	err := m.Map(bytes.NewReader(warc), "in.warc", func(f *Fact) error {
		facts = append(facts, keyedFact{"in.warc", recordKeyOf("0", f.Offset), f})
		return nil
	})
	m.Close()
	if err != nil {
		t.Fatal(err)
	}
	return facts
}

// TestRoundsChains: the rounds resolve what one machine decides in order.
// A story kept on one site (a), copied to a second site (b1: replaced
// across sites), re-published there (b2: replaced by b1 within its site, so
// it points at a, as one machine, which never kept b1, finds), an exact
// copy of b1 on a third site (a near revisit of a, b1 being no kept copy),
// an exact copy of a (an exact revisit of it), a page of its own, and a
// copy of b1 on a fourth site, closer to b1 than to a but replaced by a, b1
// being no kept copy.
func TestRoundsChains(t *testing.T) {
	opts := DefaultOptions()
	facts := chainFacts(t, &opts)
	one, _ := onePairs(t, opts, facts)
	decided, _ := runRounds(t, opts, facts)
	got, decs := roundPairs(t, facts, decided)
	want := map[pairKey]bool{
		{"<urn:uuid:b1>", "<urn:uuid:a>"}: true,
		{"<urn:uuid:b2>", "<urn:uuid:a>"}: true,
		{"<urn:uuid:c>", "<urn:uuid:a>"}:  true,
		{"<urn:uuid:a2>", "<urn:uuid:a>"}: true,
		{"<urn:uuid:e>", "<urn:uuid:a>"}:  true,
	}
	for name, pairs := range map[string]map[pairKey]bool{"one machine": one, "the rounds": got} {
		if len(pairs) != len(want) {
			t.Errorf("%s: pairs %v, want %v", name, pairs, want)
		}
		for k := range want {
			if !pairs[k] {
				t.Errorf("%s: no pair %v", name, k)
			}
		}
	}
	if c, a2 := decs["<urn:uuid:c>"].act, decs["<urn:uuid:a2>"].act; c != actNear || a2 != actExact {
		t.Errorf("the copy of b1 is a %d revisit, the copy of a %d: want near (%d) and exact (%d)", c, a2, actNear, actExact)
	}
}

// TestRoundsAnnotate: with --near=annotate the rounds keep every page and
// annotate the pages one machine annotates, over the pages of
// TestRoundsChains: b1 a near duplicate of a; b2, which matches b1 within
// its site, annotated with a, since b1 is no page one machine compares
// with; c, an exact copy of b1, an exact revisit of b1, which is kept; e,
// closer to b1, annotated with a. No page is replaced by a near revisit.
func TestRoundsAnnotate(t *testing.T) {
	opts := DefaultOptions()
	opts.Near = NearAnnotate
	facts := chainFacts(t, &opts)
	one, oneDecs := onePairs(t, opts, facts)
	decided, _ := runRounds(t, opts, facts)
	got, decs := roundPairs(t, facts, decided)
	want := map[pairKey]action{
		{"<urn:uuid:b1>", "<urn:uuid:a>"}: actPass,
		{"<urn:uuid:b2>", "<urn:uuid:a>"}: actPass,
		{"<urn:uuid:c>", "<urn:uuid:b1>"}: actExact,
		{"<urn:uuid:a2>", "<urn:uuid:a>"}: actExact,
		{"<urn:uuid:e>", "<urn:uuid:a>"}:  actPass,
	}
	for name, run := range map[string]struct {
		pairs map[pairKey]bool
		decs  map[string]Decision
	}{"one machine": {one, oneDecs}, "the rounds": {got, decs}} {
		if len(run.pairs) != len(want) {
			t.Errorf("%s: pairs %v, want %v", name, run.pairs, want)
		}
		for k, act := range want {
			dec := run.decs[k.id]
			switch {
			case !run.pairs[k]:
				t.Errorf("%s: no pair %v", name, k)
			case dec.act != act || dec.annotate != (act == actPass):
				t.Errorf("%s: %s is action %d, annotated %t; want action %d, annotated %t", name, k.id, dec.act, dec.annotate, act, act == actPass)
			}
		}
	}
}

// TestRoundsIndexPagesShareBands: two pages an index holds that share LSH
// bands, a story on one site and, on another, a page that holds it and more
// (a containment: both kept), are no candidate pair, as one machine seeded
// with the index never compares them (the verify round would meet the later
// one's candidates without its page, and fail). The rounds seeded with the
// index decide over the next crawl as one machine seeded with it does: a
// copy of the story on a third site and an exact copy of it point into the
// index, an edit of the longer page is replaced within its site.
func TestRoundsIndexPagesShareBands(t *testing.T) {
	_, more, _ := strings.Cut(story(30, 60, 0), "<article>")
	more, _, _ = strings.Cut(more, "</article>")
	long := strings.Replace(story(21, 12, 0), "</article>", more+"</article>", 1)
	earlier := responsesWARC(t, false,
		response{id: "<urn:uuid:a>", uri: "http://a.example/s", body: story(21, 12, 0)},
		response{id: "<urn:uuid:b>", uri: "http://b.example/long", body: long},
	)
	crawl := responsesWARC(t, false,
		response{id: "<urn:uuid:c>", uri: "http://c.example/copy", body: story(21, 12, 1)},
		response{id: "<urn:uuid:b2>", uri: "http://b.example/long2", body: strings.Replace(long, "</article>", "<p>Updated at noon.</p></article>", 1)},
		response{id: "<urn:uuid:d>", uri: "http://d.example/x", body: story(22, 12, 0)},
		response{id: "<urn:uuid:a2>", uri: "http://a.example/s2", body: story(21, 12, 0)},
	)
	for mode, nm := range map[string]NearMode{"revisit": NearRevisit, "annotate": NearAnnotate} {
		opts := DefaultOptions()
		opts.Near = nm
		facts := mapWARC(t, crawl, &opts)
		// The index: what one machine kept of the earlier crawl, as it
		// stores it.
		first := New(opts)
		if err := first.Run(bytes.NewReader(earlier), "earlier.warc", io.Discard, false); err != nil {
			t.Fatal(err)
		}
		var stored [][]byte
		if err := first.Kept(func(r *index.Record) error {
			b, err := index.AppendRecord(nil, r)
			stored = append(stored, b)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		first.Close()
		seeds := func() []*index.Record {
			var out []*index.Record
			for _, b := range stored {
				r, err := index.DecodeRecord(b)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, r)
			}
			return out
		}
		ix := seeds()
		if len(ix) != 2 || !ix[0].Page.OK() || !ix[1].Page.OK() {
			t.Fatalf("%s: the index holds %d records, want both pages with their signatures", mode, len(ix))
		}
		shared := 0
		bands := map[uint64]bool{}
		for _, b := range lshBands(pageKeys(ix[0].Page), lshRounds) {
			bands[b] = true
		}
		for _, b := range lshBands(pageKeys(ix[1].Page), lshRounds) {
			if bands[b] {
				shared++
			}
		}
		if shared < lshMinShared {
			t.Fatalf("%s: the index's pages share %d bands, want %d or more", mode, shared, lshMinShared)
		}

		one, oneDecs := seededPairs(t, opts, seeds(), facts)
		decided, _ := runSeededRounds(t, opts, seeds(), facts)
		got, decs := roundPairs(t, facts, decided)
		for _, k := range []pairKey{{"<urn:uuid:c>", "<urn:uuid:a>"}, {"<urn:uuid:a2>", "<urn:uuid:a>"}, {"<urn:uuid:b2>", "<urn:uuid:b>"}} {
			if !one[k] {
				t.Errorf("%s: one machine makes no pair %v (pairs %v)", mode, k, one)
			}
		}
		if len(got) != len(one) {
			t.Errorf("%s: the rounds' pairs %v, one machine's %v", mode, got, one)
		}
		for k := range one {
			o, r := oneDecs[k.id], decs[k.id]
			if !got[k] || o.act != r.act || o.annotate != r.annotate {
				t.Errorf("%s: %s: the rounds decide action %d, annotated %t (pair %t); one machine %d, %t -> %s",
					mode, k.id, r.act, r.annotate, got[k], o.act, o.annotate, k.kept)
			}
		}
	}
}

// FuzzRounds: each round reads any lines without panicking, and either
// decides or fails with an error; the parsers of the values (facts, events,
// file and repeat lines) meet whatever bytes a damaged shuffle holds.
func FuzzRounds(f *testing.F) {
	warc := responsesWARC(f, false,
		response{id: "<urn:uuid:a>", uri: "http://a.example/s", body: story(21, 12, 0)},
		response{id: "<urn:uuid:b>", uri: "http://b.example/s", body: story(21, 12, 1)},
		response{id: "<urn:uuid:a>", uri: "http://a.example/t", body: story(21, 12, 0)},
	)
	opts := DefaultOptions()
	opts.MinSize = 64
	var seed bytes.Buffer
	m := New(opts)
	if err := m.Map(bytes.NewReader(warc), "in.warc", func(fc *Fact) error {
		return RoundFacts(recordKeyOf("0", fc.Offset), fc, func(l Line) error {
			seed.WriteString(l.Key + "\t")
			seed.Write(l.Val)
			seed.WriteString("\n\x00")
			return nil
		})
	}); err != nil {
		f.Fatal(err)
	}
	m.Close()
	f.Add(seed.Bytes())
	f.Add([]byte("Z 0:0000000000000001 f0:0000000000000000\tf\x00\n\x00Jx 1y\t\n\x00Vx 0\t\n\x00" + "0\tF1\x00a\x00\n\x000\tR\x02\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var lines []Line
		for _, l := range bytes.Split(data, []byte("\n\x00")) {
			k, v, _ := bytes.Cut(l, []byte("\t"))
			lines = append(lines, Line{string(k), v})
		}
		sortLines(lines)
		for _, mode := range []NearMode{NearRevisit, NearAnnotate} {
			o := opts
			o.Near = mode
			for _, name := range RoundNames {
				r, err := NewRound(name, o)
				if err != nil {
					t.Fatal(err)
				}
				_ = r.Groups(lines, func(Line) error { return nil })
			}
		}
		for _, l := range lines {
			ParseFileLine(l.Val)
			ParseRepeat(l.Val)
		}
	})
}

// TestResolveScale measures the resolve round, the one round whose group is
// the whole run, on a run made of copies of a real one: the rounds before it
// run once over the map output WARCDEDUP_PARTITION_FACTS names, and their
// resolve lines are fed WARCDEDUP_SCALE_COPIES times (default 1), each copy
// with record keys of its own, file by file in capture order. Copies of a
// crawl with their own sites, digests and signatures (relabel) share no
// group of the other rounds: each of those holds what it holds for one copy.
func TestResolveScale(t *testing.T) {
	facts, opts := partitionFacts(t)
	copies := 1
	if c, err := strconv.Atoi(os.Getenv("WARCDEDUP_SCALE_COPIES")); err == nil && c > 0 {
		copies = c
	}
	var in []Line
	for _, kf := range facts {
		if err := RoundFacts(kf.key, cloneFact(kf.f), func(l Line) error { in = append(in, l); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range RoundNames[:len(RoundNames)-1] {
		r, err := NewRound(name, opts)
		if err != nil {
			t.Fatal(err)
		}
		sortLines(in)
		var next []Line
		if err := r.Groups(in, func(l Line) error { next = append(next, l); return nil }); err != nil {
			t.Fatal(err)
		}
		in = next
	}
	sortLines(in)
	// The resolve lines by file, in capture order.
	byFile := map[string][]event{}
	var files []string
	for _, l := range in {
		if l.Key[0] != tagResolve {
			continue
		}
		e, err := decodeEvent(l)
		if err != nil {
			t.Fatal(err)
		}
		f := fileOf(e.subject)
		if byFile[f] == nil {
			files = append(files, f)
		}
		byFile[f] = append(byFile[f], e)
	}
	slices.Sort(files)
	in = nil
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	// Copy k of a record key: its file's position becomes k*len(files)+pos.
	relabelKey := func(key string, k int) string {
		dash := strings.IndexByte(key, '-')
		colon := strings.LastIndexByte(key, ':')
		pos, ok := parseSortableHex(key[dash+1 : colon])
		if !ok {
			t.Fatalf("%q is no record key", key)
		}
		return string(sortableHex([]byte(key[:dash+1]), uint64(k*len(files))+pos)) + key[colon:]
	}
	r, err := NewRound("resolve", opts)
	if err != nil {
		t.Fatal(err)
	}
	decisions, events := 0, 0
	emit := func(Line) error { decisions++; return nil }
	start := time.Now()
	for i, f := range files {
		for k := range copies {
			for _, e := range byFile[f] {
				e.subject, e.kept = relabelKey(e.subject, k), relabelKey(e.kept, k)
				l, err := e.line()
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Add(l, emit); err != nil {
					t.Fatal(err)
				}
				events++
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		t.Logf("file %d of %d, %d copies: %d events, %d replaced pages held, heap in use %.1f MB, peak RSS %s, %.1f s",
			i+1, len(files), copies, events, len(r.finals.at), float64(ms.HeapInuse)/1e6, peakRSS(), time.Since(start).Seconds())
	}
	held, disk := len(r.finals.at), r.finals.size
	if err := r.Flush(emit); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records in %d copies: %d resolve lines, %d decisions; %.0f bytes of heap and %.0f of temporary file a replaced page; %.2f µs a line",
		len(facts)*copies, copies, events, decisions, float64(ms.HeapInuse-base)/float64(max(held, 1)), float64(disk)/float64(max(held, 1)),
		float64(time.Since(start).Microseconds())/float64(max(events, 1)))
}

// TestGroupOf: a recorded digest or a site key with a space, tab or line
// break still makes one group of a key, and its record key comes back whole;
// different strings make different groups.
func TestGroupOf(t *testing.T) {
	seen := map[string]string{}
	for _, s := range []string{"sha1:ABC", "sha1:AB C", "sha1:AB%20C", "sha1:AB\tC", "a\nb", "", "-x", "example.com"} {
		g := groupOf(s)
		if strings.ContainsAny(g, " \t\r\n") || g == "" {
			t.Errorf("groupOf(%q) = %q", s, g)
		}
		if o, ok := seen[g]; ok {
			t.Errorf("groupOf(%q) = groupOf(%q) = %q", s, o, g)
		}
		seen[g] = s
		key := string(tagExact) + g + " " + RecordKey("0x-a0", 7)
		if Group(key) != string(tagExact)+g || subjectOf(key) != RecordKey("0x-a0", 7) {
			t.Errorf("key %q: group %q, record %q", key, Group(key), subjectOf(key))
		}
	}
}

// TestWholePages: a page with no running text (a forum's index: links and
// counts) re-captured with a "last updated" line is a near revisit of its
// first capture, by the bigrams of its whole text; the same index at
// another URL of the site, or on another site, is no duplicate of it. One
// machine and the rounds decide the same.
func TestWholePages(t *testing.T) {
	var rows strings.Builder
	for i := range 30 {
		fmt.Fprintf(&rows, `<tr><td><a href="/t/%d">Thread %s about %s</a></td><td>%d replies</td><td>%d views</td></tr>`,
			i, []string{"alpha", "beta", "gamma", "delta", "omega"}[i%5], []string{"yeast", "hops", "malt", "water", "kegs", "bottles"}[i%6], i*3%17, i*41%997)
	}
	index := `<html><head><title>Brewing forum</title></head><body><table>` + rows.String() + `</table></body></html>`
	recaptured := strings.Replace(index, "<table>", "<div>Last updated Mon, 16 Mar 2026 07:30:21 UTC</div><table>", 1)
	warc := responsesWARC(t, false,
		response{id: "<urn:uuid:w1>", uri: "http://forum.example/index.php", body: index},
		response{id: "<urn:uuid:w2>", uri: "http://forum.example/index.php", body: recaptured},
		response{id: "<urn:uuid:w3>", uri: "http://forum.example/other.php", body: recaptured + " "},
		response{id: "<urn:uuid:w4>", uri: "http://other.example/index.php", body: recaptured + "  "},
	)
	opts := DefaultOptions()
	facts := mapWARC(t, warc, &opts)
	for _, kf := range facts {
		if p := kf.f.page; p == nil || !p.Whole {
			t.Fatalf("%s: page %+v, want one compared by its whole text", kf.f.id, p)
		}
	}
	one, decs := onePairs(t, opts, facts)
	decided, _ := runRounds(t, opts, facts)
	got, _ := roundPairs(t, facts, decided)
	want := pairKey{"<urn:uuid:w2>", "<urn:uuid:w1>"}
	for name, pairs := range map[string]map[pairKey]bool{"one machine": one, "the rounds": got} {
		if len(pairs) != 1 || !pairs[want] {
			t.Errorf("%s: pairs %v, want only %v", name, pairs, want)
		}
	}
	if d := decs["<urn:uuid:w2>"]; d.act != actNear {
		t.Errorf("the re-capture's decision %+v, want a near revisit", d)
	}
}

// TestDigestLabelCase: payload digests whose algorithm is spelled in
// capitals by one crawler and not by another name one payload: the later
// capture is an exact revisit of the first, on one machine and in the
// rounds, whichever spelling comes first.
func TestDigestLabelCase(t *testing.T) {
	pdf := strings.Repeat("%PDF-1.7 a report of the year, page after page\n", 20)
	for _, labels := range [][2]string{{"", "SHA1"}, {"SHA1", ""}, {"Sha1", "SHA1"}} {
		t.Logf("%q", labels)
		warc := capturesWARC(t,
			capture{typ: "response", id: "<urn:uuid:k>", uri: "http://cdn.example/r.pdf", date: "2026-01-02T00:00:00Z", body: pdf, label: labels[0]},
			capture{typ: "response", id: "<urn:uuid:r>", uri: "http://mirror.example/r.pdf", date: "2026-01-03T00:00:00Z", body: pdf, label: labels[1]},
		)
		opts := DefaultOptions()
		facts := mapWARC(t, warc, &opts)
		_, oneDecs := onePairs(t, opts, facts)
		decided, _ := runRounds(t, opts, facts)
		_, roundDecs := roundPairs(t, facts, decided)
		for how, decs := range map[string]map[string]Decision{"one machine": oneDecs, "rounds": roundDecs} {
			if dec, ok := decs["<urn:uuid:r>"]; !ok || dec.act != actExact || dec.kept.id != "<urn:uuid:k>" || len(decs) != 1 {
				t.Errorf("%s, labels %q: decisions %+v, want the mirror an exact revisit of the cdn's capture", how, labels, decs)
			}
		}
		// The revisit names the payload as the kept capture spells it.
		var out bytes.Buffer
		d := New(opts)
		if err := d.Run(bytes.NewReader(warc), "in.warc.gz", &out, true); err != nil {
			t.Fatal(err)
		}
		d.Close()
		recs := readBack(t, out.Bytes())
		if len(recs) != 2 || recs[1].Type() != "revisit" || recs[1].Header.Get("WARC-Payload-Digest") != recs[0].Header.Get("WARC-Payload-Digest") {
			t.Errorf("labels %q: the revisit's digest is not the kept capture's", labels)
		}
	}
}

// TestRoundsEarlierCopy: a copy of a page captured before it but read
// after it is kept whole while the page stays, as one machine keeps it; if
// the page is replaced, one machine, which then holds no capture of the
// payload, judges the copy as a page: a near revisit of what replaced the
// page, unless that was captured after the copy. The rounds decide the
// same, and tell the same revisits broken.
func TestRoundsEarlierCopy(t *testing.T) {
	kept, page := story(31, 60, 0), story(31, 60, 2)
	for _, c := range []struct {
		name        string
		keptDate    string // "" for no kept page
		wantCopy    action
		wantBrokenN int
	}{
		{"page replaced", "2026-01-01T00:00:00Z", actNear, 2},
		{"page replaced by a later capture", "2026-01-02T12:00:00Z", actPass, 1},
		{"page kept", "", actPass, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cs []capture
			if c.keptDate != "" {
				cs = append(cs, capture{typ: "response", id: "<urn:uuid:k>", uri: "http://news.example/a", date: c.keptDate, body: kept})
			}
			cs = append(cs,
				capture{typ: "response", id: "<urn:uuid:p>", uri: "http://news.example/a", date: "2026-01-03T00:00:00Z", body: page},
				// The copy: captured before the page, read after it.
				capture{typ: "response", id: "<urn:uuid:c>", uri: "http://mirror.example/a", date: "2026-01-02T00:00:00Z", body: page},
				// Revisits of the page's payload at its URI and at the copy's.
				capture{typ: "revisit", id: "<urn:uuid:v-page>", uri: "http://news.example/a", date: "2026-02-01T00:00:00Z", digest: sha1Digest(page), refersTo: "http://news.example/a"},
				capture{typ: "revisit", id: "<urn:uuid:v-copy>", uri: "http://mirror.example/a", date: "2026-02-01T00:00:00Z", digest: sha1Digest(page), refersTo: "http://mirror.example/a"},
			)
			warc := capturesWARC(t, cs...)
			opts := DefaultOptions()
			var oneBroken, roundBroken []string
			facts := mapWARC(t, warc, &opts)
			one := opts
			one.BrokenRevisit = func(_ string, _ int64, id, _, _ string) { oneBroken = append(oneBroken, id) }
			_, oneDecs := onePairs(t, one, facts)
			rounds := opts
			rounds.BrokenRevisit = func(_ string, _ int64, id, _, _ string) { roundBroken = append(roundBroken, id) }
			decided, _ := runRounds(t, opts, facts)
			_, roundDecs := roundPairs(t, facts, decided)
			roundsBroken(t, rounds, []string{"in.warc"}, [][]byte{warc})
			for how, decs := range map[string]map[string]Decision{"one machine": oneDecs, "rounds": roundDecs} {
				if got := decs["<urn:uuid:c>"].act; got != c.wantCopy {
					t.Errorf("%s: the copy's decision %d, want %d", how, got, c.wantCopy)
				}
				if c.wantCopy == actNear && decs["<urn:uuid:c>"].m.kept.id != "<urn:uuid:k>" {
					t.Errorf("%s: the copy is a revisit of %q", how, decs["<urn:uuid:c>"].m.kept.id)
				}
			}
			slices.Sort(oneBroken)
			slices.Sort(roundBroken)
			if !slices.Equal(oneBroken, roundBroken) {
				t.Errorf("broken revisits: one machine %q, rounds %q", oneBroken, roundBroken)
			}
			if len(oneBroken) != c.wantBrokenN {
				t.Errorf("one machine: broken revisits %q, want %d", oneBroken, c.wantBrokenN)
			}
		})
	}
}
