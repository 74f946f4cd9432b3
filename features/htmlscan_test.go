package features

import (
	"bytes"
	"reflect"
	"testing"

	"golang.org/x/net/html"
)

// xnet adapts x/net/html's Tokenizer to tokenSource: TagName positions its
// attribute iterator.
type xnet struct {
	*html.Tokenizer
	named bool
	nb    [16]byte
}

// Name reads the tag name from Raw: TagName allocates a copy per call in
// x/net v0.62.
func (x *xnet) Name() []byte { return tagName(x.nb[:], x.Raw()) }

func (x *xnet) Next() html.TokenType { x.named = false; return x.Tokenizer.Next() }

func (x *xnet) TagAttr() ([]byte, []byte, bool) {
	if !x.named {
		x.named = true
		if _, more := x.Tokenizer.TagName(); !more {
			return nil, nil, false
		}
	}
	return x.Tokenizer.TagAttr()
}

// extractWith extracts body with the x/net/html Tokenizer instead of the scanner.
func extractXNet(e *Extractor, body []byte, ctype, pageURL string) (Doc, string) {
	var d Doc
	e.release()
	src, name := e.decode(body, ctype)
	d.Charset = name
	z := html.NewTokenizer(bytes.NewReader(src))
	z.SetMaxBuf(e.cfg.MaxDocBytes)
	e.tokenizeFrom(&xnet{Tokenizer: z}, pageURL)
	return e.finish(d), string(e.text)
}

// TestScannerMatchesTokenizer extracts every corpus page with the scanner and
// with x/net/html's Tokenizer: the normalized text and every feature must be
// the same on (nearly) all of them; differences are listed.
func TestScannerMatchesTokenizer(t *testing.T) {
	pages := loadCorpus(t)
	cfg := allFamilies()
	cfg.MainText = true
	a, _ := NewExtractor(cfg)
	b, _ := NewExtractor(cfg)
	diff := 0
	for _, p := range pages {
		da := a.Extract(p.body, "", p.URL)
		ta := string(a.text)
		db, tb := extractXNet(b, p.body, "", p.URL)
		if ta != tb || !docsEqual(da, db) {
			diff++
			i := 0
			for i < len(ta) && i < len(tb) && ta[i] == tb[i] {
				i++
			}
			t.Logf("spots %v simhash %v main %v", reflect.DeepEqual(da.Spots, db.Spots), da.Simhash384 == db.Simhash384, da.MainText == db.MainText)
			t.Logf("%s/%s: text %d vs %d bytes, first difference at %d: %q | %q", p.Dataset, p.ID, len(ta), len(tb), i,
				ta[max(0, i-40):min(len(ta), i+40)], tb[max(0, i-40):min(len(tb), i+40)])
		}
	}
	t.Logf("%d of %d pages differ", diff, len(pages))
	if diff > 0 {
		t.Errorf("%d pages differ", diff)
	}
}

func docsEqual(a, b Doc) bool {
	ab, _ := a.MarshalBinary()
	bb, _ := b.MarshalBinary()
	return bytes.Equal(ab, bb) && a.MainText == b.MainText
}

// FuzzScanner compares the scanner with x/net/html's Tokenizer on arbitrary
// input: the Extractor must see the same text and compute the same features.
func FuzzScanner(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`<script><!-- document.write('<script>x</script>') //--></script>after`,
		`<a href=/>x</a><img src="a.png?x=1&region=US&amp" alt=y>`,
		`<title>a &amp; b</title><textarea>&lt;p&gt;</textarea><xmp><b>x</b></xmp>`,
		`<!--> <!---> <!-- a --!> b <!doctype html><?php x ?></ x><//a>`,
		"<p>a\r\nb\x00c</p><plaintext><b>all text",
	} {
		f.Add([]byte(s))
	}
	cfg := allFamilies()
	cfg.MainText = true
	cfg.MaxDocBytes = fuzzMaxDoc
	a, _ := NewExtractor(cfg)
	b, _ := NewExtractor(cfg)
	f.Fuzz(func(t *testing.T, body []byte) {
		da := a.Extract(body, "text/html; charset=utf-8", "http://example.com/")
		ta := string(a.text)
		db, tb := extractXNet(b, body, "text/html; charset=utf-8", "http://example.com/")
		if ta != tb {
			t.Fatalf("text differs:\nscanner %q\nx/net   %q", ta, tb)
		}
		if !docsEqual(da, db) {
			t.Fatalf("features differ on the same text %q", ta)
		}
	})
}

// tagAttrs lists every start tag's attributes as the scanner and as x/net's
// Tokenizer read them.
func tagAttrs(body []byte) (ours, theirs []string) {
	var s scanner
	s.reset(body)
	return attrList(&s), attrList(&xnet{Tokenizer: html.NewTokenizer(bytes.NewReader(body))})
}

// attrList is every start tag's attributes in z, as key=value.
func attrList(z tokenSource) []string {
	var out []string
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			if k != nil {
				out = append(out, string(k)+"="+string(v))
			}
		}
	}
	return out
}

// TestTagAttrMatchesTokenizer: attribute keys in lower case and values with
// their references decoded, as the Tokenizer gives them, on the references
// the scanner decodes itself (&amp; &quot; &lt; &gt; &#39; &#x27; &apos;)
// and those it leaves to x/net/html.
func TestTagAttrMatchesTokenizer(t *testing.T) {
	for _, body := range []string{
		`<a HREF="/x?a=1&amp;b=2&amp;c=3" Data-X='{&quot;k&quot;:&quot;v&quot;}'>`,
		`<div CLASS="a &lt;b&gt; c" ID=x&#39;y title="it&#x27;s &apos;q&apos;">`,
		`<img src="a.png?x=1&region=US&amp" alt="&AMP; &Amp; &#38; &#34;&#60;&#62;">`,
		`<p title="&notit; &notin; &copy &copy; &#x1F600; &#128512; &#0; &#xD800;">`,
		`<p a="&amp;&amp;&amp;" b=&quot;unquoted&quot; c='&' d="&;" e="&#;" f="&#x;">`,
		`<p ÄB="x" b="é&eacute;" B="dup" a="second">`,
		"<a 0='\r' b=\"x\r\ny\ry&#13;\" c=z\r>",
	} {
		ours, theirs := tagAttrs([]byte(body))
		if !reflect.DeepEqual(ours, theirs) {
			t.Errorf("%s:\nscanner %q\nx/net   %q", body, ours, theirs)
		}
	}
}

func FuzzTagAttr(f *testing.F) {
	f.Add([]byte(`<a href="/x?a=1&amp;b=2" data-x='{&quot;k&quot;:1}' T=&#39;>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ours, theirs := tagAttrs(body)
		if !reflect.DeepEqual(ours, theirs) {
			t.Fatalf("scanner %q\nx/net   %q", ours, theirs)
		}
	})
}
