package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/matcher"
	"github.com/warcdedup/warcdedup/warcio"
)

// LoadDocs extracts the features of every labeled response in the benchmark
// folder dir, in label order.
func LoadDocs(dir string, ls []Label, cfg features.Config) ([]features.Doc, error) {
	docs, _, err := LoadDocsTimed(dir, ls, cfg)
	return docs, err
}

// LoadDocsTimed is LoadDocs that also returns the CPU time spent in the
// extractor (reading and decompressing the WARCs excluded).
func LoadDocsTimed(dir string, ls []Label, cfg features.Config) ([]features.Doc, time.Duration, error) {
	ex, err := features.NewExtractor(cfg)
	if err != nil {
		return nil, 0, err
	}
	docs := make([]features.Doc, len(ls))
	var cpu time.Duration
	err = eachResponse(dir, ls, func(i int, body []byte, ctype string) {
		t := CPUTime()
		docs[i] = ex.Extract(body, ctype, ls[i].URI)
		cpu += CPUTime() - t
	})
	if err != nil {
		return nil, 0, err
	}
	return docs, cpu, nil
}

// eachResponse calls f with the decoded body (its content and transfer
// encodings undone, at most features.DefaultMaxDocBytes) and HTTP
// Content-Type of every labeled response in the benchmark folder dir; i is
// the record's index in ls.
func eachResponse(dir string, ls []Label, f func(i int, body []byte, ctype string)) error {
	idx := map[string]int{}
	var files []string
	for i, l := range ls {
		idx[l.RecordID] = i
		if len(files) == 0 || files[len(files)-1] != l.File {
			files = append(files, l.File)
		}
	}
	seen := 0
	for _, name := range files {
		n, err := eachResponseIn(filepath.Join(dir, name), idx, f)
		seen += n
		if err != nil {
			return err
		}
	}
	if seen != len(ls) {
		return fmt.Errorf("%d of %d labeled records found in %s", seen, len(ls), dir)
	}
	return nil
}

func eachResponseIn(name string, idx map[string]int, f func(i int, body []byte, ctype string)) (int, error) {
	fh, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	r := warcio.NewReader(bufio.NewReaderSize(fh, 1<<20), filepath.Base(name))
	seen := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return seen, nil
		}
		if err != nil {
			return seen, err
		}
		i, ok := idx[rec.ID()]
		if !ok || rec.Type() != "response" {
			continue
		}
		p, err := warcio.ReadPayload(r, func(*warcio.HTTPResponse) int { return features.DefaultMaxDocBytes })
		if err != nil {
			return seen, fmt.Errorf("%s %s: %w", filepath.Base(name), rec.ID(), err)
		}
		body, _ := p.Decode(features.DefaultMaxDocBytes)
		f(i, body, p.HTTP.Get("Content-Type"))
		seen++
	}
}

// Method is a near-duplicate method under comparison: a similarity between
// two pages' features and the thresholds to try.
type Method interface {
	Name() string
	// Thresholds are the similarity thresholds to evaluate, ascending.
	Thresholds() []float64
	// Pairs returns every pair of documents whose similarity is at least
	// min, with the similarity.
	Pairs(docs []features.Doc, min float64) ([]matcher.Pair, error)
}

// Result is a method's score at one threshold.
type Result struct {
	Method    string
	Threshold float64
	Score     *Score
	// Operating marks the result at the method's own threshold, for a method
	// that has one (an OperatingPoint): the tables show it as the method's
	// result instead of its best threshold.
	Operating bool
	// Closed marks pairs closed transitively: every pair of pages joined by
	// a chain of pairs, the clusters a deduplicator keeps one page of.
	Closed bool
	// CPU is the CPU time the method took to find its pairs (at the lowest
	// threshold, from which the others are selected).
	CPU time.Duration
}

// OperatingPoint is implemented by a method run at a fixed threshold (a
// published recipe's) rather than tuned here.
type OperatingPoint interface {
	OperatingPoint() float64
}

