package features

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// naiveIn is what wordSet.in computes, one bytes.Contains a word.
func naiveIn(b []byte, words []string) bool {
	for _, w := range words {
		if bytes.Contains(b, []byte(w)) {
			return true
		}
	}
	return false
}

// TestWordSet holds wordSet.in to bytes.Contains over every word: on names
// made of the words' pieces, at the start, the end and across each other,
// and on class names of real pages.
func TestWordSet(t *testing.T) {
	words := []string{"-ad-", "banner", "bar", "pagination", "pager", "rss", "menu", "and", "a"}
	s := newWordSet(words...)
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"", false}, {"x", false}, {"a", true}, {"ba", true}, {"-ad", true}, {"pag", true},
		{"pagina", true}, {"nav-pager", true}, {"rs", false}, {"site-rss", true}, {"xbanne", true},
		{"-ad-slot", true}, {"mainmenu", true}, {"b", false}, {"pr", false}, {"mnu", false},
	} {
		if got := s.in([]byte(tc.name)); got != tc.want || got != naiveIn([]byte(tc.name), words) {
			t.Errorf("in(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Names of the sets the extractor uses, pieced together at random.
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"side", "bar", "com", "ment", "pag", "ination", "foot", "er", "con", "sent", "-", "_", " ",
		"ad", "-ad-", "main", "x", "cookie", "notice", "post", "entry", "story", "header", "ban", "ner", "gd", "pr"}
	sets := []struct {
		s     *wordSet
		words []string
	}{
		{okNames, []string{"and", "article", "body", "column", "content", "main", "shadow"}},
		{unlikelyNames, []string{"-ad-", "banner", "breadcrumbs", "combx", "cover-wrap",
			"disqus", "extra", "footer", "header", "legends", "menu", "related", "rss",
			"shoutbox", "sidebar", "skyscraper", "social", "sponsor", "supplemental", "ad-break", "agegate",
			"pagination", "pager", "popup"}},
		{consentNames, []string{"consent", "gdpr", "onetrust", "optanon", "didomi", "usercentrics", "cookiebot"}},
		{positiveNames, []string{"article", "content", "entry", "main", "post", "story"}},
		{commentNames, []string{"comment", "replies", "community", "remark"}},
	}
	for i := 0; i < 20000; i++ {
		var b []byte
		for n := r.IntN(6); n >= 0; n-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		for _, st := range sets {
			if got, want := st.s.in(b), naiveIn(b, st.words); got != want {
				t.Fatalf("in(%q) = %v, bytes.Contains says %v", b, got, want)
			}
		}
	}
}

// TestContainerNames holds containerNames' one pass to the name tests it
// stands for, on names pieced together from their words at random.
func TestContainerNames(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"side", "bar", "com", "ment", "pag", "ination", "foot", "er", "con", "sent", "-", "_", " ",
		"ad", "-ad-", "main", "x", "cookie", "notice", "post", "entry", "story", "header", "ban", "ner", "gd", "pr",
		"content", "body", "text", "article", "and", "modal", "drop", "down", "tag-", "one", "trust", "-body", "cook", "ie",
		"share", "over", "lay", "but", "ton", "sub", "scribe", "about", "author", "bio", "box",
		"comment", "com", "mun", "ity", "replies", "re", "mark", "copy", "right", "bread", "crumb", "most", "-read", "-popular",
		"recom", "mend"}
	for i := 0; i < 20000; i++ {
		var b []byte
		for n := r.IntN(6); n >= 0; n-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		m := containerNames.classes(b)
		for _, c := range []struct {
			bit  uint16
			want bool
		}{
			{nameOK, okNames.in(b)}, {nameUnlikely, unlikelyNames.in(b)}, {namePositive, positiveNames.in(b)},
			{nameConsent, consentNames.in(b)}, {nameCookie, bytes.Contains(b, []byte("cookie"))},
			{nameBody, naiveIn(b, []string{"content", "body", "text", "entry"})},
			{nameComment, commentNames.in(b)},
		} {
			if got := m&c.bit != 0; got != c.want {
				t.Fatalf("classes(%q) bit %b = %v, want %v", b, c.bit, got, c.want)
			}
		}
		if unlikelyName(m) != (!okNames.in(b) && (unlikelyNames.in(b) || commentNames.in(b))) {
			t.Fatalf("unlikelyName(%q) differs from its words' scans", b)
		}
		if commentOnly(m) != (!okNames.in(b) && !unlikelyNames.in(b) && commentNames.in(b)) {
			t.Fatalf("commentOnly(%q) differs from its words' scans", b)
		}
		if m&nameBody == 0 && bodyName(b) {
			t.Fatalf("bodyName(%q) with no body word", b)
		}
		if m&(nameConsent|nameCookie) == 0 && consentName(b) {
			t.Fatalf("consentName(%q) with no consent word", b)
		}
	}
}

func BenchmarkNames(b *testing.B) {
	names := [][]byte{[]byte("filtering-and-pagination_product-column__znbht "), []byte("col-md-8 col-sm-12 "),
		[]byte("wp-block-group is-layout-flow "), []byte("site-header__inner container "), []byte("post-12345 type-post status-publish ")}
	for b.Loop() {
		for _, n := range names {
			_ = !okNames.in(n) && unlikelyNames.in(n)
			consentName(n)
			positiveNames.in(n)
			bodyName(n)
		}
	}
}

