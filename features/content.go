package features

import (
	"bytes"
	"cmp"
	"slices"
	"unicode/utf8"
)

// Main-text selection. SpotSigs keeps the natural-language part of a page by
// anchoring signatures at stopwords (SIGIR 2008, Sec. 1), but a site's frame
// has sentences too: "related articles" teasers, promotions, cookie notices,
// footers. Two copies of one story in two sites' frames then share only the
// story's signatures while each brings its own frame's, and the Jaccard falls
// with the share of the frame; on short stories the frame is most of the page
// (AF-SpotSigs paper, Sec. 1). With Config.MainText the spot-based families are
// computed from the blocks of the page that read as running text, chosen by the
// paragraph classifier of jusText (Pomikálek, "Removing Boilerplate and Duplicate
// Content from Web Corpora", 2011, Ch. 3): a block is a paragraph-level element;
// long blocks with many stopwords and few links are good, link lists and short
// blocks with no stopwords are bad, and short or borderline blocks take the class
// of their neighbours, so a byline or a one-sentence paragraph inside the story
// stays and a teaser among links goes. It is a per-page decision: it needs no
// other page of the site, unlike the frame filter of the matcher, which learns a
// site's frame only once it has seen several of its pages.

// block is one paragraph-level run of text: bytes [start, end) of Extractor.text.
type block struct {
	start, end int32
	link       int32 // bytes of text inside <a>
	heading    bool  // text inside h1-h6 or title
	chrome     bool  // text inside nav, footer, aside, form controls
	unlikely   bool  // text inside a container named as furniture (unlikelyName)
	comment    bool  // ... by a comment word alone (commentOnly), a discussion's posts on a discussion page
	positive   bool  // text inside a container named as content (positiveName)
	positiveIn bool  // ... that is inside one named as furniture (see contentFallback)
	body       bool  // text inside a container named as a story's body (bodyName)
	article    bool  // text inside an <article> element
	title      bool  // text of the <title> element
	inMain     bool  // text inside the page's <main> or role="main" element
	regionOut  bool  // text inside an element the main region leaves out (regionOutTag, regionOutRole)
	code       bool  // text inside <pre>: a program or a listing (see revise)
	// Container nesting (see nest): depth of the block's text, and the
	// shallowest depth since the text before it.
	depth, low int32
}

// noLow is block.low of a block that never had text (white space between
// tags): it is no boundary of a container's region.
const noLow = 1 << 30

// furniture says whether the block is page furniture by its markup: chrome
// elements and the <title> always, containers named so unless strict is off
// (see mainText). The title is no body text (jusText reads the body only):
// it carries the site's name, and a heading before the story repeats the
// rest.
func (b *block) furniture(strict bool) bool { return b.chrome || b.title || strict && b.unlikely }

// Block classes (jusText's).
const (
	clsNone uint8 = iota // no words
	clsBad
	clsShort
	clsNearGood
	clsGood
	// clsLinked: prose with more link text than jusText allows, less than
	// linkedProseDensity (see classify). It joins no run (runs) and is a
	// short block to revise: good only between good text.
	clsLinked
)

// jusText's parameters (Pomikálek 2011, Sec. 3.2.2), in bytes of normalized
// text: a CJK character is three bytes of UTF-8, which weighs it about as an
// English word of two letters and a space, close to the information it carries.
const (
	lengthLow          = 70
	lengthHigh         = 200
	maxLinkDensity     = 0.2
	linkedProseDensity = 0.5 // see classify: links on less than half of a prose block
	maxHeadingDist     = 200
)

// Stopword densities (stopwords / words of the block). jusText's 0.30 and 0.32 are
// for a full stop list of the language; ours (DefaultStopwords) is shorter,
// and in Chinese, where every character is a word, function characters are a
// far smaller share of words. The values were set on the corpus's gold texts
// (features/content_test.go measures what share of gold text is kept).
const (
	stopLow, stopHigh       = 0.22, 0.26
	stopLowCJK, stopHighCJK = 0.07, 0.09
)

// isBlockTag says whether an element starts and ends a paragraph-level block.
func isBlockTag(name []byte) bool {
	switch string(name) {
	case "p", "div", "li", "td", "th", "tr", "table", "tbody", "thead", "tfoot", "ul", "ol", "dl", "dt", "dd",
		"h1", "h2", "h3", "h4", "h5", "h6", "title", "blockquote", "pre", "article", "section", "main",
		"header", "footer", "nav", "aside", "address", "center", "figure", "figcaption", "form", "fieldset",
		"legend", "caption", "hr", "body", "html", "head", "iframe", "menu", "dir", "details", "summary",
		"option", "select", "textarea", "button", "label", "ins", "del", "template", "dialog":
		return true
	}
	return false
}

// chromeTag says whether text inside the element is page furniture whatever it
// reads like: navigation, footers, side boxes, form controls.
func chromeTag(name []byte) bool {
	switch string(name) {
	case "nav", "footer", "button", "label", "textarea", "template", "dialog":
		return true
	}
	return false
}

// selectEnds says whether a tag ends an open select element, as HTML's "in
// select" and "in select in table" insertion modes end it (HTML Living
// Standard, 13.2.6.4.16 and 17): an input, keygen or textarea start tag, and
// any tag of a table's structure. Pages leave a select open when a script
// fills its options; counted until its end tag, a select left open made the
// rest of the page form-control text, the story included (measured on a
// chinatibetnews.com story whose calendar's two selects are never closed).
func selectEnds(name []byte, open bool) bool {
	switch string(name) {
	case "input", "keygen", "textarea":
		return open
	case "td", "th", "tr", "tbody", "thead", "tfoot", "table", "caption":
		return true
	}
	return false
}

// selectTag follows select elements, which are form controls (chrome) and do
// not nest: a select start tag ends an open one.
func (e *Extractor) selectTag(name []byte, open bool) bool {
	isSelect := string(name) == "select"
	if e.bs.inSelect && (isSelect || selectEnds(name, open)) {
		e.cut()
		e.bs.chrome = max(e.bs.chrome-1, 0)
		e.bs.inSelect = false
	}
	if isSelect && open {
		e.cut()
		e.bs.chrome++
		e.bs.inSelect = true
	}
	return isSelect
}

func headingTag(name []byte) bool {
	switch string(name) {
	case "h1", "h2", "h3", "h4", "h5", "h6", "title":
		return true
	}
	return false
}

// blockState follows the open elements that matter for blocks while tokenizing.
// Depths are clamped at zero: real pages close elements they never opened.
type blockState struct {
	cur               block
	inLink            bool
	headDepth, chrome int
	inSelect          bool // a select is open (selectTag)
	preDepth          int
	// Containers whose class or id names page furniture (unlikely): depth of
	// each container element, and the one open unlikely region, if any.
	depth    [len(containers)]int
	unlikely region
	// unlikelyComment: the unlikely region's container is named by a
	// comment word alone (commentOnly); furnIn is the one open region of
	// a container inside it named as furniture otherwise (discussion.go).
	unlikelyComment bool
	furnIn          region
	// The one open region of a container named as a consent dialog
	// (consentName) or with the popover attribute: its text is chrome.
	consent region
	// The one open region of a container named as content (positiveName),
	// and whether it began inside the unlikely region.
	positive   region
	positiveIn bool
	// The one open region of a container named as a story's body
	// (bodyName), and whether the page has had one.
	body    region
	sawBody bool
	inTitle bool
	// The page's main region (see mainRegion): open <main> elements, the
	// one open container with role="main", and what the region leaves out:
	// open header and form elements, and the one open container whose role
	// or hidden attribute says it is no part of the content.
	main, regionOut int
	roleMain        region
	outRole         region
	sawMain         bool // the page has a main region
	hasText         bool // the current block has had text (its depth is set)
	nest            nest
}

// region is an element whose text is marked while it is open: which of the
// containers it is, and the depth of that kind where it began, so that its
// end tag is told from a nested one's.
type region struct {
	on    bool
	c, at int
	// nest is the container nesting (nest.n) before the region's element:
	// the region also ends when a container it is inside closes (nestTag).
	nest int
}

// start opens the region at container c, at depth.
func (r *region) start(c, depth int) { r.on, r.c, r.at = true, c, depth }

// ends closes the region if an end tag of container c at depth is its own,
// and says whether it was.
func (r *region) ends(c, depth int) bool {
	if r.on && r.c == c && r.at == depth {
		r.on = false
		return true
	}
	return false
}

