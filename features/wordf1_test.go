package features

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// Word F1 is the metric of the WCXB benchmark (github.com/Murrough-Foley/
// web-content-extraction-benchmark, evaluate.py, functions tokenize and word_f1,
// commit c039d5ee): the text is lower-cased and cut into the matches of Python's
// regular expression \w+; precision and recall are over word bags (Python's
// Counter: a word counts as often as it occurs in both, the smaller count), and
// the benchmark's figure is the mean over pages of each page's precision,
// recall and F1 (evaluate_results), not a pooled count. An empty gold text
// scores 1 with an empty extraction and 0 with any other, and an empty
// extraction of a non-empty gold text 0. Run on our main text of each of the
// corpus's 4,638 pages, evaluate.py's word_f1 and wordF1 gave the same three
// numbers on every page.

// wcxbWordRune is Python 3's \w on str: letters (Lu, Ll, Lt, Lm, Lo), characters
// with a numeric value (Nd, Nl, No) and the underscore. Combining marks are not
// \w in Python, so they split words there as here.
func wcxbWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// wcxbTokens returns the words of s as WCXB's tokenize does: lower case, then
// every maximal run of \w characters. Go's lower case is the simple per-rune
// mapping, Python's str.lower the full one; they differ only on a handful of
// characters (U+0130 İ, Greek final sigma), none of them frequent in the corpus.
func wcxbTokens(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if wcxbWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(s[start:]))
	}
	return out
}

// wordScore is one page's word precision, recall and F1.
type wordScore struct{ P, R, F1 float64 }

// wordF1 scores an extracted text against a gold text by WCXB's word_f1.
func wordF1(predicted, reference string) wordScore {
	pred, ref := wcxbTokens(predicted), wcxbTokens(reference)
	if len(ref) == 0 {
		if len(pred) == 0 {
			return wordScore{1, 1, 1}
		}
		return wordScore{}
	}
	if len(pred) == 0 {
		return wordScore{}
	}
	left := make(map[string]int, len(ref))
	for _, w := range ref {
		left[w]++
	}
	overlap := 0
	for _, w := range pred {
		if left[w] > 0 {
			left[w]--
			overlap++
		}
	}
	s := wordScore{P: float64(overlap) / float64(len(pred)), R: float64(overlap) / float64(len(ref))}
	if s.P+s.R > 0 {
		s.F1 = 2 * s.P * s.R / (s.P + s.R)
	}
	return s
}

