package features

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzMaxDoc caps fuzz inputs the way production caps documents (Config.MaxDocBytes),
// smaller so that the fuzzer stays fast.
const fuzzMaxDoc = 1 << 20

var fuzzSeeds = []string{
	"<p>The cat is on the mat, and the dog has a bone.</p>",
	"<html><head><meta charset=gb2312></head><body>\xd6\xd0\xce\xc4\xa3\xac</body></html>",
	"\xff\xfe<\x00p\x00>\x00-N\x87e",
	"<script>document.write('<p>x</p>')</script><style>a{}</style><noscript>n</noscript>",
	"<img src='http://a.b/c.png'><img src=/d.jpg><a href=x>y</a>",
	"caf&eacute; &#x4E2D; &bogus; &#0; <b>wo</b>rd",
	"\x00\x01<\xff>\xc3(</p",
	"我的朋友是老师。他的学生很好！",
	// The main region, a large <noscript> read as markup, a popover, JSON-LD
	// and a shop's button.
	"<main><h1>T</h1><ul><li><a href=/a>One item</a></li></ul><header>h</header><div hidden>x</div></main>" +
		"<noscript><div class=post><p>" + strings.Repeat("The post is read as markup. ", 80) + "</p><noscript>n</div></noscript>" +
		"<i-card popover><p>Install the app.</p></i-card><template><p>t</p></template>" +
		`<script type="application/ld+json">{"@type":["Product"]}</script><button>Add to Cart</button>`,
}

// FuzzTokenize checks the text path on arbitrary bytes: no panic, valid UTF-8
// text with single spaces and no leading or trailing space.
func FuzzTokenize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "")
	}
	cfg := DefaultConfig()
	cfg.Families = 0
	cfg.MaxDocBytes = fuzzMaxDoc
	e, err := NewExtractor(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		d := e.Extract(body, contentType, "http://example.com/a")
		text := e.Text()
		if !utf8.Valid(text) {
			t.Fatalf("text is not valid UTF-8: %q", text)
		}
		if bytes.Contains(text, []byte("  ")) || bytes.HasPrefix(text, []byte(" ")) || bytes.HasSuffix(text, []byte(" ")) {
			t.Fatalf("text has stray spaces: %q", text)
		}
		if d.TextBytes != len(text) {
			t.Fatalf("TextBytes %d, text %d", d.TextBytes, len(text))
		}
	})
}

// FuzzExtract runs every family on arbitrary bytes: no panic, and the Doc survives
// a serialization round trip.
func FuzzExtract(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "text/html; charset=utf-8", "http://example.com/")
	}
	cfg := allFamilies()
	cfg.Families |= FamTextSimhash
	cfg.MaxDocBytes = fuzzMaxDoc
	e, err := NewExtractor(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType, pageURL string) {
		d := e.Extract(body, contentType, pageURL)
		if d.Spots.Len() > 0 && d.Words == 0 {
			t.Fatal("spots without words")
		}
		b, err := d.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d2 Doc
		if err := d2.UnmarshalBinary(b); err != nil {
			t.Fatalf("round trip: %v", err)
		}
		if !reflect.DeepEqual(d, d2) {
			t.Fatalf("round trip changed the Doc")
		}
	})
}

// FuzzDecode feeds arbitrary bytes to UnmarshalBinary: no panic, no allocation
// beyond what the input can hold (bag counts are checked against the remaining
// bytes), and whatever decodes re-encodes to something that decodes to the same Doc.
func FuzzDecode(f *testing.F) {
	e, _ := NewExtractor(allFamilies())
	for _, s := range fuzzSeeds {
		d := e.Extract([]byte(s), "", "")
		b, _ := d.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{docVersion})
	f.Add([]byte{docVersion, 0x3f, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Doc
		if err := d.UnmarshalBinary(data); err != nil {
			return
		}
		b, err := d.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d2 Doc
		if err := d2.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(d, d2) {
			t.Fatalf("re-encoding: %v", err)
		}
		for i := 1; i < len(d.Spots); i++ {
			if d.Spots[i].Key <= d.Spots[i-1].Key {
				t.Fatal("decoded bag out of order")
			}
		}
	})
}