// BenchmarkContainerNames: the same names read by containerNames' one pass
// (BenchmarkNames: one scan a test).
func BenchmarkContainerNames(b *testing.B) {
	names := [][]byte{[]byte("filtering-and-pagination_product-column__znbht "), []byte("col-md-8 col-sm-12 "),
		[]byte("wp-block-group is-layout-flow "), []byte("site-header__inner container "), []byte("post-12345 type-post status-publish ")}
	for b.Loop() {
		for _, n := range names {
			containerNames.classes(n)
		}
	}
}

// TestConsentName: class and id names of consent dialogs and cookie
// banners, not a WordPress post's tags or a cookie policy page.
func TestConsentName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"onetrust-banner-sdk otFlat", true},
		{"cmp-consent-layer", true},
		{"site-cookie-notice fixed", true},
		{"cookies-policy", false},
		{"post tag-cookie-recipes category-gdpr-news", false},
		{"tag-cookie-notice consent-box", true},
		{"entry-content", false},
		{"", false},
	} {
		if got := consentName([]byte(tc.name)); got != tc.want {
			t.Errorf("consentName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStopTable holds the table to the map it is made from: every key
// found with its flags, the hash 0 included, and other hashes not found.
func TestStopTable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 300, 5000} {
		m := map[uint64]uint8{}
		for len(m) < n {
			m[r.Uint64()>>uint(r.IntN(60))] = uint8(1 + r.IntN(7))
		}
		if n == 300 {
			m[0] = 3
		}
		tab := newStopTable(m)
		for h, v := range m {
			if got := tab.get(h); got != v {
				t.Fatalf("n=%d: get(%#x) = %d, want %d", n, h, got, v)
			}
		}
		for i := 0; i < 10000; i++ {
			h := r.Uint64()
			if got := tab.get(h); got != m[h] {
				t.Fatalf("n=%d: get(%#x) = %d, want %d", n, h, got, m[h])
			}
		}
		if len(tab.keys) < 8*len(m) {
			t.Errorf("n=%d: %d slots, want at least %d", n, len(tab.keys), 8*len(m))
		}
	}
}

// TestGram4Set holds gram4Set.in to bytes.Contains over every gram, and
// noticeGrams to the notices' tests: every phrase a notice needs holds one
// of its grams, so that a block without them is no notice.
func TestGram4Set(t *testing.T) {
	grams := []string{"okie", "vasc", "wser", "mmen", "emai", "eser", "adca"}
	g := newGram4Set(grams...)
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"co", "ok", "ie", "br", "ow", "se", "r ", "em", "ai", "l", "mm", "en", "t", "es", "er", "ad", "ca", "x", " "}
	for range 20000 {
		var b []byte
		for range r.IntN(12) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		if got, want := g.in(b), naiveIn(b, grams); got != want {
			t.Fatalf("in(%q) = %v, want %v", b, got, want)
		}
	}
	for _, phrase := range []string{"cookie", "enable javascript", "browser", "comment", "email", "rights reserved",
		"may not be published, broadcast"} {
		if !noticeGrams.in([]byte(phrase)) {
			t.Errorf("noticeGrams has no gram of %q", phrase)
		}
	}
	for _, notice := range []string{"this website uses cookies. accept", "please enable javascript",
		"your email address will not be published", "all rights reserved", "you are using an outdated browser"} {
		b := []byte(notice)
		if !noticeGrams.in(b) || !(cookieNotice(b) || browserNotice(b) || commentFormNotice(b) || rightsNotice(b)) {
			t.Errorf("%q is no notice", notice)
		}
	}
}

// appendTextRef is appendText written plainly, a byte at a time, with a
// branch for each space.
func appendTextRef(t, s []byte) []byte {
	if !utf8Ascii(s) {
		s = norm.NFKC.Append(nil, s...)
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < 0x80 {
			m := asciiNorm[c]
			if m != ' ' || len(t) > 0 && t[len(t)-1] != ' ' {
				t = append(t, m)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		i += size
		t = appendRune(t, r)
	}
	return t
}

func utf8Ascii(s []byte) bool {
	return bytes.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) < 0
}

// TestAppendText holds appendText to appendTextRef on texts pieced
// together at random, appended one after another as text tokens are.
func TestAppendText(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "B", " ", "  ", "\t", "\n", "\r\n", "\x00", "\x7f", "word", "Ｆｕｌｌ", "é", "e\u0301", "’", "\u00a0",
		"\u200b", "中文", "ﬁ", "Σ", "12345678", "abcdefghij"}
	var e Extractor
	var want []byte
	for range 5000 {
		if r.IntN(50) == 0 {
			e.text, want = e.text[:0], want[:0]
		}
		var s []byte
		for range r.IntN(20) {
			s = append(s, pieces[r.IntN(len(pieces))]...)
		}
		e.appendText(s)
		want = appendTextRef(want, s)
		if !bytes.Equal(e.text, want) {
			t.Fatalf("appendText(%q): %q, want %q", s, e.text, want)
		}
	}
}