// containers are the elements whose class or id is read for unlikelyName.
// An aside is furniture unless its class or id names content: it is meant
// for side boxes, but some blogs put the post itself in one (measured:
// celebbabylaundry.com's <aside class="blogPost">), so it is an unlikely
// container, left out on the first pass and taken on the retry, not chrome.
// Article and main elements are read for a story-body name only (bodyName).
var containers = [...]string{"div", "section", "aside", "-", "article", "main"}

const (
	asideIdx   = 2 // index of "aside" in containers
	articleIdx = 4 // index of "article"; "main" follows
)

// customIdx is the index in containers of every custom element (a name
// with a hyphen, HTML's valid custom element names): web components such as
// <i-card> hold whole dialogs. Only their popover attribute is read.
const customIdx = 3

func containerIdx(name []byte) int {
	// A switch, not a loop over containers: it is asked of every tag.
	switch string(name) {
	case "div":
		return 0
	case "section":
		return 1
	case "aside":
		return asideIdx
	case "article":
		return articleIdx
	case "main":
		return articleIdx + 1
	case "-":
		return customIdx
	}
	if bytes.IndexByte(name, '-') > 0 {
		return customIdx
	}
	return -1
}

// unlikelyName says whether an element's class and id values (lower case, read by
// containerNames into m) name page
// furniture: Readability's unlikely-candidate words (mozilla/readability,
// REGEXPS.unlikelyCandidates), unless a word naming content is there too
// (okMaybeItsACandidate, "and" included as there: "sidebar-and-content"). Sidebars of a blog carry whole sentences ("if you
// find anything interesting here, please link back"), which the paragraph
// classifier cannot tell from a short post; their names can. "dropdown"
// is added: a menu that opens on a click (Bootstrap's name, and most
// themes'), where news sites keep an author's bio. techcrunch.com's bio, 62
// words before the story, was its main text, and the story after a
// "Comments" link beyond it was cut as readers' comments. WCXB's word F1
// with the word and without: dragnet 0.8784 and 0.8761 (seven pages up,
// five of them techcrunch.com's), wcxb 0.8007 and 0.8006 (19 pages up, 3
// down: FAQ answers in dropdowns), the others the same. "modal" is added
// too: a dialog a script opens over the page (Bootstrap's name), hidden
// until then, as role="dialog" is (dialogRole) on pages that do not say
// so: neatorama.com's "email this post to a friend" form, a shop's size
// guide. With the word and without: wcxb 0.8051 and 0.8040 (collections
// 0.684 and 0.676, products 0.655 and 0.653), dragnet 0.8848 and 0.8846,
// the others the same. From trafilatura's discarded names (xpaths.py,
// OVERALL_DISCARD_XPATH), those that hold on our datasets: an author's bio
// box ("about_author", "author-bio", "author-box" and their spellings;
// trafilatura drops every "author", which cost dragnet 0.003 here: bylines
// sit inside stories), a share bar ("share-": "share" alone is also
// sharedaddy's wrapper around the story in one of nypost.com's templates and
// not in the next: two re-captures of a story across them were lost in the
// benchmark), an overlay, a button row and a
// subscription box. Their sentences are a site's, on every page: a comic
// post's one line lost to the bio under it (freelanceswitch.com) made its
// copies on other sites unfindable. With the words and without: wcxb
// 0.8058 and 0.8051, scrapinghub-aeb 0.9243 and 0.9213, dragnet 0.8858 and
// 0.8848, mozilla-readability 0.9112 and 0.9103, chinese-wced 0.8834 and
// 0.8830, l3s-gn1 0.9209 and 0.9207, the others the same. "copyright":
// a site's legal notice ("... registered trademarks of ... All rights
// reserved"), the same on every page, which sites put in a container so
// named rather than in <footer>; jusText reads it as prose. Two pages of
// nhl.com in dragnet (a game's story and the round-up that holds it), alone
// in a crawl so that the site's frame is not known yet, matched at 0.767
// with it: the round-up was replaced and its other games lost; without it
// they match at 0.594 and are a containment, both kept. With the word and without: dragnet 0.8923 and
// 0.8904 (ten pages up), chinese-wced 0.8842 and 0.8836, l3s-gn1 0.9224
// and 0.9222 (eight up, one down), cleaneval-final 0.9217 both (four up,
// two down), wcxb 0.8148 both (one page down); the benchmark's two seeds
// and wcxb decided the same, the 1.67 GB scaled set one true pair more.
// Also from trafilatura's list, a story's "most read" and "most popular"
// lists, "recommend"ed items and a "breadcrumb" trail (Readability has the
// plural only), the words of its list that took no page down here: with
// them and without, mozilla-readability 0.9157 and 0.9152 (three pages
// up), dragnet 0.8925 and 0.8923 (two), wcxb 0.8149 and 0.8148 (13 up,
// none down), l3s-gn1 and scrapinghub-aeb a page or two up, cleaneval-final
// one up and one down; the benchmark's seeds and wcxb decided the same, the
// scaled set 18,828 true pairs against 18,825, false ones 138 both. Its
// "widget", "promo", "newsletter", "rating" and "signup" each cost wcxb
// (widget 0.0041, its collections 0.016) or scrapinghub-aeb.
// Readability's words for comment sections are commentNames, apart: a
// discussion page keeps such containers (discussion.go).
func unlikelyName(m uint16) bool { return m&nameOK == 0 && m&(nameUnlikely|nameComment) != 0 }

var (
	okNames       = newWordSet("and", "article", "body", "column", "content", "main", "shadow")
	unlikelyNames = newWordSet("-ad-", "banner", "breadcrumbs", "combx", "cover-wrap",
		"disqus", "extra", "footer", "header", "legends", "menu", "related", "rss",
		"shoutbox", "sidebar", "skyscraper", "social", "sponsor", "supplemental", "ad-break", "agegate",
		"pagination", "pager", "popup", "dropdown", "modal",
		"about_author", "about-author", "aboutauthor", "author-bio", "author_bio", "authorbio", "author-box",
		"author_box", "authorbox", "share-", "overlay", "button", "subscribe",
		"copyright", "breadcrumb", "most-read", "most-popular", "recommend")
)

// consentName says whether an element's class and id values (lower case) name a cookie
// or consent dialog, whose text is never a page's content: trafilatura drops
// such elements outright (xpaths.py, OVERALL_DISCARD_XPATH: "cookie" in a
// class or id, "consent" in a class). Here: "consent", "gdpr", the names of
// the consent platforms most sites embed (OneTrust, its former name
// Optanon, Didomi, Usercentrics, Cookiebot), and "cookie" with a word that
// makes it a banner; not in the class names WordPress gives a post for its
// tags and categories. Their dialogs are long legal prose,
// the same on every site that runs them: a main text made of it makes pages
// of unrelated sites near duplicates (measured on wcxb: a forum thread, a
// recipe listing and a recipe page shared 106 signatures of OneTrust's
// text, Jaccard 0.46).
func consentName(v []byte) bool {
	// No word spans white space: a name none of whose words is anywhere in
	// v has no token to look at, and most have none.
	if !consentNames.in(v) && !bytes.Contains(v, []byte("cookie")) {
		return false
	}
	for len(v) > 0 {
		var tok []byte
		v = bytes.TrimLeft(v, " \t\r\n\f")
		if i := bytes.IndexAny(v, " \t\r\n\f"); i >= 0 {
			tok, v = v[:i], v[i:]
		} else {
			tok, v = v, nil
		}
		if len(tok) == 0 {
			break
		}
		// WordPress names a post's tags and categories in its class
		// ("tag-cookie-recipes"): they say what the post is about.
		if bytes.HasPrefix(tok, []byte("tag-")) || bytes.HasPrefix(tok, []byte("category-")) {
			continue
		}
		if consentNames.in(tok) {
			return true
		}
		// A cookie banner, not a page about cookies: a site's cookie
		// policy is a page of its own (measured: data.gov.uk's
		// <div id="cookies-policy"> holds the policy page's text).
		if bytes.Contains(tok, []byte("cookie")) && cookieBannerNames.in(tok) {
			return true
		}
	}
	return false
}

var (
	consentNames      = newWordSet("consent", "gdpr", "onetrust", "optanon", "didomi", "usercentrics", "cookiebot")
	cookieBannerNames = newWordSet("banner", "notice", "bar", "popup", "pop-up", "law", "message", "alert",
		"modal", "overlay", "dialog", "accept", "warning", "notification", "disclaimer")
)

