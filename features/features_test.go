package features

import (
	"bytes"
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func extractText(t *testing.T, html, contentType string) (string, Doc) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Families = 0
	e, err := NewExtractor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := e.Extract([]byte(html), contentType, "http://example.com/")
	return string(e.Text()), d
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"markup is space", "<p>Hello</p><p>World</p>", "hello world"},
		{"adjacent links stay apart", "<ul><li>Home</li><li>News</li></ul><a href=x>One</a><a href=y>Two</a>", "home news one two"},
		{"formatting tags ignored (Henzinger Sec. 2)", "<p>wo<b>rd</b> <i>it</i>alic</p>", "word italic"},
		{"script, style, noscript are not text", "a<script>var x = '<p>no</p>';</script>b<style>p{color:red}</style>c<noscript>enable js</noscript>d", "a b c d"},
		{"upper-case raw tags", "a<SCRIPT>no</SCRIPT>b", "a b"},
		{"comment is markup", "a<!-- b -->c", "a c"},
		{"entities decoded", "caf&eacute; &amp; &lt;tag&gt;&nbsp;x &#x4E2D;&#25991;", "café & <tag> x 中文"},
		{"white space collapsed", "a \n\t\r b\u00a0\u3000c", "a b c"},
		{"NFKC and case folding", "ＡＢＣ１２３ ﬁne ΣΑΣ Straße", "abc123 fine σασ straße"},
		{"typographic apostrophe", "city\u2019s", "city's"},
		{"Chinese punctuation under NFKC", "<p>中文，测试。好！</p>", "中文,测试。好!"},
		{"title is text", "<title>The Title</title><body>x</body>", "the title x"},
		{"broken markup", "<p>a<b>b</p>c<div", "ab c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := extractText(t, tt.html, "")
			if got != tt.want {
				t.Errorf("text %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCharset(t *testing.T) {
	gbk := "\xd6\xd0\xce\xc4" // 中文 in GBK
	tests := []struct {
		name, body, contentType, wantCharset, wantText string
	}{
		{"header windows-1252", "caf\xe9", "text/html; charset=windows-1252", "windows-1252", "café"},
		{"header latin1 is windows-1252", "\x93q\x94", "text/html; charset=ISO-8859-1", "windows-1252", "\u201cq\u201d"},
		{"header beats meta", "<meta charset=\"gbk\">caf\xe9", "text/html; charset=windows-1252", "windows-1252", "café"},
		{"meta charset", `<meta charset="gb2312"><p>` + gbk, "", "gbk", "中文"},
		{"meta http-equiv", `<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=GBK"><p>` + gbk, "text/html", "gbk", "中文"},
		{"meta after 1 KiB", "<head><script>" + strings.Repeat("x", 3000) + `</script><meta charset=gb2312></head>` + gbk, "", "gbk", "中文"},
		{"charset outside meta ignored", "<p>charset=gbk</p>caf\xe9", "", "windows-1252", "charset=gbk café"},
		{"UTF-8 BOM", "\xef\xbb\xbf<p>中文</p>", "", "utf-8", "中文"},
		{"UTF-16LE BOM", "\xff\xfe<\x00p\x00>\x00-N\x87e", "", "utf-16le", "中文"},
		{"UTF-8 body with legacy meta", `<meta charset="gbk"><p>中文</p>`, "", "utf-8", "中文"},
		{"undeclared GBK", "<p>" + strings.Repeat(gbk+"\xa3\xac", 5) + "</p>", "", "gbk", strings.Repeat("中文,", 5)},
		{"undeclared EUC-JP", "<p>" + strings.Repeat("\xa4\xb3\xa4\xec\xa4\xcf\xc6\xfc\xcb\xdc\xb8\xec", 3) + "</p>", "", "euc-jp", strings.Repeat("これは日本語", 3)},
		{"undeclared Latin-1", "<p>caf\xe9 cr\xe8me</p>", "", "windows-1252", "café crème"},
		{"undeclared UTF-8", "<p>café</p>", "", "utf-8", "café"},
		{"invalid UTF-8 declared UTF-8", "<meta charset=utf-8>a\xffb", "", "utf-8", "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, d := extractText(t, tt.body, tt.contentType)
			if d.Charset != tt.wantCharset || got != tt.wantText {
				t.Errorf("charset %q text %q, want %q %q", d.Charset, got, tt.wantCharset, tt.wantText)
			}
		})
	}
}

// termHashes hashes term strings like the scanner does.
func termHashes(terms ...string) []uint64 {
	out := make([]uint64, len(terms))
	for i, s := range terms {
		out[i] = Hash64([]byte(s), seedTerm)
	}
	return out
}

func TestHenzingerTerms(t *testing.T) {
	tests := []struct {
		name, html, url string
		want            []string
	}{
		{"alphanumeric runs", "<p>Hello, world 42x!</p>", "", []string{"hello", "world", "42x"}},
		{"URL in text broken at / and .", "see http://www.Example.com/path/page.html now", "", []string{"see", "http", "www", "example", "com", "path", "page", "html", "now"}},
		{"apostrophe and hyphen split terms", "city's inner-west", "", []string{"city", "s", "inner", "west"}},
		{"each Han character a term", "中文abc日本語", "", []string{"中", "文", "abc", "日", "本", "語"}},
		{"kana and hangul", "テスト 한국", "", []string{"テ", "ス", "ト", "한", "국"}},
		{"NFKC digits", "x² café", "", []string{"x2", "café"}},
		{"IMG on own host: file name", `a<img src="/img/Photo.JPG">b`, "http://news.example.com/a/b.html", []string{"a", "photo.jpg", "b"}},
		{"IMG on own host, relative", `a<img src="pics/x.png">b`, "http://news.example.com/a/b.html", []string{"a", "x.png", "b"}},
		{"IMG on other host: whole URL", `a<img alt=z src="http://cdn.other.com/x/y.png">b`, "http://news.example.com/", []string{"a", "cdn.other.com/x/y.png", "b"}},
		{"IMG on other host, https, scheme-relative", `a<img src="https://CDN.other.com/x/y.png">b<img src="//cdn.other.com/x/y.png">`, "http://news.example.com/", []string{"a", "cdn.other.com/x/y.png", "b", "cdn.other.com/x/y.png"}},
		{"IMG absolute on own host: file name", `<img src="http://NEWS.example.com/i/p.gif?v=2">`, "http://news.example.com/", []string{"p.gif"}},
		{"IMG data URI: no term", `a<img src="data:image/png;base64,AAAA">b`, "http://news.example.com/", []string{"a", "b"}},
	}
	cfg := DefaultConfig()
	cfg.Families = FamSimhash
	e, _ := NewExtractor(cfg)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := e.Extract([]byte(tt.html), "", tt.url)
			if !slices.Equal(e.terms, termHashes(tt.want...)) || d.Terms != len(tt.want) {
				t.Errorf("terms of %q differ from %q (text %q, %d terms)", tt.html, tt.want, e.Text(), d.Terms)
			}
		})
	}
}

