package features

import (
	"strings"
	"testing"
)

// TestMainRegion: a page that marks its content with <main> or role="main"
// and has little running text gets the region's text as its main text, less
// what the region marks as no content; an article in a <main> keeps its
// story; a page without a main region is untouched.
func TestMainRegion(t *testing.T) {
	items := ""
	for _, it := range []string{"Oak dining table, seats six", "Walnut side table with drawer", "Pine bookcase, five shelves",
		"Birch desk with cable tray", "Teak garden bench for two", "Maple bed frame, queen size"} {
		items += `<li><a href="/p">` + it + `</a></li>`
	}
	nav := `<nav><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop</a></li></ul></nav>`
	rows := ""
	for _, it := range []string{"Building fittings", "Cabinet hardware", "Clamps (engineering)", "Cutlery", "Door fittings",
		"Files and rasps", "Hinges", "Locks and keys", "Nails and spikes", "Screws and bolts", "Tools, hand", "Wire rope"} {
		rows += `<tr><td><a href="/b">` + it + ` -- Catalogs</a></td><td>12 titles in the collection since 1890</td></tr>`
	}
	for _, tc := range []struct {
		name      string
		page      string
		want      []string // in the main text
		wantNot   []string // not in it
		main      bool     // some main text found
		wantWords int      // at least this many words, if set
	}{
		{"listing in main", `<body>` + nav + `<main><h1>Tables and desks</h1><ul>` + items + `</ul>` +
			`<header><p>Filter by price</p></header><form><p>Sort by newest first</p></form>` +
			`<div role="navigation"><a href="/2">Next page of results</a></div>` +
			`<div hidden><p>Added to your basket, continue shopping or check out now please.</p></div></main>` +
			`<footer>Copyright Example Furniture</footer></body>`,
			[]string{"walnut side table", "maple bed frame", "tables and desks"},
			[]string{"home", "filter by price", "sort by newest", "next page", "basket", "copyright"}, true, 0},
		{"listing in role=main", `<body>` + nav + `<div role="main"><h1>Tables and desks</h1><ul>` + items + `</ul></div>` +
			`<div class="promo"><p>Sign up to our newsletter.</p></div></body>`,
			[]string{"walnut side table", "teak garden bench"}, []string{"newsletter"}, true, 0},
		{"article in main", `<body>` + nav + `<main><h1>Bridge to close</h1>` + storyPara + `<ul>` + items + `</ul></main></body>`,
			[]string{"bridge"}, []string{"walnut side table"}, true, 0},
		{"listing without main", `<body>` + nav + `<div><h1>Tables and desks</h1><ul>` + items + `</ul></div></body>`,
			nil, []string{"walnut side table"}, false, 0},
		{"template and dialog are no content", `<body><main><h1>Tables and desks</h1><ul>` + items + `</ul>` +
			`<template><p>Install this app on your home screen for a better experience.</p></template>` +
			`<dialog><p>Tap the share icon, then add to home screen.</p></dialog></main></body>`,
			[]string{"oak dining table"}, []string{"install this app", "share icon"}, true, 0},
		{"a popover is no content", `<body>` + storyPara + `<i-card popover id="push"><div class="card"><p>To install this app on ` +
			`your phone, tap the share icon in the browser, scroll the menu and tap add to home screen, then tap add in the ` +
			`top-right corner of the screen and confirm that you want it.</p></div></i-card><div popover><p>This site is best ` +
			`viewed with notifications on, which you can turn on in the settings of the browser at any time you like.</p></div></body>`,
			[]string{"the council said"}, []string{"install this app", "notifications"}, true, 0},
		{"a dialog role is no content", `<body>` + storyPara + `<div class="modal fade" role="dialog"><div class="modal-body">` +
			`<p>Examine your purchase in the privacy and convenience of your own home, knowing that it comes with a 30-day ` +
			`return privilege for a refund of the purchase price of any item you return to us.</p></div></div>` +
			`<div role="alertdialog"><p>Thank you! Your submission has been received and we will be in touch with you soon.</p></div></body>`,
			[]string{"the council said"}, []string{"return privilege", "submission"}, true, 0},
		{"main inside a wrapper named as furniture", `<body><div class="layout__2-sidebars-inline">` +
			`<main><h1>WebSocket</h1><p>The WebSocket object provides the API for creating and managing a connection to a server.</p>` +
			`<dl><dt>WebSocket.bufferedAmount</dt><dd>The number of bytes of queued data.</dd><dt>WebSocket.protocol</dt>` +
			`<dd>The sub-protocol selected by the server.</dd><dt>WebSocket.readyState</dt><dd>The current state of the connection.</dd>` +
			`<dt>WebSocket.url</dt><dd>The absolute URL of the WebSocket.</dd></dl></main>` +
			`<aside class="layout__left-sidebar"><p>Guides and references to web technologies, with the pages of the API that you are reading now.</p></aside>` +
			`</div></body>`,
			[]string{"queued data", "sub-protocol selected", "absolute url"}, []string{"guides and references"}, true, 0},
		{"listing without main, a caption of prose", `<body>` + nav + `<h1>Hardware catalogs</h1>` +
			`<p>See also what is at your library, or elsewhere in the world.</p><table>` + rows +
			`</table><div class="sidebar"><p>Our sponsors keep this site online and free for everyone.</p></div></body>`,
			[]string{"see also what", "cabinet hardware", "door fittings", "files and rasps"},
			[]string{"home", "sponsors"}, true, 0},
		{"short story in a story body", `<body>` + nav + `<div class="entry-content"><p>The bridge will close on Monday ` +
			`for repairs, the council said.</p></div><table>` + rows + `</table></body>`,
			[]string{"the bridge will close"}, []string{"cabinet hardware"}, true, 0},
		{"short story after its headline", `<head><title>Bridge to close | Example News</title></head><body>` + nav +
			`<div><h1>Bridge to close</h1><p>The bridge will close on Monday for repairs, the council said on Friday.</p></div>` +
			`<table>` + rows + `</table></body>`,
			[]string{"the bridge will close"}, []string{"cabinet hardware"}, true, 0},
		{"short post in an article inside the main region", `<head><title>Broken arrows - Example</title></head><body>` + nav + `<div role="main"><article><header><h1>Tag list</h1></header>` +
			`<section class="content"><h1>Broken arrows</h1><p>A perfect song by a band from the coast, and a big thanks to a friend for showing it to me.</p></section>` +
			`</article><div id="reactions"><span>What is your reaction? 0 0 0 reactions</span></div><div id="links"><ul>` + items + `</ul></div></div></body>`,
			[]string{"a perfect song"}, []string{"reaction", "walnut side table"}, true, 0},
		{"listing with a story", `<body>` + nav + `<div>` + storyPara + storyPara + `</div><table>` + rows + `</table></body>`,
			[]string{"the council said"}, []string{"cabinet hardware"}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mainTextExtractor(t)
			d := e.Extract([]byte(tc.page), "text/html", "http://shop.example/tables")
			if d.MainText != tc.main {
				t.Fatalf("MainText %v, want %v", d.MainText, tc.main)
			}
			got := mainTextString(e, d)
			if !tc.main {
				return
			}
			checkWords(t, got, tc.want, tc.wantNot)
		})
	}
}

