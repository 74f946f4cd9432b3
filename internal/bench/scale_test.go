package bench

import (
	"bytes"
	"hash/fnv"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func genScaled(t *testing.T, seed uint64) (string, *Summary) {
	t.Helper()
	dir := t.TempDir()
	sum, err := Generate(Config{Corpus: corpusDir(t), Out: dir, Seed: seed, Files: 2, MaxPages: 120, Scale: 3})
	if err != nil {
		t.Fatal(err)
	}
	return dir, sum
}

// TestGenerateScaled builds a small scaled benchmark twice: byte-identical,
// readable, labeled as the construction promises, most records unique and
// most carrying synthetic stories.
func TestGenerateScaled(t *testing.T) {
	if testing.Short() {
		t.Skip("two scaled sets: not under -short")
	}
	needCorpus(t)
	a, sum := genScaled(t, 7)
	b, _ := genScaled(t, 7)
	sameFiles(t, a, b, sampleFiles)
	ls := checkWARCs(t, a, sampleFiles[:2])
	checkLabels(t, ls)
	if sum.Scale != 3 || sum.SyntheticStories < 120 || 2*sum.SyntheticRecords < sum.Records {
		t.Errorf("scale %d: %d synthetic stories, %d of %d records synthetic", sum.Scale, sum.SyntheticStories, sum.SyntheticRecords, sum.Records)
	}
	// A sample has more duplicates (a quarter of its pages are copied) than
	// the full set.
	if u := sum.ClusterSizes[1]; 3*u < sum.Records {
		t.Errorf("%d of %d records are unique: want a third or more", u, sum.Records)
	}
	synCase := map[int]int{}
	for _, l := range ls {
		if l.Synthetic != strings.Contains(l.Source, "~") {
			t.Errorf("record %s: synthetic %v, source %s", l.RecordID, l.Synthetic, l.Source)
		}
		if l.Synthetic {
			synCase[l.Case]++
			if l.Variant == VarUnique && !strings.HasPrefix(l.Source, l.Frame+"~") {
				t.Errorf("synthetic page %s: source %s, frame %s", l.URI, l.Source, l.Frame)
			}
		}
	}
	for _, c := range []int{1, 2, 3} {
		if synCase[c] == 0 {
			t.Errorf("no synthetic record in case %d (%v)", c, synCase)
		}
	}
}

// shingleSet is the set of hashed 5-token shingles of s.
func shingleSet(s string) map[uint64]bool {
	ts := tokens(s)
	out := map[uint64]bool{}
	for i := 0; i+5 <= len(ts); i++ {
		h := fnv.New64a()
		for _, t := range ts[i : i+5] {
			h.Write([]byte(t))
			h.Write([]byte{0})
		}
		out[h.Sum64()] = true
	}
	return out
}

// TestSyntheticStories checks the synthetic pages of a scaled plan: each
// page's story is in its frame where the frame's own story was, and no story
// is a near-duplicate of another page's (synthetic or corpus): at most 0.3
// resemblance and 0.6 containment of 5-word shingles. A small sample draws
// from few donors, so stories share more than in the full set.
func TestSyntheticStories(t *testing.T) {
	needCorpus(t)
	g, err := newGenerator(Config{Corpus: corpusDir(t), Seed: 3, MaxPages: 400, Scale: 3, Recaptured: -1, Syndicated: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.plan(&Summary{Excluded: map[string]int{}}); err != nil {
		t.Fatal(err)
	}
	var sets []map[uint64]bool
	index := map[uint64][]int{}
	nsyn := 0
	for i, e := range g.entries {
		sh := shingleSet(e.text())
		sets = append(sets, sh)
		for h := range sh {
			index[h] = append(index[h], i)
		}
		if e.syn == nil {
			continue
		}
		nsyn++
		if nsyn%10 != 1 {
			continue
		}
		// Every tenth page: its story is where its frame's was.
		b, err := g.readHTML(e)
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := g.charset(e)
		root, err := parsePage(b, cs)
		if err != nil {
			t.Fatal(err)
		}
		mc := mainContent(root, e.text())
		if mc == nil {
			t.Errorf("%s: story not found in the page", e.p.Key())
			continue
		}
		got := nodeText(mc)
		for _, p := range e.syn.parts {
			if !strings.Contains(got, strings.Join(strings.Fields(p), " ")) {
				t.Errorf("%s: paragraph %q not in the main content", e.p.Key(), p)
			}
		}
		if ti := find(root, atom.Title); ti != nil && !strings.Contains(nodeText(ti), e.syn.head) {
			t.Errorf("%s: title %q does not name the story %q", e.p.Key(), nodeText(ti), e.syn.head)
		}
	}
	if nsyn < 400 {
		t.Fatalf("%d synthetic pages of %d pages", nsyn, len(g.entries))
	}
	worstJ, worstC := 0.0, 0.0
	for i, e := range g.entries {
		if e.syn == nil || len(sets[i]) == 0 {
			continue
		}
		common := map[int]int{}
		for h := range sets[i] {
			for _, j := range index[h] {
				if j != i {
					common[j]++
				}
			}
		}
		for j, n := range common {
			jac := float64(n) / float64(len(sets[i])+len(sets[j])-n)
			con := float64(n) / float64(min(len(sets[i]), len(sets[j])))
			if jac > 0.3 || con > 0.6 {
				t.Errorf("%s and %s: resemblance %.2f, containment %.2f", e.p.Key(), g.entries[j].p.Key(), jac, con)
			}
			worstJ, worstC = max(worstJ, jac), max(worstC, con)
		}
	}
	t.Logf("%d synthetic pages; highest resemblance %.3f, containment %.3f", nsyn, worstJ, worstC)
}

func TestSentenceEnds(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One. ", "Two! ", "Three? ", "Four"}},
		{`He said "stop." Then 3.5 went.`, []string{`He said "stop." `, "Then 3.5 went."}},
		{"第一句。第二句！第三", []string{"第一句。", "第二句！", "第三"}},
		{"no end", []string{"no end"}},
	}
	for _, tt := range tests {
		var got []string
		start := 0
		for _, e := range sentenceEnds(tt.in) {
			got = append(got, tt.in[start:e])
			start = e
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sentenceEnds(%q): %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFrameTemplate puts a story into a GBK frame through a template: the
// story replaces the main content, the title and the headline copies, is
// escaped, and characters GBK cannot hold become character references.
func TestFrameTemplate(t *testing.T) {
	gold := "旧新闻标题在这里说了很多很多的事情啊\n旧新闻的正文第一段，讲了很多事情。\n旧新闻的正文第二段，还有更多的事情。"
	page := `<html><head><meta charset="gbk"><title>旧新闻标题在这里说了很多很多的事情啊 - 网站</title></head><body>` +
		`<div id="nav">首页 新闻</div><div class="crumb">旧新闻标题在这里说了很多很多的事情啊</div>` +
		`<div id="story"><h1>旧新闻标题在这里说了很多很多的事情啊</h1><p>旧新闻的正文第一段，讲了很多事情。</p><p>旧新闻的正文第二段，还有更多的事情。</p></div>` +
		`<div id="foot">版权所有</div></body></html>`
	cs := named("gbk", true)
	b, err := cs.enc.NewEncoder().Bytes([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	tm := makeTemplate(b, cs, gold)
	if tm == nil {
		t.Fatal("no template")
	}
	s := &synthStory{head: "新的标题 <特别>", parts: []string{"第一段 & 更多。", "第二段 ☃ 雪人。"}}
	out, err := tm.page(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("&#9731;")) || !bytes.Contains(out, []byte("&lt;")) {
		t.Errorf("snowman or angle brackets not escaped:\n%s", out)
	}
	root, err := parsePage(out, cs)
	if err != nil {
		t.Fatal(err)
	}
	text := nodeText(root)
	for _, want := range []string{"新的标题 <特别>", "第一段 & 更多。", "第二段 ☃ 雪人。", "首页 新闻", "版权所有"} {
		if !strings.Contains(text, want) {
			t.Errorf("page text %q lacks %q", text, want)
		}
	}
	if strings.Contains(text, "旧新闻") {
		t.Errorf("old story left in %q", text)
	}
	if ti := find(root, atom.Title); ti == nil || nodeText(ti) != "新的标题 <特别> - 网站" {
		t.Errorf("title %v", ti)
	}
	var h1 *html.Node
	if h1 = find(root, atom.H1); h1 == nil || nodeText(h1) != s.head {
		t.Errorf("h1 %v", h1)
	}
}