// An element with the popover attribute is hidden until a script shows it,
// as a consent dialog is: its text is chrome. Invision forums keep their
// app-install help in one, the same text on every forum of the platform;
// as the only prose jusText found on two threads of two forums, it made
// them near duplicates at 0.67 (wcxb).
//
// So is an element whose role is dialog or alertdialog (WAI-ARIA 1.2): a
// modal a script opens over the page, as HTML's <dialog> element, which is
// chrome. Shops keep their guarantees, region pickers and sign-up forms in
// them, and a blog its newsletter box: as the only prose of a category
// page, such text is the same on every page of the site.
func dialogRole(v []byte) bool {
	v = bytes.TrimSpace(v)
	return bytes.EqualFold(v, []byte("dialog")) || bytes.EqualFold(v, []byte("alertdialog"))
}

// containerTag follows containers for the unlikely and story-body regions: a start tag (with
// its attributes in z) or an end tag.
func (e *Extractor) containerTag(z tokenSource, name []byte, open bool) {
	c := containerIdx(name)
	if c < 0 {
		return
	}
	bs := &e.bs
	if !open {
		for _, r := range [...]*region{&bs.roleMain, &bs.outRole, &bs.consent, &bs.unlikely, &bs.furnIn, &bs.positive, &bs.body} {
			if r.ends(c, bs.depth[c]) {
				e.cut()
			}
		}
		bs.depth[c] = max(bs.depth[c]-1, 0)
		return
	}
	bs.depth[c]++
	// Readability tests class and id together: a content word in either
	// keeps the element.
	e.nfkc = e.nfkc[:0]
	role, out, popover := regionNone, false, false
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "class", "id":
			if c != customIdx {
				e.nfkc = append(append(e.nfkc, v...), ' ')
			}
		case "itemprop":
			if string(v) == "articleBody" {
				e.nfkc = append(e.nfkc, "articlebody "...)
			}
		case "itemtype":
			e.discussion = e.discussion || discussionItemtype(v)
		case "role":
			role = landmark(v)
			popover = popover || dialogRole(v)
		case "hidden":
			out = true
		case "popover":
			popover = true
		case "aria-hidden":
			out = out || string(v) == "true"
		}
	}
	if c == customIdx {
		// Custom elements nest in one count whatever their names, and pages
		// leave some open: only a popover, whose text is never the page's,
		// is taken from them.
		role, out = regionNone, false
	}
	// The name tests below read lower case: ASCII is lowered in place, since
	// every word they look for is ASCII.
	for i, b := range e.nfkc {
		if 'A' <= b && b <= 'Z' {
			e.nfkc[i] = b + 'a' - 'A'
		}
	}
	var names uint16 // which name tests can hold (containerNames)
	if len(e.nfkc) > 0 {
		names = containerNames.classes(e.nfkc)
	}
	if c != customIdx && !bs.body.on && names&nameBody != 0 && bodyName(e.nfkc) {
		bs.body.start(c, bs.depth[c])
		bs.body.nest = bs.nest.n
		bs.sawBody = true
		e.cut()
	}
	if c >= articleIdx {
		return
	}
	if role == regionMain && !bs.roleMain.on {
		bs.roleMain.start(c, bs.depth[c])
		bs.roleMain.nest = bs.nest.n
		bs.sawMain = true
		bs.unlikely.on = false // see blockTag's "main"
		e.cut()
	}
	if (out || role == regionOut) && !bs.outRole.on {
		bs.outRole.start(c, bs.depth[c])
		bs.outRole.nest = bs.nest.n
		e.cut()
	}
	if bs.unlikely.on && bs.consent.on {
		return
	}
	if !bs.consent.on && (popover || names&(nameConsent|nameCookie) != 0 && consentName(e.nfkc)) {
		bs.consent.start(c, bs.depth[c])
		bs.consent.nest = bs.nest.n
		e.cut()
	}
	if c == customIdx {
		return
	}
	if bs.unlikely.on {
		if bs.unlikelyComment && !bs.furnIn.on && (c == asideIdx && !positiveName(names) ||
			unlikelyName(names) && !commentOnly(names)) {
			bs.furnIn.start(c, bs.depth[c])
			bs.furnIn.nest = bs.nest.n
			e.cut()
		}
		// A container named as content inside one named as furniture: an
		// unclosed header that holds the rest of the page. Only the
		// content fallback reads it (contentFallback).
		if !bs.positive.on && positiveName(names) && !unlikelyName(names) {
			bs.positive.start(c, bs.depth[c])
			bs.positive.nest = bs.nest.n
			bs.positiveIn = true
			e.cut()
		}
		return
	}
	if c == asideIdx && !positiveName(names) || unlikelyName(names) {
		bs.unlikely.start(c, bs.depth[c])
		bs.unlikely.nest = bs.nest.n
		bs.unlikelyComment = c != asideIdx && commentOnly(names)
		e.cut()
	} else if !bs.positive.on && positiveName(names) {
		bs.positive.start(c, bs.depth[c])
		bs.positive.nest = bs.nest.n
		bs.positiveIn = false
		e.cut()
	}
}

// positiveName says whether class and id values (lower case, read by containerNames
// into m) name the content: some of
// Readability's positive words (REGEXPS.positive), those that name a story's
// container rather than any part of a page.
func positiveName(m uint16) bool { return m&namePositive != 0 }

var positiveNames = newWordSet("article", "content", "entry", "main", "post", "story")

// containerNames reads a container's class and id for every name test in
// one pass (classSet): the bits are nameOK ... nameBody, in this order.
var containerNames = newClassSet(okNames, unlikelyNames, positiveNames, consentNames,
	newWordSet("cookie"), newWordSet("content", "body", "text", "entry"), commentNames)

// The name tests' bits in containerNames.classes: a word of okNames, of
// unlikelyNames, of positiveNames, of consentNames, "cookie" (consentName
// reads such names further), a word of bodyNames' groups (bodyName does),
// a word of commentNames.
const (
	nameOK uint16 = 1 << iota
	nameUnlikely
	namePositive
	nameConsent
	nameCookie
	nameBody
	nameComment
)

// cut ends the current block at the end of the text.
func (e *Extractor) cut() {
	b := &e.bs.cur
	end := int32(len(e.text))
	if end > b.start {
		b.end = end
		e.blocks = append(e.blocks, *b)
	}
	*b = block{start: end, low: noLow}
	e.bs.hasText = false
}

// blockTag updates the block state for a start (open) or end tag.
func (e *Extractor) blockTag(name []byte, open bool) {
	d := 1
	if !open {
		d = -1
	}
	if e.selectTag(name, open) {
		return
	}
	switch {
	case string(name) == "a":
		// Links do not nest (an <a> start tag closes an open one), so a flag,
		// not a depth: a depth leaked by one unmatched tag made the rest of a
		// page link text (measured on a bellinghamherald.com story).
		e.bs.inLink = open
		return
	case headingTag(name):
		e.cut()
		e.bs.headDepth = max(e.bs.headDepth+d, 0)
		if string(name) == "title" {
			e.bs.inTitle = open
		}
		return
	case chromeTag(name):
		e.cut()
		e.bs.chrome = max(e.bs.chrome+d, 0)
		return
	case string(name) == "main":
		e.cut()
		e.bs.main = max(e.bs.main+d, 0)
		e.bs.sawMain = true
		if open {
			// HTML allows no main element inside an aside, a header, a
			// footer or a nav (HTML Living Standard, 4.4.14): a container
			// named as furniture that holds the main region is the
			// page's layout (MDN's "layout__2-sidebars-inline", Flutter's
			// documentation), not furniture. Readability would drop it and
			// retry the page without its furniture rule.
			e.bs.unlikely.on = false
		}
		return
	case regionOutTag(name):
		e.cut()
		e.bs.regionOut = max(e.bs.regionOut+d, 0)
		return
	case string(name) == "pre":
		e.cut()
		e.bs.preDepth = max(e.bs.preDepth+d, 0)
		return
	case isBlockTag(name):
		e.cut()
	}
}

