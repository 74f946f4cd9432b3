package dedup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

// shopPage returns a product page of a shop on a hosted platform: the
// shop's own short description and the platform's shipping note, which
// every shop on the platform shows in the same words.
func shopPage(shop, desc string) string {
	return fmt.Sprintf(`<!doctype html><html><head><title>%[1]s</title></head><body>
<nav><a href=/>%[1]s</a> <a href=/shop>Shop</a> <a href=/cart>Cart</a> %[3]s</nav>
<main><h1>%[1]s</h1><p>%[2]s</p>
<p>Free shipping is available on the orders over fifty dollars.</p></main>
<footer>Powered by the example commerce platform</footer></body></html>`, shop, desc, strings.Repeat("<a href=/collections>Collections</a> ", 30))
}

// TestWeakEvidence: a near duplicate of another site's page replaces it only
// when the two share enough content signatures (Options.MinEvidence); two
// different pages that share a platform's sentence are kept whole (and
// annotated with --near=annotate), and say why in the report, while a story
// syndicated to another site is still replaced. The default output keeps one
// record for each input record.
func TestWeakEvidence(t *testing.T) {
	weak := []page{
		{id: "coffee", url: "https://coffee.example/collections/beans",
			body: shopPage("Dark roast beans", "Our blend is roasted daily in small batches for strong cups.")},
		{id: "jacket", url: "https://jackets.example/collections/down",
			body: shopPage("Used down jackets", "This jacket was repaired by hand and keeps you warm in winter.")},
	}
	syndicated := []page{
		{id: "wire", url: "https://wire.example/news/1", body: story(41, 40, 0)},
		{id: "paper", url: "https://paper.example/world/1",
			body: strings.Replace(story(41, 40, 0), "the example news company", "the daily paper", 1)},
	}
	for _, tc := range []struct {
		name        string
		pages       []page
		minEvidence int
		action      string // of the second page's report line
		weak        bool   // the line gives the weak-evidence reason
	}{
		{"platform sentence, default", weak, DefaultOptions().MinEvidence, "keep", true},
		{"platform sentence, no minimum", weak, 0, "revisit", false},
		{"syndicated story, default", syndicated, DefaultOptions().MinEvidence, "revisit", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.MinEvidence = tc.minEvidence
			found, st, dups := nearFoundSims(t, opts, tc.pages)
			if found[1] != 0 || dups[1].Kind != "duplicate" {
				t.Fatalf("second page not found as a near duplicate of the first: %v %+v", found, dups[1])
			}
			d := dups[1]
			t.Logf("%s %.2f %s %q", d.Relation, d.Similarity, d.Action, d.Reason)
			if d.Method != "spotsigs" || d.Relation != "cross-site" || d.Action != tc.action {
				t.Errorf("%s %s %s, want spotsigs cross-site %s", d.Method, d.Relation, d.Action, tc.action)
			}
			if got := d.Reason != ""; got != tc.weak || (tc.weak && !strings.HasPrefix(d.Reason, "weak-evidence: ")) {
				t.Errorf("reason %q, want weak evidence: %v", d.Reason, tc.weak)
			}
			wantWeak, wantRevisits := 0, 1
			if tc.action == "keep" {
				wantWeak, wantRevisits = 1, 0
			}
			if st.WeakEvidence != wantWeak || st.NearRevisits != wantRevisits || st.Annotations != 0 ||
				st.NearCrossSite != wantRevisits || st.NearSameSite != 0 {
				t.Errorf("stats: %d weak, %d near revisits (%d same-site, %d cross-site), %d annotations; want %d, %d (0, %d), %d",
					st.WeakEvidence, st.NearRevisits, st.NearSameSite, st.NearCrossSite, st.Annotations,
					wantWeak, wantRevisits, wantRevisits, 0)
			}
		})
	}
}

