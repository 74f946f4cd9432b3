package bench

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

func TestDetectCharset(t *testing.T) {
	tests := []struct {
		name, page  string
		want        string
		declared    bool
		contentType string
	}{
		{"meta gb2312", `<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312">` + "\xd6\xd0", "gbk", true, "text/html; charset=gbk"},
		{"meta charset utf-8", `<meta charset="UTF-8"><p>caf` + "\xc3\xa9", "utf-8", true, "text/html; charset=utf-8"},
		{"latin1 declared", `<meta http-equiv=content-type content="text/html;charset=iso-8859-1"><p>caf` + "\xe9", "windows-1252", true, "text/html; charset=windows-1252"},
		{"bom", "\xef\xbb\xbf<p>x", "utf-8", true, "text/html; charset=utf-8"},
		{"undeclared utf-8", "<p>caf\xc3\xa9", "utf-8", false, "text/html; charset=utf-8"},
		{"undeclared ascii", "<p>plain", "utf-8", false, "text/html"},
		{"undeclared bytes", "<p>caf\xe9", "windows-1252", false, "text/html"},
		{"meta utf-16 is utf-8", `<meta charset="utf-16"><p>x`, "utf-8", true, "text/html; charset=utf-8"},
		{"unknown label", `<meta charset="x-nonsense"><p>x`, "utf-8", false, "text/html"},
	}
	for _, tt := range tests {
		cs := detectCharset([]byte(tt.page))
		if cs.name != tt.want || cs.declared != tt.declared {
			t.Errorf("%s: %s declared=%v, want %s %v", tt.name, cs.name, cs.declared, tt.want, tt.declared)
		}
		if ct := cs.contentType([]byte(tt.page)); ct != tt.contentType {
			t.Errorf("%s: Content-Type %q, want %q", tt.name, ct, tt.contentType)
		}
	}
	if (pageCharset{name: "windows-1252"}).editable("zh") {
		t.Error("undeclared non-UTF-8 Chinese page is editable")
	}
}

// TestRoundTripGBK: a GBK page edited keeps its encoding, and a character
// GBK lacks becomes a character reference.
func TestRoundTripGBK(t *testing.T) {
	page := []byte(`<html><head><meta charset="gbk"><title>` + "\xd6\xd0\xce\xc4" + `</title></head><body><p>x</p></body></html>`)
	cs := detectCharset(page)
	root, err := parsePage(page, cs)
	if err != nil {
		t.Fatal(err)
	}
	body := nodeByTag(root, "body")
	body.AppendChild(text("中文 ☃"))
	out, err := renderPage(root, cs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("\xd6\xd0\xce\xc4 &#9731;")) {
		t.Errorf("GBK output %q lacks the GBK text and the reference", out)
	}
}

func nodeByTag(root *html.Node, tag string) *html.Node {
	var out *html.Node
	walk(root, func(n *html.Node) bool {
		if out == nil && n.Type == html.ElementNode && n.Data == tag {
			out = n
		}
		return out == nil
	})
	return out
}

func TestTokens(t *testing.T) {
	got := strings.Join(tokens("Hello, World 42 新闻报道 x"), "|")
	if want := "hello|world|42|新|闻|报|道|x"; got != want {
		t.Errorf("tokens = %s, want %s", got, want)
	}
}

const framePage = `<html><head><title>Old story headline here - Daily</title></head><body>
<div id="nav"><a href="/news">News</a> <a href="/sport?x=1">Sport</a> <a href="http://other.example/">Other</a></div>
<div class="ad-slot"><a href="http://ads/1">Old ad text</a></div>
<div id="crumbs">Old story headline here</div>
<div id="story"><h1>Old story headline here</h1><p>The old story tells of a river that flooded the valley in spring.</p>
<p>Farmers lost their crops and the mayor asked for help from the capital.</p><span>12 comments</span></div>
<div id="comments" class="comment-list"><p>Reader one: I remember the flood of the river in the valley, it was terrible for everyone.</p>
<p>Reader two: The mayor should have asked the capital for help much earlier than he did, in my opinion, and so on.</p></div>
<div class="has-comments-link"><a href="#comments">3 comments</a></div>
<form action="/search"><input type="text" name="q"></form>
<div id="footer">Copyright Daily 2008. Updated 10:42.</div></body></html>`