// blockText records that the text from byte n0 to the end was appended.
func (e *Extractor) blockText(n0 int) {
	n := int32(len(e.text) - n0)
	if n <= 0 {
		return
	}
	b := &e.bs.cur
	if !e.bs.hasText {
		e.bs.hasText = true
		nt := &e.bs.nest
		b.depth, b.low = int32(nt.n), int32(min(nt.low, nt.n))
		nt.low = nt.n
	}
	if e.bs.inLink {
		b.link += n
	}
	if e.bs.inTitle {
		b.title = true
	}
	if e.bs.headDepth > 0 {
		b.heading = true
	}
	if e.bs.preDepth > 0 {
		b.code = true
	}
	if e.bs.chrome > 0 || e.bs.consent.on {
		b.chrome = true
	}
	if e.bs.unlikely.on {
		b.unlikely = true
		b.comment = e.bs.unlikelyComment && !e.bs.furnIn.on
	}
	if e.bs.positive.on {
		b.positive = true
		b.positiveIn = e.bs.positiveIn
	}
	if e.bs.body.on {
		b.body = true
	}
	if e.bs.depth[articleIdx] > 0 {
		b.article = true
	}
	if e.bs.main > 0 || e.bs.roleMain.on {
		b.inMain = true
	}
	if e.bs.regionOut > 0 || e.bs.outRole.on {
		b.regionOut = true
	}
}

// mainText keeps in e.words only the words of the blocks classified good, and
// reports whether any block was. Sentence marks are kept with their blocks.
func (e *Extractor) mainText() bool {
	bs := e.blocks
	if len(bs) == 0 {
		return false
	}
	if e.discussion {
		// A discussion's posts are its content (discussion.go).
		for i := range bs {
			if bs[i].comment {
				bs[i].unlikely = false
			}
		}
	}
	cls := e.cls[:0]
	st := e.bstat[:0]
	ws := e.words
	wi := 0
	for i := range bs {
		b := &bs[i]
		for wi < len(ws) && int32(ws[wi].start) < b.start {
			wi++
		}
		var s blockStat
		for ; wi < len(ws) && int32(ws[wi].start) < b.end; wi++ {
			w := &ws[wi]
			if w.flags&flagMark != 0 {
				continue
			}
			s.words++
			if w.flags&flagStop != 0 {
				s.stops++
			}
			if w.end-w.start >= 3 && e.text[w.start] >= 0xe0 {
				s.cjk++ // a three-byte character: nearly always a CJK one
			}
		}
		if 2*s.cjk > s.words {
			s.marks = cjkMarks(e.text[b.start:b.end])
		}
		if t := e.text[b.start:b.end]; s.words > 0 && s.words <= noticeMaxWords && noticeGrams.in(t) {
			s.notice = cookieNotice(t) || browserNotice(t) || commentFormNotice(t) || rightsNotice(t)
		}
		st = append(st, s)
		cls = append(cls, 0)
	}
	e.cls, e.bstat = cls, st
	e.pageStops(bs, st)
	// Containers named as furniture are left out first. When that leaves no
	// good block, the page is judged again without that rule, as Readability
	// retries without stripping unlikely candidates: an unclosed <div
	// id="header"> holds the rest of the page, story included (measured on a
	// hacknmod.com page of the dedupbench benchmark). Like Readability, the retry
	// counts only if it finds retryMinText of text: on a page whose story is
	// too short to be good, it found the comment form's "your email address
	// will not be published" instead.
	// Then the story after the headline takes the place of short good text
	// found elsewhere (headline.go); the content-container fallback is the
	// last resort.
	strictGood := e.classify(bs, st, cls, true)
	good := strictGood || e.classify(bs, st, cls, false)
	if good {
		e.terminate(bs, st, cls)
	}
	e.unlikelyText, e.headlined = false, false
	switch {
	case e.anchor(bs, st, cls, good):
	case good:
		e.unlikelyText = !strictGood
	case !contentFallback(bs, st, cls):
		clear(cls) // nothing good
	}
	// The blocks jusText alone finds good, furniture names aside, for
	// ProseOutside.
	lenient := e.lenient
	if cap(lenient) < len(bs) {
		lenient = make([]uint8, len(bs))
	} else {
		lenient = lenient[:len(bs)]
		clear(lenient)
	}
	e.classify(bs, st, lenient, false)
	e.lenient = lenient
	e.mainRegion(bs, st, cls)
	e.siblings(bs, st, cls)
	if e.bs.sawBody {
		e.bodyText(bs, st, cls)
	}
	codeInContent(bs, st, cls)
	// A notice (a cookie banner, a browser or comment-form notice, a
	// copyright line) is no part of the main text wherever it stands: the
	// passes above take blocks by where they stand (a story-body container,
	// the main region, the place of good siblings), and a wire service's
	// copyright line stands in its story's container.
	for i := range bs {
		if st[i].notice && cls[i] == clsGood {
			cls[i] = clsBad
		}
	}
	e.proseOutside, e.mainWords = 0, 0
	for i := range bs {
		switch {
		case cls[i] == clsGood:
			e.mainWords += st[i].words
		case lenient[i] == clsGood:
			e.proseOutside += st[i].words
		}
	}
	// Filter the words in place.
	out := ws[:0]
	bi := 0
	any := false
	for _, w := range ws {
		for bi < len(bs) && int32(w.start) >= bs[bi].end {
			bi++
		}
		if bi < len(bs) && int32(w.start) >= bs[bi].start && cls[bi] == clsGood {
			out = append(out, w)
			any = true
		}
	}
	if !any {
		return false
	}
	e.words = out
	return true
}

// Own function words. The stopword lists are English and Chinese (with
// Japanese particles), so prose in any other language has a stopword density
// near zero and reads as a menu: on id.react.dev, the Indonesian React
// documentation, no block was good and the page fell back to all its text.
// Function words are the most frequent words of any language's running text
// (Zipf), so when the long blocks of a page have (almost) no known stopwords,
// the most frequent short words of those blocks stand in for the list, for
// this page and for the block classes only: spot signatures keep the
// configured stopwords. Whether the page has known stopwords is judged on all
// its text blocks, not the long ones only: a story of short paragraphs beside
// long blocks of script text has them (measured on a wdtn.com AP story). On
// the corpus's pages in French, Spanish, Portuguese and Indonesian the mean
// word F1 rose on mozilla-readability from 0.870 to 0.877, on scrapinghub-aeb
// from 0.894 to 0.899 and on wcxb from 0.698 to 0.700 (id.react.dev from 0.02
// to 0.92); a page's list is poorer than a real one, so short paragraphs of a
// Russian or German story can still fall under jusText's densities.
const (
	ownStopsMinWords = 50 // words in long blocks before the page is judged
	ownStopsMaxShare = 20 // known stopwords under 1 in this many words of text blocks
	ownStopsMaxLen   = 6  // characters of a short word
	ownStopsMinCount = 2  // occurrences of a function word
	ownStopsWords    = 32 // how many words the page's list holds
)

// pageStops recounts st[i].stops with the page's own function words when its
// text blocks (lengthLow bytes or more, few links, not CJK) show no known
// stopwords and its long ones (lengthHigh) hold ownStopsMinWords words.
func (e *Extractor) pageStops(bs []block, st []blockStat) {
	words, stops, longWords := 0, 0, 0
	text := func(i int, least int32) bool {
		b := &bs[i]
		n := b.end - b.start
		return n >= least && !b.chrome && !b.title && float64(b.link) <= maxLinkDensity*float64(n) &&
			2*st[i].cjk <= st[i].words
	}
	long := func(i int) bool { return text(i, lengthHigh) }
	for i := range bs {
		if text(i, lengthLow) {
			words += st[i].words
			stops += st[i].stops
			if long(i) {
				longWords += st[i].words
			}
		}
	}
	if longWords < ownStopsMinWords || ownStopsMaxShare*stops >= words {
		return
	}
	if e.fw == nil {
		e.fw = make(map[uint64]int32)
	}
	clear(e.fw)
	ws := e.words
	wi := 0
	for i := range bs {
		b := &bs[i]
		if !long(i) {
			continue
		}
		for wi < len(ws) && int32(ws[wi].start) < b.start {
			wi++
		}
		for ; wi < len(ws) && int32(ws[wi].start) < b.end; wi++ {
			w := &ws[wi]
			if w.flags&flagMark == 0 && (e.text[w.start] < '0' || e.text[w.start] > '9') &&
				utf8.RuneCount(e.text[w.start:w.end]) <= ownStopsMaxLen {
				e.fw[w.hash]++
			}
		}
	}
	top := e.fwTop[:0]
	for h, n := range e.fw {
		if n >= ownStopsMinCount {
			top = append(top, fwCount{h, n})
		}
	}
	slices.SortFunc(top, func(a, b fwCount) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.h, b.h)) })
	top = top[:min(len(top), ownStopsWords)]
	e.fwTop = top
	if len(top) == 0 {
		return
	}
	clear(e.fw)
	for _, t := range top {
		e.fw[t.h] = 1
	}
	wi = 0
	for i := range bs {
		b := &bs[i]
		for wi < len(ws) && int32(ws[wi].start) < b.start {
			wi++
		}
		n := 0
		for ; wi < len(ws) && int32(ws[wi].start) < b.end; wi++ {
			w := &ws[wi]
			if w.flags&flagMark == 0 && (w.flags&flagStop != 0 || e.fw[w.hash] != 0) {
				n++
			}
		}
		st[i].stops = n
	}
}