// TestArchiveOrgBooksKept: in the 2008 Heritrix crawl of archive.org, two
// books' pages share one long reader review (0.705 on their main text):
// neither replaces the other, and the report says why.
func TestArchiveOrgBooksKept(t *testing.T) {
	in, err := os.ReadFile(testshared.Path(t, "warcs/archivesunleashed+aut/src/test/resources/warc/example.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var rep bytes.Buffer
	opts := DefaultOptions()
	opts.Report = &rep
	d := New(opts)
	if err := d.Run(bytes.NewReader(in), "example.warc.gz", io.Discard, true); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	found := false
	dec := json.NewDecoder(&rep)
	for {
		var dup Duplicate
		if dec.Decode(&dup) != nil {
			break
		}
		if strings.HasSuffix(dup.URI, "/details/manuchemianalqual00newtrich") {
			found = true
			if dup.Action != "keep" || !strings.HasPrefix(dup.Reason, "weak-similarity: ") {
				t.Errorf("%s: %s (%q), want it kept for weak similarity", dup.URI, dup.Action, dup.Reason)
			}
		}
	}
	if !found {
		t.Error("the two books' pages are no longer found as near duplicates at all: the test checks nothing")
	}
}

// blogFront returns a blog's front page showing the given posts in full
// (each a made-up story of n sentences), newest first, with a visitor
// counter in its sidebar.
func blogFront(visitors int, n int, posts ...uint64) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Notes from the harbour</title></head><body>
<nav><a href=/>Home</a> <a href=/about>About</a> <a href=/archive>Archive</a></nav><main>`)
	for _, p := range posts {
		_, post, _ := strings.Cut(story(p, n, 0), "<article>")
		post, _, _ = strings.Cut(post, "</article>")
		fmt.Fprintf(&b, "<article>%s<p class=meta>Posted by the harbour master</p></article>\n", post)
	}
	fmt.Fprintf(&b, `</main><aside>Visitors: %d</aside><footer>Notes from the harbour</footer></body></html>`, visitors)
	return b.String()
}

// TestOwnTextKept: a blog's front page captured again with a new post above
// the ones it showed before matches the earlier capture well above the
// threshold, but a revisit would throw the new post away: it is kept and
// the report says why (Options.OwnText). The same page captured again with
// only its visitor counter changed is still replaced.
func TestOwnTextKept(t *testing.T) {
	pages := []page{
		{id: "front", url: "http://blog.example/", body: blogFront(100, 12, 11, 12, 13, 14, 15)},
		{id: "counter", url: "http://blog.example/", body: blogFront(180, 12, 11, 12, 13, 14, 15)},
		{id: "new-post", url: "http://blog.example/", body: blogFront(250, 12, 16, 11, 12, 13, 14, 15)},
	}
	for _, tc := range []struct {
		name    string
		ownText int
		action  string // of the third page's report line
	}{
		{"default", DefaultOptions().OwnText, "keep"},
		{"no limit", 0, "revisit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.OwnText = tc.ownText
			found, st, dups := nearFoundSims(t, opts, pages)
			if found[1] != 0 || found[2] != 0 {
				t.Fatalf("captures not found as near duplicates of the first: %v", found)
			}
			if d := dups[1]; d.Action != "revisit" || d.Reason != "" {
				t.Errorf("counter changed: %s (%q), want a revisit", d.Action, d.Reason)
			}
			d := dups[2]
			t.Logf("new post: %s %.2f %s %q", d.Relation, d.Similarity, d.Action, d.Reason)
			if d.Relation != "same-site" || d.Similarity < DefaultOptions().SameSiteTau || d.Action != tc.action {
				t.Errorf("new post: %s %.2f %s, want same-site over the threshold, %s", d.Relation, d.Similarity, d.Action, tc.action)
			}
			if kept := tc.action == "keep"; kept != strings.HasPrefix(d.Reason, "own-text: ") {
				t.Errorf("new post: reason %q", d.Reason)
			}
			if d.Own < DefaultOptions().OwnText || dups[1].Own >= DefaultOptions().OwnText {
				t.Errorf("own_signatures: new post %d, counter changed %d", d.Own, dups[1].Own)
			}
			wantRevisits := 2
			if tc.action == "keep" {
				wantRevisits = 1
			}
			if st.NearRevisits != wantRevisits {
				t.Errorf("%d near revisits, want %d", st.NearRevisits, wantRevisits)
			}
		})
	}
}

// shopFrame is a page of a shop's blog whose frame holds a long paragraph of
// the shop's own prose in <main>, the same on every page, and whose post
// stands in a container named as furniture (a theme's "sidebar-widget").
func shopFrame(post uint64, visitors int) string {
	paras := func(seed uint64, n int) string {
		_, s, _ := strings.Cut(story(seed, n, 0), "</h1>")
		s, _, _ = strings.Cut(s, "</article>")
		return s
	}
	return fmt.Sprintf(`<!doctype html><html><head><title>Harbour Outfitters</title></head><body>
<nav><a href=/>Home</a> <a href=/shop>Shop</a> <a href=/blog>Blog</a></nav>
<main><div class=intro>%s</div></main>
<div class="sidebar-widget">%s</div>
<footer>Visitors: %d</footer></body></html>`, paras(900, 6), paras(post, 20), visitors)
}

// TestProseOutsideSameSite: on a site whose main text, as jusText's rules
// and the furniture names find it, is the frame's own paragraph, and whose
// posts stand in containers named as furniture, two pages with different
// posts match at 1.0 on that paragraph. Most of their prose is outside the
// main text (features.Doc.ProseOutside), so within the site each is compared
// with captures of its own URL only: the second post is kept, and a capture
// of the first post's URL is still replaced.
func TestProseOutsideSameSite(t *testing.T) {
	pages := []page{
		{id: "first", url: "http://shop.example/blog/first", body: shopFrame(31, 100)},
		{id: "second", url: "http://shop.example/blog/second", body: shopFrame(32, 110)},
		{id: "again", url: "http://shop.example/blog/first", body: shopFrame(31, 120)},
	}
	found, st, dups := nearFoundSims(t, DefaultOptions(), pages)
	if found[1] != -1 {
		t.Errorf("the second post was found as a duplicate of page %d: %s %.2f %s", found[1], dups[1].Relation, dups[1].Similarity, dups[1].Action)
	}
	if found[2] != 0 || dups[2].Action != "revisit" {
		t.Errorf("the first post captured again: found %d, %s; want a revisit of page 0", found[2], dups[2].Action)
	}
	if st.NearRevisits != 1 {
		t.Errorf("%d near revisits, want 1", st.NearRevisits)
	}
}