const frameGold = "Old story headline here\nThe old story tells of a river that flooded the valley in spring.\nFarmers lost their crops and the mayor asked for help from the capital."

func TestMainContent(t *testing.T) {
	root, err := html.Parse(strings.NewReader(framePage))
	if err != nil {
		t.Fatal(err)
	}
	mc := mainContent(root, frameGold)
	if mc == nil {
		t.Fatal("no main content")
	}
	if id, _ := attr(mc, "id"); id != "story" {
		t.Errorf("main content is <%s id=%q>, want div#story", mc.Data, id)
	}
	if mainContent(root, "nothing of this is on the page at all") != nil {
		t.Error("main content found for a gold text not on the page")
	}
}

func TestSyndicate(t *testing.T) {
	root, _ := html.Parse(strings.NewReader(framePage))
	src := "Wire story about elections\nVoters went to the polls on Tuesday.\nTurnout was high."
	if !syndicate(root, frameGold, src) {
		t.Fatal("syndicate failed")
	}
	var buf bytes.Buffer
	if err := html.Render(&buf, root); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"<title>Wire story about elections - Daily</title>", "<h1>Wire story about elections</h1>",
		"<p>Voters went to the polls on Tuesday.</p>", `<div id="nav">`, "Copyright Daily 2008", "Old ad text"} {
		if !strings.Contains(out, want) {
			t.Errorf("syndicated page lacks %q", want)
		}
	}
	if !strings.Contains(out, "has-comments-link") {
		t.Error("a short element naming comments was removed")
	}
	for _, gone := range []string{"river", "Old story headline here", "Reader one"} {
		if strings.Contains(out, gone) {
			t.Errorf("syndicated page still has %q:\n%s", gone, out)
		}
	}
}

// TestSyndicateHostRemnants: the syndicated page holds one story. What of
// the host's story stands outside its main element goes (a list the element
// did not hold), host headline copies name the new story, and a story of one
// line is a paragraph only: no headline, and no copy of it elsewhere.
func TestSyndicateHostRemnants(t *testing.T) {
	const host = `<html><head><title>Top five posts of the week - Blog</title></head><body>
<div id="nav"><a href="/">Home</a> <a href="/about">About this blog and its authors</a></div>
<div id="crumbs">Top five posts of the week</div>
<div class="outer"><div id="post"><h2>Top five posts of the week</h2><p>Sunday, October 21, 2012: here are the top five posts of the week, in the order readers liked them.</p></div>
<ul class="list"><li><a href="/1">Thirteen of the worst unnecessary quotation marks ever seen</a></li><li><a href="/2">Seven of the worst celebrity ads of the last seven years</a></li></ul>
<div class="side"><p>The blogroll lists sites worth visiting on any day of the week, and a few on Sundays.</p><p>Subscribe to the feed to read every post as it comes, or follow the blog by email.</p></div></div>
<div id="footer">Copyright Blog 2012.</div></body></html>`
	const hostGold = "Top five posts of the week\nSunday, October 21, 2012: here are the top five posts of the week, in the order readers liked them.\n" +
		"Thirteen of the worst unnecessary quotation marks ever seen\nSeven of the worst celebrity ads of the last seven years"
	for _, tc := range []struct {
		name, src    string
		want, absent []string
	}{
		{"a story with a headline", "Faculty position at Waterloo\nExperimental philosophers fit the description of this position.",
			[]string{"<title>Faculty position at Waterloo - Blog</title>", `<div id="crumbs">Faculty position at Waterloo</div>`,
				"<h1>Faculty position at Waterloo</h1>", "<p>Experimental philosophers fit the description of this position.</p>",
				"About this blog", "The blogroll lists", "Copyright Blog"},
			[]string{"Thirteen of the worst", "Seven of the worst", "Sunday, October 21", "Top five posts"}},
		{"a story of one line", "Experimental philosophers fit the description of this position at Waterloo, and their applications are welcome.",
			[]string{"<title>Top five posts of the week - Blog</title>", "<p>Experimental philosophers fit", "The blogroll lists"},
			[]string{"<h1>", `<div id="crumbs">Top five`, "Thirteen of the worst"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := html.Parse(strings.NewReader(host))
			if !syndicate(root, hostGold, tc.src) {
				t.Fatal("syndicate failed")
			}
			var buf bytes.Buffer
			if err := html.Render(&buf, root); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("syndicated page lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("syndicated page has %q:\n%s", a, out)
				}
			}
			if n := strings.Count(out, "Experimental philosophers"); n != 1 {
				t.Errorf("the story is on the page %d times, want once", n)
			}
		})
	}
}

