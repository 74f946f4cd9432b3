package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/klauspost/compress/s2"
	"golang.org/x/net/html"
	"golang.org/x/text/encoding"

	"github.com/warcdedup/warcdedup/sitekey"
)

// A scaled benchmark (Config.Scale > 1) adds synthetic pages to the corpus
// pages: Scale-1 new stories in the frame of every corpus page whose main
// content can be located. A new story is stitched from sentences of many
// different corpus articles of the same script, so it is a document of its
// own: no duplicate of another story, nor of the articles it borrows from.

// synthStory is a stitched story: a headline made of two other headlines and
// paragraphs that are runs of sentences of different articles (substrings of
// their gold texts, so a story costs a few hundred bytes of memory).
type synthStory struct {
	frame *entry // the corpus page whose HTML frame the story is put in
	head  string
	parts []string
}

// text is the story as a gold text: headline line, then a line a paragraph.
func (s *synthStory) text() string {
	var sb strings.Builder
	sb.WriteString(s.head)
	for _, p := range s.parts {
		sb.WriteByte('\n')
		sb.WriteString(p)
	}
	return sb.String()
}

// text is the entry's story: its gold text, or its stitched story.
func (e *entry) text() string {
	if e.syn != nil {
		return e.syn.text()
	}
	return e.gold
}

// corpusPage is the corpus page whose HTML the entry's page has: its own, or
// a synthetic page's frame.
func (e *entry) corpusPage() *Page {
	if e.syn != nil {
		return e.syn.frame.p
	}
	return e.p
}

// Markers of the story in a frame template.
const (
	markHead = "\x01dedupbench-headline\x01"
	markBody = "\x01dedupbench-story\x01"
)

// frameTemplate is a corpus page with its main content replaced by markers,
// rendered in the page's charset and s2-compressed: a synthetic page is the
// template with the markers replaced, without parsing the page again.
type frameTemplate struct {
	cs pageCharset
	z  []byte
}

// makeTemplate puts a marker story into the page's frame as syndicate puts a
// story (see case 2). It returns nil when the main content cannot be found.
func makeTemplate(b []byte, cs pageCharset, gold string) *frameTemplate {
	root, err := parsePage(b, cs)
	if err != nil || !syndicate(root, gold, markHead+"\n"+markBody) {
		return nil
	}
	out, err := renderPage(root, cs)
	if err != nil || bytes.Count(out, []byte("<p>"+markBody+"</p>")) != 1 {
		return nil
	}
	// Encode returns a slice of a buffer of the maximum encoded size.
	return &frameTemplate{cs: cs, z: bytes.Clone(s2.EncodeBetter(nil, out))}
}

// page is the template with the story in it.
func (t *frameTemplate) page(s *synthStory) ([]byte, error) {
	b, err := s2.Decode(nil, t.z)
	if err != nil {
		return nil, err
	}
	var body strings.Builder
	for _, p := range s.parts {
		body.WriteString("<p>")
		body.WriteString(html.EscapeString(p))
		body.WriteString("</p>")
	}
	enc := func(s string) ([]byte, error) {
		if t.cs.name == "utf-8" {
			return []byte(s), nil
		}
		return encoding.HTMLEscapeUnsupported(t.cs.enc.NewEncoder()).Bytes([]byte(s))
	}
	bb, err := enc(body.String())
	if err != nil {
		return nil, err
	}
	hb, err := enc(html.EscapeString(s.head))
	if err != nil {
		return nil, err
	}
	b = bytes.Replace(b, []byte("<p>"+markBody+"</p>"), bb, 1)
	return bytes.ReplaceAll(b, []byte(markHead), hb), nil
}

// donor is a corpus news article whose paragraphs stories borrow.
type donor struct {
	e     *entry
	head  string
	paras []string // body paragraphs, white space collapsed, entities decoded
	runes []int    // their lengths in runes
	total int
}

// Donor articles are at least this long (runes of gold text), so that what a
// story takes from one is a small part of it.
const (
	donorRunes   = 1500
	donorRunesZH = 600
)

var blankLine = regexp.MustCompile(`\n[ \t\r]*\n`)