// fwCount is a word's hash and its count on the page (pageStops).
type fwCount struct {
	h uint64
	n int32
}

// contentFallback is the last resort for a page where no block reads as
// running text: a story of a sentence or two is too short for jusText's
// classes. The blocks inside a container named as content (positiveName),
// outside furniture, with few links, are taken if they hold fallbackMinWords
// words between them. A content container inside one named as furniture
// counts (the innermost name says what the element is): hacknmod.com's
// unclosed <div id="header"> holds its <div id="content"> with a post of
// one heading and a sentence, which was no main text, so its page was
// compared with captures of its own URL only. Benchmark (dedupbench gen)
// seed 20260304 one pair more found, the scaled set (-scale 17) 10,925
// duplicates against 10,919, nothing else changed; corpus word F1 the same.
func contentFallback(bs []block, st []blockStat, cls []uint8) bool {
	words := 0
	for i := range bs {
		b := &bs[i]
		cls[i] = clsNone
		if !b.positive || b.chrome || b.unlikely && !b.positiveIn || st[i].words == 0 ||
			float64(b.link) > maxLinkDensity*float64(b.end-b.start) {
			continue
		}
		cls[i] = clsGood
		words += st[i].words
	}
	return words >= fallbackMinWords
}

// fallbackMinWords is the fewest words contentFallback takes: a sentence.
const fallbackMinWords = 8

// retryMinText is Readability's charThreshold: the fewest bytes of good text
// for which the pass without the unlikely-container rule is taken.
const retryMinText = 500

// classify runs jusText's classification of the blocks into cls, with the
// unlikely-container rule if strict, and reports whether it found good text:
// any block when strict, retryMinText bytes when not.
func (e *Extractor) classify(bs []block, st []blockStat, cls []uint8, strict bool) bool {
	// A short story (a paragraph or two) may have no block long enough to be
	// good by jusText's length; then a second pass takes near-good blocks of
	// any length above lengthLow as good, so the story is found rather than the
	// page falling back to all its text, frame included.
	for _, high := range [...]int{lengthHigh, lengthLow} {
		for i := range bs {
			cls[i] = classify(&bs[i], st[i], high, strict)
		}
		runs(bs, st, cls, high)
		for i, c := range cls {
			if c == clsLinked {
				cls[i] = clsShort
			}
		}
		e.idx = revise(bs, cls, e.idx, strict)
		good := 0
		for i, c := range cls {
			if c == clsGood {
				good += int(bs[i].end - bs[i].start)
			}
		}
		if good > 0 && (strict || good >= retryMinText) {
			return true
		}
	}
	return false
}

// blockStat counts the words of a block.
type blockStat struct {
	words, stops, cjk, marks int
	notice                   bool // a notice: cookieNotice, browserNotice, commentFormNotice, rightsNotice
}

// noticeMaxWords bounds the blocks cookieNotice looks at: notices are a
// sentence or three, and a story about cookies is longer.
const noticeMaxWords = 80

// noticeGrams holds a four-byte piece of each word or phrase a notice
// needs (cookieNotice's "cookie", browserNotice's "enable javascript" and
// "browser", commentFormNotice's "comment" and "email", rightsNotice's two
// phrases), the rarest in prose: a block with none of them is no notice,
// and most blocks are told so in one pass, where the notices' tests read
// the block seven times (bytes.Contains of a common first byte; 3.4% of a
// map task's CPU time).
var noticeGrams = newGram4Set("okie", "vasc", "wser", "mmen", "emai", "eser", "adca")

// cookieNotice says whether a block is a site's cookie banner ("This website
// uses cookies to improve your experience... Accept"): it reads as prose to
// jusText and is on every page, and when it is the only text the first pass
// finds, a story in a container named like a sidebar is never looked for
// (measured on theantijunecleaver.com, whose post is in a "penci_sidebar"
// container).
func cookieNotice(t []byte) bool {
	if !bytes.Contains(t, []byte("cookie")) {
		return false
	}
	for _, m := range [...]string{"uses cookies", "use cookies", "use of cookies", "accept", "consent", "cookie policy"} {
		if bytes.Contains(t, []byte(m)) {
			return true
		}
	}
	return false
}

// browserNotice says whether a block is a notice about the reader's
// browser ("You are using an out of date browser. It may not display this or
// other websites correctly", "This page is best viewed in an up-to-date web
// browser with style sheets enabled", "please enable JavaScript"): a
// platform's or a site's text on every page, prose to jusText, and the same
// on every site that runs the platform. As the only text found, XenForo's
// notice made two forum indexes of two sites near duplicates at 1.0; it was
// in the main text of 9 wcxb pages and the BBC's in 29 corpus pages, and in
// none of their gold texts.
func browserNotice(t []byte) bool {
	if bytes.Contains(t, []byte("enable javascript")) {
		return true
	}
	if !bytes.Contains(t, []byte("browser")) {
		return false
	}
	for _, m := range [...]string{"out of date", "outdated", "up-to-date", "upgrade", "update your", "not supported",
		"unsupported", "best viewed"} {
		if bytes.Contains(t, []byte(m)) {
			return true
		}
	}
	return false
}

// rightsNotice says whether a block is a copyright notice ("Copyright 2008
// The Associated Press. All rights reserved. This material may not be
// published, broadcast, rewritten or redistributed"): a wire service's line
// under each of its stories on every site that prints them, or a site's
// under each of its pages, in none of the corpus's gold texts. Two different
// AP stories on two sites share it; two copies of one share the story.
// WCXB's word F1 with the rule and without: l3s-gn1 0.9247 and 0.9224 (34
// pages up, 3 down), chinese-wced 0.8846 and 0.8842, cleaneval-final 0.9219
// and 0.9218, dragnet 0.8927 and 0.8925, wcxb 0.8149 both; cleaneval-dev
// 0.9102 and 0.9110 and scrapinghub-aeb 0.9287 and 0.9291 (one page each,
// whose notice, out of the main text, no longer held its neighbours in).
// Benchmark seed 20261123 F1 0.9816 and 0.9808 (two short cross-site copies
// more), seed 20260304, wcxb and the 1.67 GB scaled set decided the same.
func rightsNotice(t []byte) bool {
	return bytes.Contains(t, []byte("rights reserved")) || bytes.Contains(t, []byte("may not be published, broadcast"))
}

// commentFormNotice says whether a block is a comment form's notice ("Your
// email address will not be published. Required fields are marked *", "your
// comment is now in the moderation queue"): the same on every page of a
// site and of every site on its blog platform. As the only prose found, a
// tutorial site's moderation notice made two of its tutorials near
// duplicates at 1.0 (dragnet's videocopilot.net pages), and so did its
// instructions for the form ("if you would like to proceed with posting
// your comment, click submit comment"). The form's button names ("submit
// comment", "post comment") mark such instructions on other sites too:
// on the corpus they moved 7 pages' main text, a cleaneval page's from
// word F1 0.02 to 0.97 and two l3s-gn1 pages' up by 0.03 and 0.07, two
// pages' down by under 0.01.
func commentFormNotice(t []byte) bool {
	if !bytes.Contains(t, []byte("comment")) && !bytes.Contains(t, []byte("email")) {
		return false
	}
	for _, m := range [...]string{"moderation", "will not be published", "required fields are marked",
		"submit comment", "post comment", "posting your comment"} {
		if bytes.Contains(t, []byte(m)) {
			return true
		}
	}
	return false
}

// cjkMarks counts the sentence punctuation of Chinese text: full-width commas,
// semicolons, colons, question and exclamation marks (ASCII after NFKC), the
// ideographic full stop and comma. Chinese function characters are too rare
// for a stopword density alone to tell prose from a menu (measured on
// news.163.com: 3% of a paragraph's characters), but prose has a mark every 10
// to 20 characters and menus have none.
func cjkMarks(t []byte) int {
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case ',', ';', ':', '!', '?':
			n++
		case 0xe3: // U+3001 、 and U+3002 。 are e3 80 81 and e3 80 82
			if i+2 < len(t) && t[i+1] == 0x80 && (t[i+2] == 0x81 || t[i+2] == 0x82) {
				n++
			}
		}
	}
	return n
}