func TestRecapture(t *testing.T) {
	root, _ := html.Parse(strings.NewReader(framePage))
	rng := rand.New(rand.NewPCG(1, 2))
	when := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	related := []link{{"http://daily.example/a", "Another story"}, {"http://daily.example/b", "Third story"}}
	recapture(root, rng, "http://daily.example/old", frameGold, when, related, false)
	var buf bytes.Buffer
	if err := html.Render(&buf, root); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"Last updated Mon, 02 Mar 2026 06:00:00 UTC", `name="csrf_token"`,
		`<div class="related-articles">`, `href="http://daily.example/a"`, "ads.example-adserver.com", "page served in"} {
		if !strings.Contains(out, want) {
			t.Errorf("re-capture lacks %q", want)
		}
	}
	for _, gone := range []string{"12 comments", "Old ad text", `href="/news"`, "10:42"} {
		if strings.Contains(out, gone) {
			t.Errorf("re-capture still has %q", gone)
		}
	}
	if !strings.Contains(out, `href="http://other.example/"`) {
		t.Error("a link to another site got a session id")
	}
	// The story itself is untouched, and the related list follows it.
	if !strings.Contains(out, "Farmers lost their crops") || strings.Index(out, "related-articles") < strings.Index(out, "Farmers") {
		t.Error("story changed or related list before it")
	}
}

func TestCopyURL(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tests := []struct{ host, title, keep, drop string }{
		{"http://www.guardian.co.uk/world/2008/jan/05/zoo-keeper-bitten-by-bear", "Polar bear cubs die", "/world/2008/jan/05/polar-bear-cubs-die", "zoo-keeper"},
		{"http://www.localnewsleader.com/brocktown/stories3/index.php?action=fullnews&id=236068", "X", "action=fullnews&id=", "236068"},
		{"http://news.163.com/special/7.html", "中文标题 2014", "http://news.163.com/special/article-", "7.html"},
		{"http://www.sohu.com/a/0b2c.html", "Two words", "http://www.sohu.com/a/two-words-", "0b2c"},
	}
	for _, tt := range tests {
		got := copyURL(tt.host, tt.title, rng)
		if got == tt.host || !strings.Contains(got, tt.keep) || (tt.drop != "" && strings.Contains(got, tt.drop)) {
			t.Errorf("copyURL(%s, %q) = %s", tt.host, tt.title, got)
		}
	}
}

// TestAdNamed: an advert's slot is named so; a WordPress post whose category
// or tag names advertising is a story about it, and its re-capture keeps it.
func TestAdNamed(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ad bool
	}{
		{"ad-slot", true},
		{"sidebar banner_300", true},
		{"sponsored", true},
		{"post type-post category-white-label-native-advertising-platform", false},
		{"hentry tag-sponsored-content", false},
		{"header_color av_header_top", false},
		{"download", false},
	} {
		if got := adNamed(tc.v); got != tc.ad {
			t.Errorf("adNamed(%q) = %v, want %v", tc.v, got, tc.ad)
		}
	}
}