// Compare evaluates each method at each of its thresholds. A method's
// predicted pairs at threshold t are the pairs with similarity >= t, taken as
// they are (no transitive closure), as the SIGIR 2008 paper measures. A
// method with an OperatingPoint is also evaluated there with its pairs
// closed transitively (Result.Closed), as its deduplicator would apply them.
func Compare(ls []Label, docs []features.Doc, methods []Method) ([]Result, error) {
	var out []Result
	for _, m := range methods {
		ts := m.Thresholds()
		t0 := CPUTime()
		pairs, err := m.Pairs(docs, ts[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name(), err)
		}
		cpu := CPUTime() - t0
		op, hasOP := m.(OperatingPoint)
		for _, t := range ts {
			var sel [][2]int
			for _, p := range pairs {
				if p.Sim >= t-1e-12 {
					sel = append(sel, [2]int{int(p.A), int(p.B)})
				}
			}
			operating := hasOP && math.Abs(t-op.OperatingPoint()) < 1e-9
			out = append(out, Result{Method: m.Name(), Threshold: t, Score: EvaluatePairs(ls, sel), Operating: operating, CPU: cpu})
			if operating {
				out = append(out, Result{Method: m.Name() + ", closed", Threshold: t, Score: EvaluatePairs(ls, ClosePairs(len(ls), sel)),
					Operating: true, Closed: true, CPU: cpu})
			}
		}
	}
	return out, nil
}