// classify is jusText's context-free classification of one block. A block
// without words (white space, a lone symbol) is clsNone: it is no neighbour.
func classify(b *block, s blockStat, high int, strict bool) uint8 {
	if s.words == 0 {
		return clsNone
	}
	length := int(b.end - b.start)
	if b.furniture(strict) || s.notice {
		return clsBad
	}
	if float64(b.link) > maxLinkDensity*float64(length) {
		// jusText's cut (Pomikálek 2011, Sec. 3.2.2) drops a paragraph that
		// links what it names (documentation, a wiki's prose, a blog post
		// citing its sources). One with less than linkedProseDensity of
		// links that reads as prose is judged by its neighbours instead, as
		// jusText judges a short block: good between good paragraphs, bad
		// among teasers. Word F1 rose on every dataset of the corpus
		// (docs/method.md).
		if float64(b.link) <= linkedProseDensity*float64(length) && length >= lengthLow && byDensity(length, s, high) != clsBad {
			return clsLinked
		}
		return clsBad
	}
	if length < lengthLow {
		if b.link > 0 {
			return clsBad
		}
		return clsShort
	}
	return byDensity(length, s, high)
}

// byDensity classifies text of the given length by its stopword density.
func byDensity(length int, s blockStat, high int) uint8 {
	lo, hi := stopLow, stopHigh
	density := float64(s.stops) / float64(s.words)
	if 2*s.cjk > s.words {
		lo, hi = stopLowCJK, stopHighCJK
		density = float64(s.stops+s.marks) / float64(s.words)
	}
	switch {
	case density >= hi && length > high:
		return clsGood
	case density >= lo:
		return clsNearGood
	}
	return clsBad
}

// runs classifies runs of short and near-good blocks as one text: prose with
// hard line breaks (a <p> or <br> a line, as in plain-text mail archives and
// CleanEval's pages) is a run of short blocks that jusText would drop whole,
// and a short story of paragraphs under lengthHigh bytes each is a run of
// near-good blocks with nothing good beside it (measured on icnetwork.co.uk:
// five paragraphs of 80 to 200 bytes, the whole story). A run that reads as
// good text as a whole is good.
func runs(bs []block, st []blockStat, cls []uint8, high int) {
	inRun := func(c uint8) bool { return c == clsShort || c == clsNearGood || c == clsNone }
	for i := 0; i < len(cls); {
		if cls[i] != clsShort && cls[i] != clsNearGood {
			i++
			continue
		}
		j, n := i, 0
		var s blockStat
		length := 0
		for ; j < len(cls) && inRun(cls[j]); j++ {
			if cls[j] != clsNone {
				n++
				s.add(st[j])
				length += int(bs[j].end - bs[j].start)
			}
		}
		if n >= 2 {
			c := byDensity(length, s, high)
			for k := i; k < j; k++ {
				switch {
				case c == clsGood && cls[k] != clsNone:
					cls[k] = clsGood
				case c == clsNearGood && cls[k] == clsShort:
					cls[k] = clsNearGood
				}
			}
		}
		i = j
	}
}

// revise is jusText's context-sensitive pass over the blocks with words:
// headings close before good text become near-good; short blocks take the
// class of their non-short neighbours (good if both are good, or one good and
// the other near-good; else bad); near-good blocks next to good ones are good.
func revise(bs []block, all []uint8, idx []int, strict bool) []int {
	idx = idx[:0]
	for i, c := range all {
		if c != clsNone {
			idx = append(idx, i)
		}
	}
	n := len(idx)
	cls := func(k int) uint8 { return all[idx[k]] }
	set := func(k int, c uint8) { all[idx[k]] = c }
	// Headings: a heading followed within maxHeadingDist bytes by a good block
	// is near-good (the headline before the story).
	for k := range n {
		b := &bs[idx[k]]
		if !b.heading || b.furniture(strict) || cls(k) == clsGood || float64(b.link) > maxLinkDensity*float64(b.end-b.start) {
			continue
		}
		dist := 0
		for j := k + 1; j < n && dist <= maxHeadingDist; j++ {
			if cls(j) == clsGood {
				set(k, clsNearGood)
				break
			}
			dist += int(bs[idx[j]].end - bs[idx[j]].start)
		}
	}
	// A program or listing in <pre> has no stopwords to read as prose, but
	// between paragraphs of a document it is the document's (a manual's
	// examples): it is judged by its neighbours, as a short block is.
	for k := range n {
		b := &bs[idx[k]]
		if b.code && cls(k) == clsBad && !b.furniture(strict) && float64(b.link) <= maxLinkDensity*float64(b.end-b.start) {
			set(k, clsShort)
		}
	}
	// Runs of short blocks, judged from the non-short blocks around them.
	for k := 0; k < n; {
		if cls(k) != clsShort {
			k++
			continue
		}
		j := k
		for j < n && cls(j) == clsShort {
			j++
		}
		p, q := uint8(clsBad), uint8(clsBad)
		if k > 0 {
			p = cls(k - 1)
		}
		if j < n {
			q = cls(j)
		}
		c := clsBad
		if (p == clsGood && (q == clsGood || q == clsNearGood)) || (q == clsGood && p == clsNearGood) {
			c = clsGood
		}
		for m := k; m < j; m++ {
			set(m, c)
		}
		k = j
	}
	// Near-good blocks next to good ones, in both directions, so that a run of
	// near-good blocks beside a good one joins it.
	for k := range n {
		if cls(k) == clsNearGood && k > 0 && cls(k-1) == clsGood {
			set(k, clsGood)
		}
	}
	for k := n - 1; k >= 0; k-- {
		if cls(k) == clsNearGood && k+1 < n && cls(k+1) == clsGood {
			set(k, clsGood)
		}
	}
	for k := range n {
		if cls(k) == clsNearGood {
			set(k, clsBad)
		}
	}
	return idx
}

// Terminating blocks (boilerpipe's TerminatingBlocksFinder and
// IgnoreBlocksAfterContentFilter, Kohlschütter et al., WSDM 2010): a short
// block such as "Comments", "12 comments", "Post a comment" or "Have your say"
// marks the end of a story; readers' comments after it read as prose as well
// as the story does, and on a page whose comment container is not named so
// (measured on econbrowser.com) jusText takes them all. The mark counts only
// after minStoryWords words of good text, so a "comments" link in a share
// bar above the story ends nothing; a heading counts after any good text,
// since a share bar's link is no heading: a blog post of two sentences
// (schneier.com) took its readers' comments, in containers whose names
// hold "body" and so are not furniture. WCXB's word F1 with the heading
// rule and without: dragnet 0.8761 and 0.8741, cleaneval-final 0.9017 and
// 0.9016, the others the same; benchmark seed 1 F1 0.9800 and 0.9795,
// seed 20261123 0.9700 and 0.9695, the 1.67 GB scaled set 0.9663 and
// 0.9660 (precision 0.9822 and 0.9820).
const (
	endMaxWords   = 15 // boilerpipe's: a terminating block is short
	minStoryWords = 60 // boilerpipe's IgnoreBlocksAfterContentFilter default
)

// terminate makes the terminating block and the good blocks after it bad,
// once minStoryWords words of good text precede it. The mark itself may be
// good: a short block between good ones takes their class.
func (e *Extractor) terminate(bs []block, st []blockStat, cls []uint8) {
	words := 0
	for i := range bs {
		if (words >= minStoryWords || words > 0 && bs[i].heading) && st[i].words > 0 && st[i].words < endMaxWords &&
			endOfText(trimText(e.text[bs[i].start:bs[i].end])) {
			for j := i; j < len(bs); j++ {
				if cls[j] == clsGood {
					cls[j] = clsBad
				}
			}
			return
		}
		if cls[i] == clsGood {
			words += st[i].words
		}
	}
}

var endMarks = [][]byte{[]byte("comments"), []byte("© reuters"), []byte("please rate this"), []byte("post a comment"),
	[]byte("leave a comment"), []byte("leave a reply"), []byte("add your comment"), []byte("add comment"), []byte("reader views"),
	[]byte("have your say"), []byte("reader comments"), []byte("what you think..."), []byte("发表评论"), []byte("网友评论")}