func TestSpotSignatures(t *testing.T) {
	base := func(ante []string, d, c int, steps []int) Config {
		cfg := DefaultConfig()
		if ante != nil {
			cfg.Antecedents = ante
		}
		cfg.SpotDistance, cfg.SpotChain, cfg.SpotSteps = d, c, steps
		return cfg
	}
	tests := []struct {
		name string
		cfg  Config
		text string
		want []string
	}{
		{"a(1,2)", base([]string{"the"}, 1, 2, nil), "The Dog barked loudly", []string{"the:dog:barked"}},
		{"chain cut at the end", base([]string{"the"}, 1, 2, nil), "saw the dog", []string{"the:dog"}},
		{"no word after the antecedent", base([]string{"the"}, 1, 2, nil), "dog the", nil},
		{"stopwords skipped", base([]string{"the"}, 1, 2, nil), "the big of the red dog", []string{"the:big:red", "the:red:dog"}},
		{"the(2,3) takes the 2nd, 4th, 6th", base([]string{"the"}, 2, 3, nil), "the one two three four five six seven", []string{"the:two:four:six"}},
		{"multi-chain is(3,4)", base([]string{"is"}, 0, 0, []int{3, 4}), "is alpha beta gamma delta epsilon zeta eta theta", []string{"is:gamma:eta"}},
		{"overlapping chains", base([]string{"the", "is"}, 1, 2, nil), "the dog is the best", []string{"the:dog:best", "is:best", "the:best"}},
		{"marks are not words", base([]string{"the"}, 1, 2, nil), "the end. Next", []string{"the:end:next"}},
		{"Chinese antecedents (default)", base(nil, 2, 3, nil), "我的朋友是老师", []string{"的:友:师", "是:师"}},
		{"default antecedents", DefaultConfig(), "He said the committee has approved a budget for the new school year", []string{"said:approved:new:year", "the:approved:new:year", "has:budget:school", "a:new:year", "the:school"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SpotSignatures(tt.text, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSpotBagMatchesStrings checks that the hashed bag of Extract holds exactly
// one key per distinct signature string, with the right counts.
func TestSpotBagMatchesStrings(t *testing.T) {
	text := strings.Repeat("The cat is on the mat and the dog has a bone. ", 3) + "A bird is in the tree."
	cfg := DefaultConfig()
	strs, _ := SpotSignatures(text, cfg)
	e, _ := NewExtractor(cfg)
	d := e.Extract([]byte("<p>"+text+"</p>"), "", "")
	distinct := map[string]int{}
	for _, s := range strs {
		distinct[s]++
	}
	if len(d.Spots) != len(distinct) || d.Spots.Len() != len(strs) {
		t.Errorf("bag has %d keys / %d total, strings %d distinct / %d total", len(d.Spots), d.Spots.Len(), len(distinct), len(strs))
	}
	if d.SpotComparable != (len(strs) >= cfg.MinSpots) {
		t.Errorf("SpotComparable %v with %d spots", d.SpotComparable, len(strs))
	}
}

func TestAFFeatures(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Families = FamAF
	e, _ := NewExtractor(cfg)
	// 2 punctuation features (，between 好 and 我; 。after 园), 1 sentence
	// (我们去公园, between the two marks; the text before the first mark is not
	// between two marks), 5+4+3+2 sentence shingles of sizes 1..4; no antecedent.
	d := e.Extract([]byte("<p>今天天气很好，我们去公园。</p>"), "", "")
	if got := d.AF.Len(); got != 2+1+14 || len(d.AF) != 17 {
		t.Errorf("AF multi-set size %d (%d distinct), want 17", got, len(d.AF))
	}
	// The same sentence inside different text shares its sentence feature and
	// shingles; a different sentence shares nothing but single characters.
	d2 := e.Extract([]byte("<div>菜单 首页</div><p>昨天下雨，我们去公园。</p>"), "", "")
	d3 := e.Extract([]byte("<p>昨天下雨，他们在家里。</p>"), "", "")
	if j, j3 := Jaccard(d.AF, d2.AF), Jaccard(d.AF, d3.AF); j <= j3 || j < 0.5 {
		t.Errorf("Jaccard same sentence %.3f, different sentence %.3f", j, j3)
	}
	// AF includes the spot signatures.
	cfg.Families = FamAF | FamSpotSigs
	e, _ = NewExtractor(cfg)
	d = e.Extract([]byte("<p>我的朋友是老师，他的学生很好。</p>"), "", "")
	for _, s := range d.Spots {
		if _, ok := slices.BinarySearchFunc(d.AF, s.Key, func(e Entry, k uint64) int { return cmpU64(e.Key, k) }); !ok {
			t.Errorf("spot %x missing from AF bag", s.Key)
		}
	}
	if len(d.Spots) == 0 {
		t.Error("no spots in a Chinese sentence with 的 and 是")
	}
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestHashAvalanche: changing the last letter of a word must flip about half of
// the 64 bits (FNV-1 flips mostly low bits; see hash.go).
func TestHashAvalanche(t *testing.T) {
	total, n, minFlips := 0, 0, 64
	for i := 0; i < 2000; i++ {
		w := []byte(fmt.Sprintf("word%dx", i))
		for _, size := range []int{len(w), 8, 16, 17} {
			b := append(bytes.Repeat([]byte("p"), max(0, size-len(w))), w...)
			h1 := Hash64(b, 0)
			b[len(b)-1] ^= 1
			f := bits.OnesCount64(h1 ^ Hash64(b, 0))
			total += f
			n++
			minFlips = min(minFlips, f)
		}
	}
	if avg := float64(total) / float64(n); avg < 31 || avg > 33 || minFlips < 12 {
		t.Errorf("one flipped bit changes %.2f hash bits on average (min %d), want about 32", avg, minFlips)
	}
	// Fixed values: the hash is part of the serialized format (docVersion).
	if got := Hash64([]byte("the"), 0); got != Hash64([]byte("the"), 0) || got == Hash64([]byte("the"), 1) {
		t.Error("hash not deterministic or seed ignored")
	}
}

func longText(n int, seed int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "w%d ", (i*7919+seed)%(n/2+1))
	}
	return sb.String()
}

func TestSimhash(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Families = FamSimhash | FamSpotSimhash
	e, _ := NewExtractor(cfg)
	empty := e.Extract(nil, "", "")
	if empty.Simhash384 != ([6]uint64{}) || empty.Simhash64 != 0 || empty.SpotSimhash384 != ([6]uint64{}) {
		t.Errorf("empty document simhash %x, want all zero (not all ones)", empty.Simhash384)
	}
	text := longText(600, 1)
	a := e.Extract([]byte(text), "", "")
	if a.Simhash64 != a.Simhash384[0] {
		t.Error("Simhash64 is not the first word of Simhash384")
	}
	if b := e.Extract([]byte(text), "", ""); b.Simhash384 != a.Simhash384 {
		t.Error("simhash not deterministic")
	}
	// One changed term out of 600: near-identical fingerprints (Henzinger's
	// C-similar threshold is 372 of 384).
	changed := strings.Replace(text, "w1 ", "zzz ", 1)
	if agree := SimhashAgree384(a.Simhash384, e.Extract([]byte(changed), "", "").Simhash384); agree < 372 {
		t.Errorf("one changed term: %d of 384 bits agree, want >= 372", agree)
	}
	other := e.Extract([]byte(longText(600, 12345)+" unrelated words here"), "", "")
	unrelated := e.Extract([]byte(strings.ReplaceAll(longText(600, 5), "w", "v")), "", "")
	if agree := SimhashAgree384(a.Simhash384, unrelated.Simhash384); agree > 230 {
		t.Errorf("unrelated texts: %d of 384 bits agree, want about 192", agree)
	}
	_ = other
	// Frequencies count: same terms, different counts, different simhash.
	x := e.Extract([]byte("alpha alpha alpha beta"), "", "")
	y := e.Extract([]byte("alpha beta beta beta"), "", "")
	if x.Simhash384 == y.Simhash384 {
		t.Error("term frequencies ignored")
	}
	// A single term: the simhash is that term's projection, whose word 0 is
	// its hash.
	if one := e.Extract([]byte("alpha"), "", ""); one.Simhash64 != Hash64([]byte("alpha"), 0) {
		t.Errorf("single-term simhash %x, want the term hash", one.Simhash64)
	}
}

func TestSimhashHeavyFrequencies(t *testing.T) {
	// More than 255 occurrences exercise the packed counters' flush and split.
	e, _ := NewExtractor(DefaultConfig())
	keys := append(slices.Repeat([]uint64{Hash64([]byte("a"), 0)}, 700), slices.Repeat([]uint64{Hash64([]byte("b"), 0)}, 300)...)
	got := e.simhashSeq(keys)
	want := e.simhashBag(Bag{{Key: keys[0], N: 700}, {Key: keys[999], N: 300}})
	if got != want {
		t.Fatal("sequence and bag simhash differ")
	}
	if got != simhashWords(keys[0]) {
		t.Error("a 700:300 majority must give the majority term's projection")
	}
}

func TestShingles(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Families = FamShingles | FamQGrams
	e, _ := NewExtractor(cfg)
	text := longText(1000, 3)
	a := e.Extract([]byte(text), "", "")
	changed := e.Extract([]byte(strings.Replace(text, "w3 ", "zzz ", 1)), "", "")
	other := e.Extract([]byte(strings.ReplaceAll(longText(1000, 7), "w", "v")), "", "")
	if n := SupershinglesAgree(a.Supershingles, a.Supershingles); n != 6 {
		t.Errorf("self agreement %d", n)
	}
	if n := SupershinglesAgree(a.Supershingles, changed.Supershingles); n < 2 {
		t.Errorf("one changed word in 1000: %d of 6 supershingles agree, want B-similar (>= 2)", n)
	}
	if n := SupershinglesAgree(a.Supershingles, other.Supershingles); n != 0 {
		t.Errorf("unrelated texts: %d supershingles agree", n)
	}
	if s := QGramSim(a.QGrams, changed.QGrams); s < 0.99 || s == 1 {
		t.Errorf("q-gram similarity after one change %.4f", s)
	}
	if s := QGramSim(a.QGrams, other.QGrams); s > 0.2 {
		t.Errorf("q-gram similarity of unrelated texts %.4f", s)
	}
	short := e.Extract([]byte("two words"), "", "")
	if short.Supershingles == ([6]uint64{}) {
		t.Error("a page shorter than k has no supershingles")
	}
}

func TestDocRoundTrip(t *testing.T) {
	cfg := allFamilies()
	cfg.Families |= FamTextSimhash
	e, _ := NewExtractor(cfg)
	d := e.Extract([]byte("<p>The cat sat on the mat, and the dog was happy. 我的朋友是老师。</p>"), "text/html; charset=utf-8", "")
	d.Truncated = true
	b, err := d.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Doc
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, d)
	}
	// Every truncation and every single-byte corruption must fail cleanly or
	// decode; none may panic.
	for i := 0; i < len(b); i++ {
		if err := got.UnmarshalBinary(b[:i]); err == nil {
			t.Errorf("truncated to %d bytes: no error", i)
		}
		c := bytes.Clone(b)
		c[i] ^= 0x55
		_ = got.UnmarshalBinary(c)
	}
	if err := got.UnmarshalBinary(append(bytes.Clone(b), 0)); err == nil {
		t.Error("trailing byte accepted")
	}
}

func TestMaxDocBytes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxDocBytes = 100
	e, _ := NewExtractor(cfg)
	d := e.Extract([]byte(strings.Repeat("word ", 100)), "", "")
	if !d.Truncated || d.Terms != 20 {
		t.Errorf("truncated %v terms %d, want true 20", d.Truncated, d.Terms)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.SpotDistance = 0 },
		func(c *Config) { c.SpotChain = 9 },
		func(c *Config) { c.SpotSteps = []int{1, 0} },
		func(c *Config) { c.Families |= FamQGrams; c.QGram = 0 },
		func(c *Config) { c.Families |= FamShingles; c.ShingleK = 0 },
	} {
		c := DefaultConfig()
		mod(&c)
		if _, err := NewExtractor(c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}

// TestPathologicalLinear: text made only of stopwords and antecedents, or only of
// marks, must cost linear time (the first spotChains was quadratic on it), and the
// Extractor must not keep the buffers of a huge page.
func TestPathologicalLinear(t *testing.T) {
	cfg := allFamilies()
	cfg.Families |= FamTextSimhash
	e, _ := NewExtractor(cfg)
	for name, body := range map[string][]byte{
		"stopwords": bytes.Repeat([]byte("the a "), 4<<20/6),
		"chinese":   bytes.Repeat([]byte("的了是"), 4<<20/9),
		"marks":     bytes.Repeat([]byte("the, "), 4<<20/5),
		"sentences": bytes.Repeat([]byte("the cat is on a mat, "), 4<<20/21),
	} {
		start := time.Now()
		d := e.Extract(body, "", "")
		// Linear work is well under a second here; the quadratic version took
		// hours. The bound is loose for shared machines.
		if el := time.Since(start); el > 20*time.Second {
			t.Errorf("%s: %v for %d bytes", name, el, len(body))
		}
		if d.Words == 0 {
			t.Errorf("%s: no words", name)
		}
	}
	e.Extract([]byte("<p>small</p>"), "", "")
	if cap(e.words)*24 > retainBytes || cap(e.text) > retainBytes || cap(e.keys)*8 > retainBytes {
		t.Errorf("buffers of a huge page kept: words %d text %d keys %d", cap(e.words), cap(e.text), cap(e.keys))
	}
}

// TestBigrams: pages with fewer spot signatures than Config.BigramsBelow get
// the bigrams of their words, within sentences; others get none.
func TestBigrams(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Families = FamSpotSigs
	for _, tc := range []struct {
		html  string
		below int
		want  int // distinct bigrams
	}{
		{"<p>Pixel heroes, villains and more pixels.</p>", 3, 5}, // pixel heroes | heroes villains | villains and | and more | more pixels
		{"<p>Pixel heroes, villains and more pixels.</p>", 0, 0},
		{"<p>One.</p>", 3, 0},
		{"<p>the cat the cat</p>", 3, 2}, // the cat (x2) | cat the
	} {
		cfg.BigramsBelow = tc.below
		e, err := NewExtractor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		d := e.Extract([]byte(tc.html), "text/html", "")
		if len(d.Bigrams) != tc.want {
			t.Errorf("%q below %d: %d bigrams, want %d", tc.html, tc.below, len(d.Bigrams), tc.want)
		}
	}
}

// TestWholeBigrams: with MainText, a page where no block reads as running
// text gets the bigrams of its whole text only with WholeBigrams; a page
// with main text gets its main text's whatever the setting.
func TestWholeBigrams(t *testing.T) {
	listing := `<body><ul><li><a href="/1">Beginner's brewing tutorial</a></li><li><a href="/2">What went right so far</a></li>` +
		`<li><a href="/3">Boil off question: water and wort</a></li></ul></body>`
	story := `<body><ul><li><a href="/1">Home</a></li></ul><p>The council said on Tuesday that the new bridge would be finished by the end of the year, ` +
		`and that the old one would be closed to traffic while the work was done. Residents have been asked to use the ferry.</p></body>`
	for _, tc := range []struct {
		name     string
		page     string
		whole    bool
		bigrams  bool
		mainText bool
	}{
		{"no main text, WholeBigrams", listing, true, true, false},
		{"no main text", listing, false, false, false},
		{"main text, WholeBigrams", story, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Families = FamSpotSigs
			cfg.MainText = true
			cfg.BigramsBelow = 3
			cfg.WholeBigrams = tc.whole
			e, err := NewExtractor(cfg)
			if err != nil {
				t.Fatal(err)
			}
			d := e.Extract([]byte(tc.page), "text/html", "")
			if d.MainText != tc.mainText {
				t.Fatalf("MainText %v, want %v", d.MainText, tc.mainText)
			}
			if got := d.Bigrams.Len() > 0; got != tc.bigrams {
				t.Fatalf("%d bigrams, want some: %v", d.Bigrams.Len(), tc.bigrams)
			}
			if tc.bigrams && d.Bigrams.Len() < 10 {
				t.Fatalf("%d bigrams of the whole text, want its 15 or so", d.Bigrams.Len())
			}
		})
	}
}

// TestWholeBigramsSketch: a long page with no running text keeps the
// wholeBigramsMax bigrams with the smallest hashes of all its bigrams, so
// that two captures keep alike samples.
func TestWholeBigramsSketch(t *testing.T) {
	var b strings.Builder
	b.WriteString("<body><ul>")
	for i := range 400 {
		fmt.Fprintf(&b, `<li><a href="/%d">item%d of shelf%d</a></li>`, i, i, i%7)
	}
	b.WriteString("</ul></body>")
	page := []byte(b.String())
	cfg := DefaultConfig()
	cfg.Families = FamSpotSigs
	cfg.BigramsBelow = 1 << 30
	all, err := NewExtractor(cfg) // no main text: every bigram
	if err != nil {
		t.Fatal(err)
	}
	full := all.Extract(page, "text/html", "").Bigrams
	cfg.MainText, cfg.WholeBigrams, cfg.BigramsBelow = true, true, 16
	e, err := NewExtractor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := e.Extract(page, "text/html", "")
	if d.MainText {
		t.Fatal("a list of links has main text")
	}
	if len(full) <= wholeBigramsMax {
		t.Fatalf("the page has %d distinct bigrams: too few to test the bound", len(full))
	}
	if !reflect.DeepEqual(d.Bigrams, full[:wholeBigramsMax]) {
		t.Fatalf("%d bigrams kept, want the %d with the smallest hashes of %d", len(d.Bigrams), wholeBigramsMax, len(full))
	}
}