func TestWordF1(t *testing.T) {
	tests := []struct {
		name            string
		pred, ref       string
		want            wordScore
		predTok, refTok []string
	}{
		{"equal texts", "The cat sat.", "the cat sat", wordScore{1, 1, 1}, []string{"the", "cat", "sat"}, nil},
		{"case and punctuation do not count", "THE, cat! sat?", "The cat sat.", wordScore{1, 1, 1}, nil, nil},
		{"apostrophes and hyphens split words", "don't re-use", "don t re use", wordScore{1, 1, 1}, []string{"don", "t", "re", "use"}, nil},
		{"the underscore and digits are word characters", "snake_case 3.14", "snake_case 3 14", wordScore{1, 1, 1}, []string{"snake_case", "3", "14"}, nil},
		{"non-ASCII letters are word characters", "Café Straße ÉTÉ", "café straße été", wordScore{1, 1, 1}, []string{"café", "straße", "été"}, nil},
		// U+0901 and U+0940 (Devanagari candrabindu, vowel sign ii) are
		// combining marks: not \w in Python (re.findall gives ['ह', 'स']).
		{"combining marks split words", "हँसी", "ह स", wordScore{1, 1, 1}, []string{"ह", "स"}, nil},
		{"superscripts, fractions and roman numerals are numbers", "m² ½ Ⅻ", "M² ½ ⅻ", wordScore{1, 1, 1}, []string{"m²", "½", "ⅻ"}, nil},
		{"CJK characters run together like letters", "中文 测试", "中文测试", wordScore{}, []string{"中文", "测试"}, []string{"中文测试"}},
		// pred has 4 words, ref 2: overlap 2, P 0.5, R 1, F1 2/3.
		{"extra words cost precision", "menu the story home", "the story", wordScore{0.5, 1, 2.0 / 3}, nil, nil},
		// ref has 4 words, pred 1: P 1, R 0.25, F1 0.4.
		{"missing words cost recall", "story", "the whole long story", wordScore{1, 0.25, 0.4}, nil, nil},
		// A bag, not a set: "the" twice in pred but once in ref counts once.
		{"repeated words count up to the smaller count", "the the cat", "the cat", wordScore{2.0 / 3, 1, 0.8}, nil, nil},
		{"a set would score this 1: a bag does not", "a a a a b", "a b b b b", wordScore{0.4, 0.4, 0.4}, nil, nil},
		{"no words in common", "alpha beta", "gamma delta", wordScore{}, nil, nil},
		{"empty gold, empty extraction", "", " ... ", wordScore{1, 1, 1}, nil, nil},
		{"empty gold, some extraction", "cookie notice", "", wordScore{}, nil, nil},
		{"empty extraction of a gold text", "!!", "the story", wordScore{}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wordF1(tc.pred, tc.ref)
			if math.Abs(got.P-tc.want.P) > 1e-12 || math.Abs(got.R-tc.want.R) > 1e-12 || math.Abs(got.F1-tc.want.F1) > 1e-12 {
				t.Errorf("wordF1(%q, %q) = %+v, want %+v", tc.pred, tc.ref, got, tc.want)
			}
			if tc.predTok != nil && strings.Join(wcxbTokens(tc.pred), "|") != strings.Join(tc.predTok, "|") {
				t.Errorf("wcxbTokens(%q) = %q, want %q", tc.pred, wcxbTokens(tc.pred), tc.predTok)
			}
			if tc.refTok != nil && strings.Join(wcxbTokens(tc.ref), "|") != strings.Join(tc.refTok, "|") {
				t.Errorf("wcxbTokens(%q) = %q, want %q", tc.ref, wcxbTokens(tc.ref), tc.refTok)
			}
		})
	}
}