// ClosePairs returns every pair of the n items joined by a chain of the
// given pairs (the pairs within each connected component), A < B, sorted.
func ClosePairs(n int, pairs [][2]int) [][2]int {
	u := newUnionFind(n)
	for _, p := range pairs {
		u.union(p[0], p[1])
	}
	find := u.find
	comp := map[int][]int{}
	for i := 0; i < n; i++ {
		r := find(i)
		comp[r] = append(comp[r], i)
	}
	var out [][2]int
	for _, c := range comp {
		for x := 0; x < len(c); x++ {
			for y := x + 1; y < len(c); y++ {
				out = append(out, [2]int{c[x], c[y]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] || out[i][0] == out[j][0] && out[i][1] < out[j][1] })
	return out
}

// EvaluatePairs scores a set of predicted pairs (indices into ls) directly,
// without closing them transitively. Strict recall is not defined for pairs
// and is left empty.
func EvaluatePairs(ls []Label, pairs [][2]int) *Score {
	s := &Score{Records: len(ls), Seen: len(ls), Pairs: map[string]*Counts{}, Strict: map[string]*Strict{}}
	counts := func(g string) *Counts {
		c := s.Pairs[g]
		if c == nil {
			c = &Counts{}
			s.Pairs[g] = c
		}
		return c
	}
	pred := map[[2]int]bool{}
	for _, p := range pairs {
		a, b := p[0], p[1]
		if a > b {
			a, b = b, a
		}
		if a == b || pred[[2]int{a, b}] {
			continue
		}
		pred[[2]int{a, b}] = true
		same := ls[a].Cluster == ls[b].Cluster
		for _, g := range pairGroups(ls, a, b) {
			if same {
				counts(g).TP++
			} else {
				counts(g).FP++
			}
		}
		if !same && ls[a].Site == ls[b].Site {
			s.SameFrame.Reported++
		}
	}
	clus := map[string][]int{}
	bySite := map[string]int{}
	for i, l := range ls {
		clus[l.Cluster] = append(clus[l.Cluster], i)
		bySite[l.Site]++
	}
	sameSiteSame := 0
	for _, members := range clus {
		for x := 0; x < len(members); x++ {
			for y := x + 1; y < len(members); y++ {
				a, b := members[x], members[y]
				if ls[a].Site == ls[b].Site {
					sameSiteSame++
				}
				if !pred[[2]int{a, b}] {
					for _, g := range pairGroups(ls, a, b) {
						counts(g).FN++
					}
				}
			}
		}
	}
	for _, n := range bySite {
		s.SameFrame.Pairs += n * (n - 1) / 2
	}
	s.SameFrame.Pairs -= sameSiteSame
	return s
}

// pairGroups are the groups a pair of records counts in (see Evaluate).
func pairGroups(ls []Label, a, b int) []string {
	la, lb := &ls[a], &ls[b]
	g := []string{GroupAll, CaseGroup(la.Case)}
	if lb.Case != la.Case {
		g = append(g, CaseGroup(lb.Case))
	}
	if la.Short || lb.Short {
		g = append(g, GroupShort)
	}
	if la.Lang == "zh" || lb.Lang == "zh" {
		g = append(g, GroupChinese)
	}
	if la.Site == lb.Site {
		g = append(g, GroupSameSite)
	} else {
		g = append(g, GroupCrossSite)
	}
	if la.PageType != "" {
		g = append(g, TypeGroup(la.PageType))
	}
	if lb.PageType != "" && lb.PageType != la.PageType {
		g = append(g, TypeGroup(lb.PageType))
	}
	return g
}

// TypeGroup names the group of the pairs touching a page of the given
// PageType.
func TypeGroup(pageType string) string { return "type:" + pageType }

// --- the methods

func steps(lo, hi, step float64) []float64 {
	var out []float64
	for i := 0; ; i++ {
		t := lo + float64(i)*step
		if t > hi+1e-9 {
			return out
		}
		out = append(out, float64(int(t*1000+0.5))/1000)
	}
}

// jaccardMethod is multi-set Jaccard over one bag of each page, found exactly
// by the SpotSigs matcher (SpotSigs, AF-SpotSigs).
type jaccardMethod struct {
	name string
	bag  func(*features.Doc) features.Bag
}

func (m jaccardMethod) Name() string          { return m.name }
func (m jaccardMethod) Thresholds() []float64 { return steps(0.1, 1, 0.1) }
func (m jaccardMethod) Pairs(docs []features.Doc, min float64) ([]matcher.Pair, error) {
	bags := make([]features.Bag, len(docs))
	for i := range docs {
		bags[i] = m.bag(&docs[i])
	}
	ps, _, err := matcher.AllPairs(min, bags)
	return ps, err
}

// MainTextSpotSigs is SpotSigs over the signatures of each page's main text
// (features.Config.MainText), what warcdedup's default compares before its frame
// filter and thresholds; Bags are extracted apart from the comparison's Docs
// (MainTextConfig), nil for a page with too few signatures.
type MainTextSpotSigs struct{ Bags []features.Bag }

func (MainTextSpotSigs) Name() string          { return "SpotSigs (main text)" }
func (MainTextSpotSigs) Thresholds() []float64 { return steps(0.1, 1, 0.1) }
func (m MainTextSpotSigs) Pairs(_ []features.Doc, min float64) ([]matcher.Pair, error) {
	ps, _, err := matcher.AllPairs(min, m.Bags)
	return ps, err
}

// MainTextConfig is the configuration of MainTextSpotSigs: warcdedup's default
// analysis (dedup.newAnalyzer).
func MainTextConfig() features.Config {
	cfg := features.DefaultConfig()
	cfg.Families = features.FamSpotSigs
	cfg.MainText = true
	cfg.MinSpots = 3
	return cfg
}

// sizeSpotSigs compares two pages by SpotSigs when both have enough spot
// signatures and by AF-SpotSigs otherwise (the AF-SpotSigs paper's routing).
type sizeSpotSigs struct{}

func (sizeSpotSigs) Name() string          { return "SizeSpotSigs" }
func (sizeSpotSigs) Thresholds() []float64 { return steps(0.1, 1, 0.1) }
func (sizeSpotSigs) Pairs(docs []features.Doc, min float64) ([]matcher.Pair, error) {
	spots := make([]features.Bag, len(docs))
	af := make([]features.Bag, len(docs))
	for i := range docs {
		spots[i], af[i] = docs[i].Spots, docs[i].AF
	}
	long, _, err := matcher.AllPairs(min, spots)
	if err != nil {
		return nil, err
	}
	short, _, err := matcher.AllPairs(min, af)
	if err != nil {
		return nil, err
	}
	var out []matcher.Pair
	for _, p := range long {
		if docs[p.A].SpotComparable && docs[p.B].SpotComparable {
			out = append(out, p)
		}
	}
	for _, p := range short {
		if !docs[p.A].SpotComparable || !docs[p.B].SpotComparable {
			out = append(out, p)
		}
	}
	return out, nil
}

// hammingMethod compares fingerprints by the fraction of agreeing bits, over
// all pairs (brute force: a few million popcounts).
type hammingMethod struct {
	name   string
	bits   int
	ts     []int // agreeing bits
	finger func(*features.Doc) []uint64
	// empty says a page has no fingerprint (no text).
	empty func(*features.Doc) bool
}

func (m hammingMethod) Name() string { return m.name }
func (m hammingMethod) Thresholds() []float64 {
	out := make([]float64, len(m.ts))
	for i, t := range m.ts {
		out[i] = float64(t) / float64(m.bits)
	}
	return out
}
func (m hammingMethod) Pairs(docs []features.Doc, min float64) ([]matcher.Pair, error) {
	fs := make([][]uint64, len(docs))
	for i := range docs {
		if !m.empty(&docs[i]) {
			fs[i] = m.finger(&docs[i])
		}
	}
	minAgree := int(min*float64(m.bits) - 1e-9)
	var out []matcher.Pair
	for a := range fs {
		if fs[a] == nil {
			continue
		}
		for b := a + 1; b < len(fs); b++ {
			if fs[b] == nil {
				continue
			}
			diff := 0
			for w := range fs[a] {
				diff += bits.OnesCount64(fs[a][w] ^ fs[b][w])
			}
			if agree := m.bits - diff; agree >= minAgree {
				out = append(out, matcher.Pair{A: uint32(a), B: uint32(b), Sim: float64(agree) / float64(m.bits)})
			}
		}
	}
	return out, nil
}

func noTerms(d *features.Doc) bool { return d.Terms == 0 }
func noSpots(d *features.Doc) bool { return d.Spots.Len() == 0 }

// shinglingB is Henzinger's Alg. B (Broder et al.): similarity is the number
// of equal supershingles of 6; B-similar is at least 2.
type shinglingB struct{}

func (shinglingB) Name() string { return "Shingling (Alg. B)" }
func (shinglingB) Thresholds() []float64 {
	return []float64{1.0 / 6, 2.0 / 6, 3.0 / 6, 4.0 / 6, 5.0 / 6, 1}
}
func (shinglingB) Pairs(docs []features.Doc, min float64) ([]matcher.Pair, error) {
	var out []matcher.Pair
	for a := range docs {
		if docs[a].Terms == 0 {
			continue
		}
		for b := a + 1; b < len(docs); b++ {
			if docs[b].Terms == 0 {
				continue
			}
			if n := features.SupershinglesAgree(docs[a].Supershingles, docs[b].Supershingles); float64(n)/6 >= min-1e-9 {
				out = append(out, matcher.Pair{A: uint32(a), B: uint32(b), Sim: float64(n) / 6})
			}
		}
	}
	return out, nil
}

// henzingerBC is Henzinger's combined algorithm (SIGIR 2006, Sec. 5): pairs
// that are B-similar (2 of 6 supershingles) and whose 384-bit simhashes agree
// in at least t bits; the threshold is t/384.
type henzingerBC struct{}

func (henzingerBC) Name() string { return "Henzinger B+C" }
func (henzingerBC) Thresholds() []float64 {
	return hammingMethod{bits: 384, ts: []int{336, 348, 356, 364, 368, 372, 376, 380, 384}}.Thresholds()
}
func (henzingerBC) Pairs(docs []features.Doc, min float64) ([]matcher.Pair, error) {
	bs, err := shinglingB{}.Pairs(docs, 2.0/6)
	if err != nil {
		return nil, err
	}
	var out []matcher.Pair
	for _, p := range bs {
		agree := features.SimhashAgree384(docs[p.A].Simhash384, docs[p.B].Simhash384)
		if s := float64(agree) / 384; s >= min-1e-9 {
			out = append(out, matcher.Pair{A: p.A, B: p.B, Sim: s})
		}
	}
	return out, nil
}

// qgramsDDD is DDD's docq = |A ∩ B| / max(|A|, |B|) over distinct q-grams,
// from 0.5 up: below that the candidate search over whole-page q-gram sets
// takes minutes. Candidates come from the exact Jaccard matcher at min/2 over the q-gram
// sets (set Jaccard >= docq/2 always), then docq is computed.
type qgramsDDD struct{}

func (qgramsDDD) Name() string          { return "q-grams (DDD)" }
func (qgramsDDD) Thresholds() []float64 { return steps(0.5, 1, 0.05) }
func (qgramsDDD) Pairs(docs []features.Doc, min float64) ([]matcher.Pair, error) {
	sets := make([]features.Bag, len(docs))
	for i := range docs {
		s := make(features.Bag, len(docs[i].QGrams))
		for j, e := range docs[i].QGrams {
			s[j] = features.Entry{Key: e.Key, N: 1}
		}
		sets[i] = s
	}
	cand, _, err := matcher.AllPairs(min/2, sets)
	if err != nil {
		return nil, err
	}
	var out []matcher.Pair
	for _, p := range cand {
		if s := features.QGramSim(docs[p.A].QGrams, docs[p.B].QGrams); s >= min-1e-9 {
			out = append(out, matcher.Pair{A: p.A, B: p.B, Sim: s})
		}
	}
	return out, nil
}

// iMatchS is I-Match (Chowdhury et al.) over spot signatures, the SIGIR 2008
// baseline I-Match-S: a page's signature is the hash of its distinct spot
// signatures after dropping those in more than maxDF of the pages (the idf
// filter); pages with equal signatures are duplicates. Its one threshold is 1.
type iMatchS struct{ maxDF float64 }

func (iMatchS) Name() string          { return "I-Match-S" }
func (iMatchS) Thresholds() []float64 { return []float64{1} }
func (m iMatchS) Pairs(docs []features.Doc, _ float64) ([]matcher.Pair, error) {
	df := map[uint64]int{}
	for i := range docs {
		for _, e := range docs[i].Spots {
			df[e.Key]++
		}
	}
	// A signature in two pages is never too common: that is a duplicate pair.
	limit := max(int(m.maxDF*float64(len(docs))), 2)
	groups := map[uint64][]uint32{}
	for i := range docs {
		h := uint64(1469598103934665603)
		n := 0
		for _, e := range docs[i].Spots { // sorted by key
			if df[e.Key] > limit {
				continue
			}
			h = (h ^ e.Key) * 1099511628211
			n++
		}
		if n > 0 {
			groups[h] = append(groups[h], uint32(i))
		}
	}
	var out []matcher.Pair
	for _, g := range groups {
		for x := 0; x < len(g); x++ {
			for y := x + 1; y < len(g); y++ {
				out = append(out, matcher.Pair{A: g[x], B: g[y], Sim: 1})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].A < out[j].A || out[i].A == out[j].A && out[i].B < out[j].B })
	return out, nil
}

// lshS is LSH over spot signatures (the SIGIR 2008 baseline LSH-S): min-hash
// signatures of the distinct spot signatures, bands of rows; pages sharing a
// band are candidates and their similarity is the fraction of equal
// min-hashes (an estimate of their set Jaccard).
type lshS struct{ bands, rows int }

func (lshS) Name() string          { return "LSH-S" }
func (lshS) Thresholds() []float64 { return steps(0.1, 1, 0.1) }
func (m lshS) Pairs(docs []features.Doc, min float64) ([]matcher.Pair, error) {
	k := m.bands * m.rows
	sigs := make([][]uint64, len(docs))
	for i := range docs {
		if docs[i].Spots.Len() == 0 {
			continue
		}
		s := make([]uint64, k)
		for j := range s {
			s[j] = ^uint64(0)
		}
		for _, e := range docs[i].Spots {
			for j := range s {
				if h := features.Mix(e.Key ^ uint64(j+1)*0x9e3779b97f4a7c15); h < s[j] {
					s[j] = h
				}
			}
		}
		sigs[i] = s
	}
	cand := map[[2]uint32]bool{}
	for b := 0; b < m.bands; b++ {
		buckets := map[uint64][]uint32{}
		for i, s := range sigs {
			if s == nil {
				continue
			}
			h := uint64(b)
			for _, v := range s[b*m.rows : (b+1)*m.rows] {
				h = features.Mix(h ^ v)
			}
			buckets[h] = append(buckets[h], uint32(i))
		}
		for _, g := range buckets {
			for x := 0; x < len(g); x++ {
				for y := x + 1; y < len(g); y++ {
					cand[[2]uint32{g[x], g[y]}] = true
				}
			}
		}
	}
	var out []matcher.Pair
	for p := range cand {
		eq := 0
		for j := 0; j < k; j++ {
			if sigs[p[0]][j] == sigs[p[1]][j] {
				eq++
			}
		}
		if s := float64(eq) / float64(k); s >= min-1e-9 {
			out = append(out, matcher.Pair{A: p[0], B: p[1], Sim: s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].A < out[j].A || out[i].A == out[j].A && out[i].B < out[j].B })
	return out, nil
}

// Methods are the methods of the comparison that work on one page's
// features alone. The routed default (same site: SpotSigs/AF-SpotSigs, other
// sites: simhash) is warcdedup itself: score its output with dedupbench score.
func Methods() []Method {
	sh384 := []int{336, 348, 356, 364, 368, 372, 376, 380, 384}
	sh64 := []int{48, 52, 54, 56, 58, 60, 62, 64}
	return []Method{
		jaccardMethod{"SpotSigs", func(d *features.Doc) features.Bag { return d.Spots }},
		jaccardMethod{"AF-SpotSigs", func(d *features.Doc) features.Bag { return d.AF }},
		sizeSpotSigs{},
		hammingMethod{"simhash 384", 384, sh384, func(d *features.Doc) []uint64 { return d.Simhash384[:] }, noTerms},
		hammingMethod{"simhash 64", 64, sh64, func(d *features.Doc) []uint64 { return []uint64{d.Simhash64} }, noTerms},
		hammingMethod{"spot simhash 384", 384, sh384, func(d *features.Doc) []uint64 { return d.SpotSimhash384[:] }, noSpots},
		hammingMethod{"spot simhash 64", 64, sh64, func(d *features.Doc) []uint64 { return []uint64{d.SpotSimhash64} }, noSpots},
		shinglingB{},
		henzingerBC{},
		qgramsDDD{},
		iMatchS{maxDF: 0.1},
		lshS{bands: 16, rows: 4},
	}
}

// CompareConfig is the feature configuration of the comparison: every family.
func CompareConfig() features.Config {
	cfg := features.DefaultConfig()
	cfg.Families = features.FamSpotSigs | features.FamSimhash | features.FamSpotSimhash | features.FamAF |
		features.FamShingles | features.FamQGrams | features.FamTextSimhash
	return cfg
}

// unionFind joins items into connected components (path halving).
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(x int) int {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u unionFind) union(a, b int) {
	if ra, rb := u.find(a), u.find(b); ra != rb {
		u[ra] = rb
	}
}