// paragraphs splits a gold text into paragraphs: blocks between blank lines
// when it has any (some golds wrap their lines), else lines; white space
// collapsed and character references decoded.
func paragraphs(gold string) []string {
	blocks := strings.Split(gold, "\n")
	if blankLine.MatchString(gold) {
		blocks = blankLine.Split(gold, -1)
	}
	var out []string
	for _, b := range blocks {
		if p := strings.Join(strings.Fields(html.UnescapeString(b)), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// newDonor makes a donor of a gold text's paragraphs, leaving out those in
// more than one corpus page (boilerplate such as a site's comment rules, or
// a wire story in two pages: a story taking them could contain the pages).
func newDonor(e *entry, seen map[string]int) *donor {
	d := &donor{e: e}
	for _, p := range paragraphs(e.gold) {
		n := utf8.RuneCountInString(p)
		if d.head == "" && len(d.paras) == 0 && n <= 200 {
			d.head = p
			continue
		}
		if seen[p] > 1 {
			continue
		}
		d.paras = append(d.paras, p)
		d.runes = append(d.runes, n)
		d.total += n
	}
	return d
}

// sentenceEnds splits a paragraph into sentences: after '.', '!' or '?' (and
// closing quotes or brackets) and the space that follows them, and after '。',
// '！', '？'.
// It returns the end offset of each sentence; the last is len(p).
func sentenceEnds(p string) []int {
	var out []int
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		i += n
		switch r {
		case '。', '！', '？':
		case '.', '!', '?':
			for i < len(p) && strings.IndexByte("\"')]", p[i]) >= 0 {
				i++
			}
			if i >= len(p) || p[i] != ' ' {
				continue
			}
			i++
		default:
			continue
		}
		if i < len(p) {
			out = append(out, i)
		}
	}
	if len(p) > 0 {
		out = append(out, len(p))
	}
	return out
}

// A stitched story has at least minRuns runs, each at most maxRun (Chinese
// maxRunZH) runes long: many short runs make two stories that drew from the
// same donors share little.
// A story is at most maxStory runes long: a longer one would hold much of
// many shorter stories.
const (
	minRuns  = 5
	maxRun   = 400
	maxRunZH = 120
	maxStory = 10000
)

// stitch makes a new story about as long as the model page's gold text (at
// most maxStory), of
// at least minRuns runs of text of different donors (none the model page
// itself): a run is consecutive paragraphs of a donor, or consecutive
// sentences of one of its paragraphs, of at most a fifth of the story (or 80
// runes), at most a quarter of the donor and at most maxRun (maxRunZH). So the story is no
// near-duplicate of any donor, nor of another story. The headline joins the first half of one
// donor's headline to the second half of another's.
func stitch(rng *rand.Rand, model *entry, donors []*donor, zh bool) *synthStory {
	s := &synthStory{frame: model}
	for tries := 0; s.head == "" && tries < 100; tries++ {
		a, b := donors[rng.IntN(len(donors))], donors[rng.IntN(len(donors))]
		if a == b || a.head == "" || b.head == "" {
			continue
		}
		if zh {
			ra, rb := []rune(a.head), []rune(b.head)
			s.head = string(ra[:(len(ra)+1)/2]) + string(rb[len(rb)/2:])
		} else {
			wa, wb := strings.Fields(a.head), strings.Fields(b.head)
			s.head = strings.Join(append(wa[:(len(wa)+1)/2:(len(wa)+1)/2], wb[len(wb)/2:]...), " ")
		}
	}
	// The gold text's length counts its headline.
	want := min(utf8.RuneCountInString(model.gold), maxStory) - utf8.RuneCountInString(s.head)
	runCap := min(max(want/minRuns, 80), maxRun)
	if zh {
		runCap = min(runCap, maxRunZH)
	}
	used := map[*donor]bool{}
	total, runs, fails := 0, 0, 0
	for (total < want || runs < minRuns) && runs < len(donors)-1 && fails < 200 {
		d := donors[rng.IntN(len(donors))]
		limit := min(runCap, d.total/4, max(want-total, 80))
		i := rng.IntN(len(d.paras))
		if used[d] || d.e == model {
			fails++
			continue
		}
		n := 0
		if d.runes[i] <= limit {
			for j := i; j < len(d.paras) && n+d.runes[j] <= limit; j++ {
				s.parts = append(s.parts, d.paras[j])
				n += d.runes[j]
			}
		} else {
			p, cuts := d.paras[i], sentenceEnds(d.paras[i])
			k := rng.IntN(len(cuts))
			start := 0
			if k > 0 {
				start = cuts[k-1]
			}
			end := k
			for end < len(cuts) && utf8.RuneCountInString(p[start:cuts[end]]) <= limit {
				end++
			}
			if end == k {
				fails++
				continue
			}
			part := strings.TrimSpace(p[start:cuts[end-1]])
			s.parts = append(s.parts, part)
			n = utf8.RuneCountInString(part)
		}
		used[d] = true
		total += n
		runs++
	}
	if s.head == "" && len(s.parts) > 0 {
		s.head = firstRunes(s.parts[0], 80)
	}
	return s
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// scriptOf groups pages by the script of their text for stitching: Chinese
// stories from Chinese articles, others from non-CJK ones. Japanese and Korean
// pages are too few to stitch from ("").
func scriptOf(p *Page) string {
	switch p.Lang {
	case "zh":
		return "zh"
	case "ja", "ko":
		return ""
	}
	return "latin"
}

// parallel calls f(j) for j in [0, n) on GOMAXPROCS goroutines and returns
// the first error.
func parallel(n int, f func(j int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= n {
					return
				}
				if err := f(j); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// synthesize adds Scale-1 synthetic pages per framable corpus page of rest:
// each a new stitched story in that page's frame, under a new URL of its site
// in its URL pattern (copyURL). They join the corpus pages as sources of
// re-captures and syndicated copies and, otherwise, as unique pages.
func (g *generator) synthesize(rest []*entry) ([]*entry, error) {
	var frames []*entry
	for _, e := range rest {
		if e.p.Gold != "" && len(strings.TrimSpace(e.gold)) >= 80 && scriptOf(e.p) != "" && g.editable(e) {
			frames = append(frames, e)
		}
	}
	tmpls := make([]*frameTemplate, len(frames))
	err := parallel(len(frames), func(j int) error {
		b, err := frames[j].p.ReadHTML()
		if err != nil {
			return err
		}
		cs, _ := g.charset(frames[j])
		tmpls[j] = makeTemplate(b, cs, frames[j].gold)
		return nil
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for _, e := range rest {
		for _, p := range paragraphs(e.gold) {
			seen[p]++
		}
	}
	donors := map[string][]*donor{}
	for _, e := range rest {
		sc := scriptOf(e.p)
		least := donorRunes
		if sc == "zh" {
			least = donorRunesZH
		}
		if sc != "" && NewsDatasets[e.p.Dataset] && e.p.Gold != "" && utf8.RuneCountInString(e.gold) >= least &&
			utf8.ValidString(e.gold) && !strings.ContainsRune(e.gold, 0) {
			if d := newDonor(e, seen); d.total >= least*3/4 {
				donors[sc] = append(donors[sc], d)
			}
		}
	}
	g.tmpl = map[*entry]*frameTemplate{}
	var out []*entry
	for layer := 1; layer < g.cfg.Scale; layer++ {
		for j, f := range frames {
			ds := donors[scriptOf(f.p)]
			if tmpls[j] == nil || len(ds) < 8 {
				continue
			}
			g.tmpl[f] = tmpls[j]
			s := stitch(g.rng, f, ds, f.p.Chinese())
			if len(s.parts) == 0 || s.head == "" {
				continue
			}
			p := *f.p
			p.ID = fmt.Sprintf("%s~%d", f.p.ID, layer)
			p.GoldChars = utf8.RuneCountInString(s.text())
			e := &entry{p: &p, syn: s, url: g.uniqueURL(copyURL(f.url, s.head, g.rng))}
			e.site = sitekey.FromURL(e.url)
			if e.site == "" {
				e.site = f.site
			}
			g.entries = append(g.entries, e)
			g.bySite[e.site] = append(g.bySite[e.site], e)
			out = append(out, e)
		}
	}
	return out, nil
}