// mainTextString returns the text the last Extract of e (with Config.MainText)
// kept as the page's main text: its good blocks, one a line. A page where no
// block read as running text keeps all its text (Doc.MainText false), and so
// does the string: those are the words the spot signatures come from.
func mainTextString(e *Extractor, d Doc) string {
	if !d.MainText {
		return string(e.Text())
	}
	var sb strings.Builder
	for i, b := range e.blocks {
		if e.cls[i] != clsGood {
			continue
		}
		end := min(int(b.end), len(e.text)) // finish trims a final space
		sb.Write(e.text[b.start:end])
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestMainTextString: the text of the good blocks holds exactly the words the
// main text keeps, so that scoring the string scores what the signatures see.
func TestMainTextString(t *testing.T) {
	menu := `<ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul>`
	pages := []string{
		`<body><nav>` + menu + `</nav><h1>Bridge to close</h1>` + storyPara + `<div class="footer"><a href="/about">About us</a></div></body>`,
		`<body>` + menu + `<p>Derby manager Paul Jewell has revealed he has almost completed a deal to sign a striker.</p>` +
			`<p>The 25-year-old currently plays in Mexico where he is the club's top scorer with ten goals.</p>` +
			`<p>"This is a deal we have almost completed," Jewell told the club's official website.</p></body>`,
		`<body>` + menu + `</body>`, // no main text: the whole page
	}
	e := mainTextExtractor(t)
	for _, page := range pages {
		d := e.Extract([]byte(page), "text/html; charset=utf-8", "")
		var kept []string
		for _, w := range e.words {
			kept = append(kept, string(e.text[w.start:w.end]))
		}
		// Re-scan the string with the Extractor's own word rules.
		s := mainTextString(e, d)
		e2 := mainTextExtractor(t)
		e2.Extract([]byte(s), "text/plain; charset=utf-8", "")
		var again []string
		for _, w := range e2.words {
			again = append(again, string(e2.text[w.start:w.end]))
		}
		if strings.Join(kept, " ") != strings.Join(again, " ") {
			t.Errorf("main text %q has words %q, the Extractor kept %q", s, again, kept)
		}
	}
}

// wordF1Floors are, per corpus dataset, the number of pages with gold text and
// the lowest mean WCXB word F1 the main text may score on them: 0.01 under what
// it measures, rounded down, so that a change that costs one kind of page fails
// here even when another gains. Regenerate with
// go test ./features -run 'TestMainTextWordF1$' -v.
var wordF1Floors = map[string]struct {
	pages int
	f1    float64
}{
	// measured: word F1 0.885 (P 0.859, R 0.967). The metric's \w+ makes a
	// run of Chinese characters one word, so the Chinese datasets score
	// clauses rather than words.
	"chinese-wced": {69, 0.87},
	// 0.910 (0.947, 0.901)
	"cleaneval-dev": {57, 0.90},
	// 0.922 (0.949, 0.923)
	"cleaneval-final": {675, 0.91},
	// 0.936 (0.951, 0.926)
	"cleanportaleval": {70, 0.92},
	// 0.825 (0.844, 0.815)
	"cx-163": {74, 0.81},
	// 0.939 (0.938, 0.944)
	"cx-bbc": {175, 0.92},
	// 0.893 (0.917, 0.906)
	"dragnet": {1381, 0.88},
	// 0.926 (0.910, 0.969)
	"l3s-gn1": {620, 0.91},
	// 0.916 (0.916, 0.954)
	"mozilla-readability": {130, 0.90},
	// 0.929 (0.903, 0.978)
	"scrapinghub-aeb": {181, 0.91},
	// 0.816 (0.840, 0.859); by page type article 0.935, documentation
	// 0.902, forum 0.805, service 0.800, listing 0.711, collection 0.694,
	// product 0.657. WCXB's README puts Trafilatura at 0.791 and the best
	// rule-based system at 0.859 on its development split, which holds far
	// more articles (53%) than this subset (27%): at this subset's mix that
	// system's published per-type scores give 0.828 (logPublishedWCXB).
	"wcxb": {1114, 0.80},
}

// rsTrafilaturaWCXB is the best published rule-based extractor's word F1 on
// WCXB by page type: rs-trafilatura (github.com/Murrough-Foley/rs-trafilatura,
// README, "Per-Page-Type F1"), on the benchmark's development split of 1,497
// pages, of which 793 are articles. Its overall 0.859 is that split's mix,
// 53% articles; this corpus's subset holds every page of the other types and
// 300 articles (27%), so a figure over the subset is only comparable once the
// published per-type scores are weighted by the subset's pages.
var rsTrafilaturaWCXB = map[string]struct {
	pages int
	f1    float64
}{
	"article": {793, 0.932}, "documentation": {91, 0.931}, "service": {165, 0.843}, "forum": {113, 0.792},
	"collection": {117, 0.713}, "listing": {99, 0.704}, "product": {119, 0.670},
}

// logPublishedWCXB logs the main text's wcxb word F1 beside rs-trafilatura's
// published one at equal mixes of page types: its per-type scores weighted by
// this subset's pages, and ours on the subset's development pages (dev)
// weighted by that split's.
func logPublishedWCXB(t *testing.T, types, dev map[string]*wordAcc) {
	var n, ours, theirs, oursThere, there float64
	for k, a := range types {
		r, ok := rsTrafilaturaWCXB[k]
		if !ok {
			t.Errorf("wcxb page type %q has no published score in rsTrafilaturaWCXB", k)
			continue
		}
		n += float64(a.n)
		ours += float64(a.n) * a.mean().F1
		theirs += float64(a.n) * r.f1
		if d := dev[k]; d != nil {
			oursThere += float64(r.pages) * d.mean().F1
			there += float64(r.pages)
		}
	}
	if n == 0 || there == 0 {
		return
	}
	t.Logf("wcxb, this subset's mix of page types: main text %.3f, rs-trafilatura's published per-type F1 %.3f", ours/n, theirs/n)
	t.Logf("wcxb, development pages at that split's mix (53%% articles): main text %.3f, rs-trafilatura's published 0.859", oursThere/there)
}

// wordAcc sums page scores for a mean.
type wordAcc struct {
	n        int
	p, r, f1 float64
}

func (a *wordAcc) add(s wordScore) { a.n++; a.p += s.P; a.r += s.R; a.f1 += s.F1 }

func (a *wordAcc) mean() wordScore {
	n := float64(max(a.n, 1))
	return wordScore{a.p / n, a.r / n, a.f1 / n}
}

func (a *wordAcc) String() string {
	m := a.mean()
	return fmt.Sprintf("pages %4d  word F1 %.3f  P %.3f  R %.3f", a.n, m.F1, m.P, m.R)
}

// goldPage says whether a corpus page has gold text to score against. WCXB's
// own evaluation also counts its pages whose gold is empty (single-page apps:
// the page holds no main text); TestMainTextWordF1 logs that figure apart.
func goldPage(p *corpusPage) bool { return strings.TrimSpace(p.gold) != "" }

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestMainTextWordF1 scores the main text, as dedup selects it, by WCXB's word
// F1 against the gold text of every corpus page that has one, per dataset, and
// holds each dataset to its floor (wordF1Floors). On wcxb it also logs the
// scores per page type and the benchmark's own mean, which counts the pages
// with empty gold text too.
func TestMainTextWordF1(t *testing.T) {
	pages := loadCorpus(t)
	e := mainTextExtractor(t)
	by := map[string]*wordAcc{}
	types, devTypes := map[string]*wordAcc{}, map[string]*wordAcc{}
	var wcxbAll, noMain wordAcc
	for _, p := range pages {
		d := e.Extract(p.body, "", p.URL)
		s := wordF1(mainTextString(e, d), p.gold)
		if p.Dataset == "wcxb" {
			// WCXB's evaluate_results: every page, empty gold included.
			wcxbAll.add(s)
		}
		if !goldPage(p) {
			continue
		}
		a := by[p.Dataset]
		if a == nil {
			a = &wordAcc{}
			by[p.Dataset] = a
		}
		a.add(s)
		if !d.MainText {
			noMain.add(s)
		}
		if p.Dataset == "wcxb" {
			if types[p.PageType] == nil {
				types[p.PageType] = &wordAcc{}
			}
			types[p.PageType].add(s)
			if strings.HasPrefix(p.ID, "dev/") {
				if devTypes[p.PageType] == nil {
					devTypes[p.PageType] = &wordAcc{}
				}
				devTypes[p.PageType].add(s)
			}
		}
	}
	for _, k := range sortedKeys(by) {
		t.Logf("%-18s %v", k, by[k])
	}
	for _, k := range sortedKeys(types) {
		t.Logf("wcxb %-13s %v", k, types[k])
	}
	logPublishedWCXB(t, types, devTypes)
	t.Logf("wcxb, every page as WCXB's evaluate.py counts it: %v", &wcxbAll)
	t.Logf("pages with no main text found (whole page scored): %v", &noMain)
	for _, k := range sortedKeys(by) {
		fl, ok := wordF1Floors[k]
		if !ok {
			t.Errorf("dataset %s has no floor in wordF1Floors: measure it and add one", k)
			continue
		}
		if a := by[k]; a.n != fl.pages {
			t.Errorf("%s: %d pages with gold text, want %d", k, a.n, fl.pages)
		} else if f := a.mean().F1; f < fl.f1 {
			t.Errorf("%s: mean word F1 %.3f, want >= %.2f", k, f, fl.f1)
		}
	}
	for _, k := range sortedKeys(wordF1Floors) {
		if by[k] == nil {
			t.Errorf("dataset %s of wordF1Floors not in the corpus", k)
		}
	}
}