// endOfText says whether a short block's normalized text marks the end of a
// story: boilerpipe's markers, WordPress's "leave a comment" / "leave a
// reply", and the Chinese "发表评论" / "网友评论" (post a comment, readers'
// comments). boilerpipe also takes "have your say" and "add comment" anywhere
// in the block; here they must start it, since on news.bbc.co.uk's Have Your
// Say pages, whose readers' views are the page's content, "send us your
// suggestions for have your say debates" comes before the views.
func endOfText(t []byte) bool {
	for _, p := range endMarks {
		if bytes.HasPrefix(t, p) {
			return true
		}
	}
	// "12 comments", "3 users responded in"
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && (bytes.HasPrefix(t[i:], []byte(" comments")) || bytes.HasPrefix(t[i:], []byte(" users responded in")))
}

// The main region. A page that marks its content with HTML's <main> element
// or ARIA's role="main" landmark (WAI-ARIA 1.2, Sec. 5.3.4) says where its
// content is; on pages that are no article (a shop's category, a forum's
// thread list, a documentation page, a service's page) the content is the
// region's lists, cards, tables and short lines, which jusText's paragraph
// classifier, made for running text, leaves out as link lists and short
// blocks. When the blocks classified good hold under regionMaxShare of the
// region's words, the page is no article whose story the region frames: the
// region's text, less what it marks as no part of the content (headers and
// forms, landmarks of navigation and side content, hidden elements), is the
// main text. The region leaves out containers named as furniture too: on
// news pages the region holds the story with its comments and "related"
// lists. Measured by WCXB's word F1 against the corpus's gold texts (go test
// ./features -run 'TestMainTextWordF1$' -v): wcxb 0.703 to 0.757 (listings
// 0.41 to 0.64, collections 0.54 to 0.64, documentation 0.78 to 0.82);
// mozilla-readability 0.878 to 0.892, scrapinghub-aeb 0.899 to 0.911,
// cx-bbc 0.916 to 0.919; dragnet, whose Yahoo and PopSugar stories sit in a
// role="main" among long teaser lists, 0.859 to 0.854. A guard that kept
// jusText's choice when it found two long paragraphs traded wcxb for
// dragnet about point for point; left out. Pages without a main region are
// left to jusText: the whole page less its chrome scored higher on wcxb but
// far lower on the news datasets (dragnet 0.86 to 0.64).
//
// Except when jusText finds under shortMainWords words of good text, on a
// page with no story-body container (bodyName) and no headline with a
// story after it (anchored), and whose text less its chrome and furniture
// is bodyMinFactor times as long: such a page is no story but a listing, a
// catalogue, a table of data or a page of links whose sentence or two of
// prose is a caption or a notice (Readability, below its charThreshold of
// 500 characters, does not trust what it found either). The page's text,
// less what the main region would leave out, is then the main text. A
// story-body container or a headline's story says the page is a story,
// however short, and its frame must stay out: without the headline's
// guard, dragnet scored 0.8735 against 0.8741 (blog posts of a few lines
// among long sidebars), and the 1.67 GB benchmark found 10,877 of its
// duplicates against 10,899, short stories syndicated in other frames.
// shortMainWords is 150, about a paragraph or two, where Readability's 500
// characters (about 80 words) are a sentence or three: a listing of blog
// posts or of a shop's goods often has an introduction of that length
// (stackoverflow.blog's, a wiki's reading list), and a story under 150
// words with no headline found before it and 8 times its length of other
// text is rare. WCXB's word F1 with 150 and with 40: cleaneval-final
// 0.9217 and 0.9138, l3s-gn1 0.9222 and 0.9207, wcxb 0.8148 and 0.8138
// (listings 0.711 and 0.703), the others the same; from 180 a Chinese
// story of chinese-wced goes. Benchmark seed 1 found 680 duplicates
// against 681 (a BBC contact list re-captured: its list is now its main
// text, and the two captures' lists differ), seed 20261123 672 against
// 671, the 1.67 GB scaled set 11,014 both (pairs found 18,824 against
// 18,816), no false pair more.
//
// A headline inside an <article> element narrows the region
// to the article's text: the article is the story's own element (HTML Living
// Standard, 4.3.2), and the rest of the region is the site's widgets around
// it (a PopSugar post's reaction buttons, "follow us" and link lists in one
// role="main" with it). WCXB's word F1 with and without: dragnet 0.8846 and
// 0.8817, cleanportaleval 0.9312 and 0.9300, wcxb 0.8040 (its listings,
// documentation and articles up 0.0001), the others the same.
const (
	regionMaxShare = 0.5
	regionMinWords = 20
	bodyMinFactor  = 8
	shortMainWords = 150
)

// Landmark roles of an element (the role attribute).
const (
	regionNone = iota
	regionMain
	regionOut
)

// landmark says what an element's role attribute makes of it for the main
// region: the main landmark, a landmark that is no content (navigation,
// banner, contentinfo, complementary, search, dialogs), or neither.
func landmark(v []byte) int {
	switch string(bytes.ToLower(bytes.TrimSpace(v))) {
	case "main":
		return regionMain
	case "navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog", "menu", "menubar":
		return regionOut
	}
	return regionNone
}

// regionOutTag says whether an element's text is left out of the main
// region: a header (a page's, or a section's title bar) and a form (search
// boxes, newsletter sign-ups, filters).
func regionOutTag(name []byte) bool {
	return string(name) == "header" || string(name) == "form"
}

// mainRegion makes the main region's text the main text when the page has
// one and the good blocks hold too little of it (see regionMaxShare), and
// the body's text so when the page has neither a main region nor a story
// body and the good blocks are short (see bodyMinFactor).
func (e *Extractor) mainRegion(bs []block, st []blockStat, cls []uint8) {
	whole := !e.bs.sawMain // the page's body stands for the region
	if whole && (e.bs.sawBody || e.headlined) {
		return
	}
	art := e.headlined && bs[e.headline].article // see "A headline inside an <article>" above
	in := func(i int) bool {
		b := &bs[i]
		return (whole || b.inMain) && !b.regionOut && !b.chrome && !b.title && !b.unlikely && (!art || b.article)
	}
	region, good := 0, 0
	for i := range bs {
		if in(i) {
			region += st[i].words
		}
		if cls[i] == clsGood {
			good += st[i].words
		}
	}
	if whole {
		if good == 0 || good >= shortMainWords || region < bodyMinFactor*good {
			return
		}
	} else if region < regionMinWords || float64(good) >= regionMaxShare*float64(region) {
		return
	}
	for i := range bs {
		if in(i) {
			cls[i] = clsGood
		} else {
			cls[i] = clsBad
		}
	}
}

// place is where a block stands: the depth of nesting of its text and the
// depth of the container it opens (block.depth, block.low).
type place struct{ depth, low int32 }

// siblings makes good the short blocks that stand where two or more good
// blocks stand: at the same depth of nesting, opening a container at the
// same depth. The posts of a thread and the entries of a listing are
// sibling containers of one kind; a one-line post among usernames and
// dates is too short for jusText's classes, but it stands where the long
// posts stand. One good block at a place is a story's first paragraph,
// which says nothing of the blocks elsewhere at its depth.
// A block there need not read as prose: a manual's examples, a table of
// parameters, technical sentences with few function words and a
// thread's one-word replies stand where its paragraphs stand. Taking them
// raised WCXB's word F1 on wcxb from 0.7816 to 0.7871 (documentation 0.849
// to 0.859, articles 0.907 to 0.914), on cleaneval-dev from 0.8742 to
// 0.8799, cleaneval-final 0.8938 to 0.8965, mozilla-readability 0.8963 to
// 0.8973, scrapinghub-aeb 0.9100 to 0.9111, dragnet 0.8566 to 0.8571, and
// cost l3s-gn1 0.0009 (a league table beside a story). Headings stay out:
// taken too, they brought a blog's sidebar titles ("Sites worth visiting")
// for 0.0006 more on wcxb. A block may link less than half of its text
// (linkedProseDensity), as a post that points to another thread does.
// Word F1 with no linked block here and runOn's limit at jusText's link
// density (0.2), and with both at linkedProseDensity:
// cleaneval-dev 0.9044 and 0.9109, cleaneval-final 0.9081 and 0.9138,
// mozilla-readability 0.9121 and 0.9152, dragnet 0.8876 and 0.8904,
// scrapinghub-aeb 0.9276 and 0.9291, cx-163 0.8237 and 0.8251, wcxb 0.8106
// and 0.8138 (documentation 0.887 and 0.894); l3s-gn1 0.9215 and 0.9207.
func (e *Extractor) siblings(bs []block, st []blockStat, cls []uint8) {
	if e.places == nil {
		e.places = map[place]int32{}
	}
	good := e.places
	clear(good)
	for i, c := range cls {
		if c == clsGood && bs[i].low < bs[i].depth {
			good[place{bs[i].depth, bs[i].low}]++
		}
	}
	if len(good) == 0 {
		return
	}
	for i := range bs {
		b := &bs[i]
		if cls[i] == clsGood || st[i].words < 3 || b.heading || b.furniture(true) || float64(b.link) > linkedProseDensity*float64(b.end-b.start) {
			continue
		}
		if good[place{b.depth, b.low}] >= 2 {
			cls[i] = clsGood
		}
	}
	e.runOn(bs, st, cls)
}