// TestShopMarkup: JSON-LD's schema.org product and catalogue types and Open
// Graph's product og:type make a shop page; an article's JSON-LD, a list of
// breadcrumbs and a type named only in the text do not.
func TestShopMarkup(t *testing.T) {
	ld := func(json string) string {
		return `<html><head><script type="application/ld+json">` + json + `</script></head><body><p>Text.</p></body></html>`
	}
	for _, tc := range []struct {
		name string
		page string
		shop bool
	}{
		{"product", ld(`{"@context":"https://schema.org","@type":"Product","name":"Rambler 20 oz"}`), true},
		{"product in a graph", ld(`{"@graph":[{"@type":"WebPage"},{"@type" : "Offer","price":"35.00"}]}`), true},
		{"type array", ld(`{"@type":["ItemList"],"itemListElement":[]}`), true},
		{"collection page", ld(`{"@type":"CollectionPage","name":"Sofas"}`), true},
		{"article", ld(`{"@type":"NewsArticle","headline":"Bridge to close"}`), false},
		{"breadcrumbs", ld(`{"@type":"BreadcrumbList","itemListElement":[{"@type":"ListItem","position":1}]}`), false},
		{"JSON-LD in another script type", `<script type="text/javascript">var x = {"@type":"Product"};</script><p>Text.</p>`, false},
		{"og:type product", `<head><meta property="og:type" content="product"></head><body><p>Text.</p></body>`, true},
		{"og:type product.group, content first", `<head><meta content="product.group" property="og:type"></head>`, true},
		{"og:type article", `<head><meta property="og:type" content="article"></head>`, false},
		{"product named in the text", `<body><p>"@type": "Product" is how a shop marks its items.</p></body>`, false},
		{"add to bag button", `<body><h1>Rambler 20 oz Tumbler</h1><p>$35.00</p><button class="btn"> Add to Bag </button></body>`, true},
		{"buy now link", `<body><p>Text.</p><a href="/checkout">Buy Now</a></body>`, false},
		{"cart named in a sentence", `<body><p>Shoppers who add to cart and leave are the retailer's puzzle.</p></body>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mainTextExtractor(t)
			if d := e.Extract([]byte(tc.page), "text/html", ""); d.Shop != tc.shop {
				t.Errorf("Shop %v, want %v", d.Shop, tc.shop)
			}
		})
	}
	// An Extractor forgets the previous page's markup.
	e := mainTextExtractor(t)
	e.Extract([]byte(ld(`{"@type":"Product"}`)), "text/html", "")
	if d := e.Extract([]byte(`<p>Text.</p>`), "text/html", ""); d.Shop {
		t.Error("Shop carried over to the next page")
	}
}

// TestNoscriptContent: a large <noscript> element's markup is read as the
// page's (a Discourse thread serves its posts there); a small one, a
// tracking pixel's or a "please enable JavaScript", stays out of the text.
func TestNoscriptContent(t *testing.T) {
	posts := ""
	for i := range 12 {
		posts += `<div class="topic-body crawler-post"><p>Post ` + string(rune('a'+i)) + `: ` + storyPara[3:len(storyPara)-4] + `</p></div>`
	}
	for _, tc := range []struct {
		name    string
		page    string
		want    []string
		wantNot []string
	}{
		{"posts in noscript", `<body><section id="splash">Loading</section><noscript><div id="main-outlet">` + posts + `</div></noscript></body>`,
			[]string{"post a: the council said", "post l: the council said"}, nil},
		{"small noscript", `<body><p>` + storyPara[3:] + `<noscript><p>Please enable JavaScript to view the comments powered by a widget.</p></noscript></body>`,
			[]string{"the council said"}, []string{"enable javascript"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mainTextExtractor(t)
			d := e.Extract([]byte(tc.page), "text/html", "")
			checkWords(t, mainTextString(e, d), tc.want, nil)
			checkWords(t, string(e.Text()), nil, tc.wantNot)
		})
	}
}

// TestNotices: cookie banners and notices about the reader's browser are no
// text, however much they read like prose; a story that speaks of browsers
// or cookies at length is.
func TestNotices(t *testing.T) {
	long := strings.Repeat("The browser makers said on Tuesday that the update would reach every user by the end of the year, and that older versions would not be supported. ", 8)
	for _, tc := range []struct {
		text   string
		notice bool
	}{
		{"You are using an out of date browser. It may not display this or other websites correctly. You should upgrade or use an alternative browser.", true},
		{"This page is best viewed in an up-to-date web browser with style sheets (CSS) enabled.", true},
		{"For the best viewing experience, please enable JavaScript in the settings of your device.", true},
		{"This website uses cookies to improve your experience. By using it you accept our cookie policy.", true},
		{"Your email address will not be published. Required fields are marked with a star, and comments are welcome.", true},
		{"Thank you: your comment is now in the moderation queue and should appear on the page shortly.", true},
		{"If you are having a problem with the tutorial, please check the forum for an answer. If you would like to proceed with posting your comment, click Submit Comment.", true},
		{"Please be polite and stay on topic when you write here, then press Post Comment below and wait.", true},
		{"Copyright 2008 The Associated Press. All rights reserved. This material may not be published, broadcast, rewritten or redistributed.", true},
		{"© 2006, Earth Tones - All Rights Reserved. Site by a local studio of the valley.", true},
		{"The publisher said all rights to the book would return to its author at the end of next year.", false},
		{"The council said it would read every comment the public sent before the vote on the new bridge.", false},
		{"The council said on Tuesday that the new bridge would be finished by the end of the year.", false},
		{long, false},
	} {
		page := `<body><div class="box"><p>` + tc.text + `</p></div><div class="story"><p>` + storyPara[3:] + `</div></body>`
		e := mainTextExtractor(t)
		d := e.Extract([]byte(page), "text/html", "")
		got := mainTextString(e, d)
		first := strings.ToLower(strings.Fields(tc.text)[0] + " " + strings.Fields(tc.text)[1])
		if in := strings.Contains(got, first); in == tc.notice {
			t.Errorf("%.50q: in the main text %v, want %v:\n%s", tc.text, in, !tc.notice, got)
		}
	}
}

// TestNoticeInStoryBody: a wire service's copyright line inside the story's
// own container stays out of the main text, though the container's other
// blocks are taken for where they stand (bodyText).
func TestNoticeInStoryBody(t *testing.T) {
	page := `<body><div class="entry-content">` + storyPara + storyPara +
		`<p>Copyright 2008 The Associated Press. All rights reserved. This material may not be published, broadcast, rewritten or redistributed.</p>` +
		`</div></body>`
	e := mainTextExtractor(t)
	d := e.Extract([]byte(page), "text/html", "")
	checkWords(t, mainTextString(e, d), []string{"the council said"}, []string{"associated press", "rights reserved"})
}

// checkWords holds a text to holding each of want and none of wantNot.
func checkWords(t *testing.T, text string, want, wantNot []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	for _, w := range wantNot {
		if strings.Contains(text, w) {
			t.Errorf("text holds %q:\n%s", w, text)
		}
	}
}

// TestCodeBlocks: a program in <pre> between a document's paragraphs is
// the document's, though it has no stopwords; one among links, or in page
// furniture, is not.
func TestCodeBlocks(t *testing.T) {
	code := `<pre><code>const response = await fetch(url);
if (!response.ok) { throw new Error(response.status); }
const json = await response.json();</code></pre>`
	menu := `<ul><li><a href="/">Home</a></li><li><a href="/docs">Docs</a></li><li><a href="/api">API</a></li></ul>`
	tests := []struct {
		name       string
		page       string
		want, drop []string
	}{
		{"between two paragraphs of a manual",
			`<body>` + menu + `<div class="doc">` + storyPara + code + storyPara + `</div>` + menu + `</body>`,
			[]string{"fetch", "response", "council"}, nil},
		{"after the last paragraph, before the links",
			`<body>` + menu + `<div class="doc">` + storyPara + `</div>` + menu + code + menu + `</body>`,
			[]string{"council"}, []string{"fetch"}},
		{"in a footer",
			`<body>` + menu + `<div class="doc">` + storyPara + `<footer>` + code + `</footer>` + storyPara + `</div>` + menu + `</body>`,
			[]string{"council"}, []string{"fetch"}},
		// A manual's sentences between its examples are short and link what
		// they name, so they are no neighbours that read as prose: the
		// examples in the page's main region, an article or a story body
		// are its content all the same.
		{"in <main>, among short linked sentences",
			`<body>` + menu + `<main>` + storyPara + `<p>Call <a href="/fetch">fetch()</a> with a <a href="/url">URL</a>:</p>` + code +
				`<p>Then read <a href="/json">json()</a>.</p>` + `</main>` + menu + `</body>`,
			[]string{"council", "fetch", "json", "throw"}, nil},
		{"in an article",
			`<body>` + menu + `<article>` + storyPara + `<h2>Example</h2>` + code + `</article>` + menu + `</body>`,
			[]string{"council", "throw"}, nil},
		{"in <main>, inside a container named as furniture",
			`<body>` + menu + `<main>` + storyPara + `<div class="sidebar">` + code + `</div></main>` + menu + `</body>`,
			[]string{"council"}, []string{"throw"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkMainText(t, tc.page, tc.want, tc.drop) })
	}
}

// TestSiblingPosts: a thread's one-line posts stand where its long posts
// stand (the same nesting, each opening a post container), so they are
// text though too short for jusText's classes; a one-line blurb elsewhere
// is not, nor is a short block beside a story's single first paragraph. A
// post that links under half of its text is a post too.
func TestSiblingPosts(t *testing.T) {
	post := func(user, text string) string {
		return `<article class="message"><div class="user"><a href="/u/` + user + `">` + user + `</a><span>Member</span></div>` +
			`<div class="body"><div class="wrap"><p>` + text + `</p></div></div><div class="bar"><a href="#">Like</a> <a href="#">Reply</a></div></article>`
	}
	long1 := "You and your closest friends have been chosen by a twist of fate to prevent the end of the world, and you are sent on an adventure to gather the melodies that will save it from what is coming."
	long2 := "If you do not find the powers you hoped for on the way, you can always make do with what you have, and with the people who came with you from the start of the journey."
	menu := `<ul><li><a href="/">Forums</a></li><li><a href="/new">New posts</a></li><li><a href="/search">Search</a></li></ul>`
	thread := `<body>` + menu + `<div class="thread">` + post("tissuebox", long1) + post("bassforever", "I can not comprehend the form of this thread at all.") +
		post("poltergust", long2) + post("manbig", "My friends and I do not pray, so we are done for.") +
		post("lurker", `Same here, see <a href="/t/9">the other thread</a> for the fix.`) + `</div>` +
		`<div class="side"><div class="box"><span>Tip: you can follow a thread to get an email when it is answered.</span></div></div>` + menu + `</body>`
	checkMainText(t, thread, []string{"melodies", "comprehend", "pray", "fix"}, []string{"tip", "follow"})
	// One good block at its place: a news story's first paragraph.
	story := `<body>` + menu + `<div class="story"><div class="lead"><p>` + long1 + `</p></div><p>` + long2 + `</p></div>` +
		menu + menu + `<div class="promo"><div class="lead"><p>Sign up and we will send you the week.</p></div></div>` + menu + `</body>`
	checkMainText(t, story, []string{"melodies", "powers"}, []string{"sign", "week"})
}