// runOn makes good the short blocks that stand next to a good block in its
// own container, before anything closes the element that holds them: the
// paragraphs of a story after or before one long enough to be good. jusText
// gives a short block between a good and a bad neighbour the bad class, so
// a blog post's "Also note the tiny, tiny helicopter." after its first
// paragraph and before the share buttons was lost (dragnet's
// suicidebots.com page); Readability takes every paragraph of the node that
// holds the story. Blocks of two words or more, not headings, furniture or
// mostly links. Measured by WCXB's word F1, after and before: cleaneval-dev
// 0.8999 and 0.8945, cleaneval-final 0.9054 and 0.9017, l3s-gn1 0.9207 and
// 0.9173, scrapinghub-aeb 0.9213 and 0.9171, dragnet 0.8817 and 0.8784,
// cx-bbc 0.9383 and 0.9364, mozilla-readability 0.9103 and 0.9087, cx-163
// 0.8229 and 0.8214, cleanportaleval 0.9300 and 0.9291, wcxb 0.8040 and
// 0.8007 (documentation +0.006, articles +0.005, services +0.004);
// chinese-wced 0.8830 and 0.8843 (a forum thread's post dates, in each
// post's container). Forward only, 0.0005-0.0019 less on eight datasets;
// one word or more, cleanportaleval 0.0004 less; three or more, 0.0001-0.0003
// less on five. Mostly links is half of the block or more, as for a
// paragraph that links what it names (classify); see siblings for the
// figures.
func (e *Extractor) runOn(bs []block, st []blockStat, cls []uint8) {
	// ok: block i may join its good neighbour j, the next or previous
	// block with words; b, the later of the two, shows that nesting never
	// left their container between them (white space between them is no
	// text: block.low spans it).
	ok := func(i, j int, b *block) bool {
		a := &bs[i]
		return j >= 0 && cls[i] != clsGood && cls[j] == clsGood && a.depth == bs[j].depth && b.low == b.depth &&
			st[i].words >= runOnMinWords && !a.heading && !a.furniture(true) &&
			float64(a.link) <= linkedProseDensity*float64(a.end-a.start)
	}
	j := -1
	for i := range bs {
		if st[i].words == 0 {
			continue
		}
		if ok(i, j, &bs[i]) {
			cls[i] = clsGood
		}
		j = i
	}
	j = -1
	for i := len(bs) - 1; i >= 0; i-- {
		if st[i].words == 0 {
			continue
		}
		if j >= 0 && ok(i, j, &bs[j]) {
			cls[i] = clsGood
		}
		j = i
	}
}

// codeInContent makes good the programs and listings (<pre>) that stand in
// the page's content: its main region (<main> or role="main"), an <article>
// or a story-body container (bodyName). HTML's <pre> is preformatted text
// (HTML Living Standard, 4.4.3), in a manual its examples; they have no
// function words to read as prose, so jusText can judge them only by their
// neighbours (revise), and in documentation those are short sentences that
// link what they name, judged by their own neighbours in turn: on MDN's
// pages every example went, with the sentences between them. Trafilatura
// keeps <pre> and <code> in the main body it finds. Two pages of a manual
// that differ in their examples differ in their content. WCXB's word F1
// with and without: wcxb 0.8164 and 0.8149 (documentation 0.902 and 0.894,
// 29 pages up, 3 down: MDN's live samples, whose source its gold leaves
// out; its test split 10 up, none down), cleaneval-final and
// mozilla-readability a page up each, the others the same.
func codeInContent(bs []block, st []blockStat, cls []uint8) {
	for i := range bs {
		b := &bs[i]
		if b.code && (b.inMain || b.article || b.body) && cls[i] != clsGood && st[i].words > 0 && !b.furniture(true) && !b.regionOut {
			cls[i] = clsGood
		}
	}
}

// runOnMinWords is the fewest words of a block runOn takes.
const runOnMinWords = 2

// bodyText takes as main text the blocks of a page's story-body containers
// (bodyName) that read as running text but that jusText left out: prose whose
// links are over its link density (a blog post that names its sources in
// every sentence: a 43rumors.com post whose two paragraphs are a third links
// was left for the sidebar's "share news and rumors" text), or that its
// neighbours took down. This is the first thing trafilatura looks for: its
// main-body expressions (xpaths.py, BODY_XPATH) are class names of the
// containers content systems put a story's body in. Here the blocks keep
// jusText's other rules: a block is taken only if it is a line or more
// (lengthLow), at most half links, with the stopword density of prose, so
// that a share widget's "these are external links" or a picture's credit in
// bbc.com's story-body stays out; nothing jusText took is dropped (taking the
// container alone cut msn.com's Earhart article, split over several
// containers of which one is so named, to a third). Measured by WCXB's word
// F1 against the corpus's gold texts (TestMainTextWordF1), with against
// without: cleanportaleval 0.929 vs 0.903, cx-bbc 0.936 vs 0.919, dragnet
// 0.874 vs 0.857, mozilla-readability 0.902 vs 0.897, scrapinghub-aeb 0.917
// vs 0.911, wcxb 0.790 vs 0.787, l3s-gn1 0.916 vs 0.917, others within
// 0.001.
func (e *Extractor) bodyText(bs []block, st []blockStat, cls []uint8) {
	// text: a block of the containers' own text, at most half links.
	text := func(b *block) bool { return b.body && !b.chrome && !b.title && 2*b.link <= b.end-b.start }
	words := 0
	for i := range bs {
		if text(&bs[i]) {
			words += st[i].words
		}
	}
	if words < bodyMinWords {
		return
	}
	for i := range bs {
		n := int(bs[i].end - bs[i].start)
		if cls[i] != clsGood && text(&bs[i]) && st[i].words > 0 && n >= lengthLow && byDensity(n, st[i], lengthHigh) != clsBad {
			cls[i] = clsGood
		}
	}
}

// bodyMinWords is the fewest words of text with few links a page's
// story-body containers hold for bodyText to look at them: an empty or
// placeholder container says nothing.
const bodyMinWords = 20

// bodyName says whether class and id values (lower case) name the container
// of a story's body, as the content systems name it: WordPress's
// entry-content, post-content and post-body of other blog engines,
// article-body and story-body of news sites, schema.org's articleBody
// (itemprop, read as a class), with their underscore and camel-case spellings.
func bodyName(l []byte) bool {
	for _, g := range bodyNames {
		if !bytes.Contains(l, g.word) {
			continue
		}
		for _, n := range g.names {
			if bytes.Contains(l, n) {
				return true
			}
		}
	}
	return false
}

// bodyNames are the story-body names by the word each holds, so that a class
// with none of the four words (most of a page's) is read four times, not
// once a name: read one by one the names cost 8% of the main text's time,
// and as a wordSet, whose scan looks at every byte, 2-3% more than this
// (BenchmarkMainText, interleaved runs).
var bodyNames = func() []bodyGroup {
	var out []bodyGroup
	for _, g := range []struct {
		word  string
		names []string
	}{
		{"content", []string{"entry-content", "entry_content", "entrycontent", "post-content", "post_content", "postcontent",
			"post__content", "article-content", "article_content", "articlecontent", "article__content",
			"story-content", "storycontent"}},
		{"body", []string{"entry-body", "entrybody", "post-body", "post_body", "postbody", "post__body",
			"article-body", "article_body", "articlebody", "article__body", "story-body", "storybody"}},
		{"text", []string{"post-text", "post_text", "article-text", "articletext", "story-text", "body-text"}},
		{"entry", []string{"post-entry", "postentry"}},
	} {
		bg := bodyGroup{word: []byte(g.word)}
		for _, n := range g.names {
			bg.names = append(bg.names, []byte(n))
		}
		out = append(out, bg)
	}
	return out
}()

// bodyGroup is the story-body names that hold one word.
type bodyGroup struct {
	word  []byte
	names [][]byte
}
