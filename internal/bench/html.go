package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
)

// The generator edits pages as DOM trees (golang.org/x/net/html). It is not a
// hot path: a page is parsed once per copy made of it.

// pageCharset is what is known of a page's encoding from its bytes.
type pageCharset struct {
	name     string // WHATWG name: "utf-8", "gbk", "windows-1252"
	enc      encoding.Encoding
	declared bool // by a BOM or a <meta> in the page
}

var metaCharset = regexp.MustCompile(`(?is)<meta[^>]+charset\s*=\s*["']?\s*([-a-z0-9_:.]+)`)

// detectCharset finds the page's encoding the way the page itself says it: a
// BOM, else a <meta> charset in the first 4 KiB; undeclared, it is UTF-8 when
// the bytes are valid UTF-8 and windows-1252 otherwise (the WHATWG default).
func detectCharset(b []byte) pageCharset {
	switch {
	case bytes.HasPrefix(b, []byte("\xef\xbb\xbf")):
		return named("utf-8", true)
	case bytes.HasPrefix(b, []byte("\xfe\xff")):
		return named("utf-16be", true)
	case bytes.HasPrefix(b, []byte("\xff\xfe")):
		return named("utf-16le", true)
	}
	head := b
	if len(head) > 4096 {
		head = head[:4096]
	}
	if m := metaCharset.FindSubmatch(head); m != nil {
		label := strings.ToLower(string(m[1]))
		if _, err := htmlindex.Get(label); err == nil {
			cs := named(label, true)
			// A page that declares UTF-16 in a <meta> is not UTF-16 (the
			// declaration could not have been read); HTML says UTF-8.
			if strings.HasPrefix(cs.name, "utf-16") {
				cs = named("utf-8", true)
			}
			return cs
		}
	}
	if utf8.Valid(b) {
		return named("utf-8", false)
	}
	return named("windows-1252", false)
}

func named(label string, declared bool) pageCharset {
	enc, err := htmlindex.Get(label)
	if err != nil {
		enc, _ = htmlindex.Get("utf-8")
	}
	name, _ := htmlindex.Name(enc)
	return pageCharset{name: name, enc: enc, declared: declared}
}

// contentType is the HTTP Content-Type for a page with these bytes: with the
// charset when the page declares it, or when its bytes are valid UTF-8 and not
// plain ASCII; without one otherwise, as many servers send it.
func (cs pageCharset) contentType(b []byte) string {
	if cs.declared || (cs.name == "utf-8" && !isASCII(b)) {
		return "text/html; charset=" + cs.name
	}
	return "text/html"
}

// editable says whether the generator may decode the page, edit it and encode
// it back: not when a CJK page does not say what its bytes are (its text would
// be decoded as windows-1252 and the inserted text would not match the page's).
func (cs pageCharset) editable(lang string) bool {
	if cs.declared || cs.name == "utf-8" {
		return !strings.HasPrefix(cs.name, "utf-16")
	}
	switch lang {
	case "zh", "ja", "ko":
		return false
	}
	return true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// parsePage decodes b and parses it.
func parsePage(b []byte, cs pageCharset) (*html.Node, error) {
	u, err := cs.enc.NewDecoder().Bytes(b)
	if err != nil {
		return nil, err
	}
	return html.Parse(bytes.NewReader(u))
}

// renderPage renders the tree and encodes it back into the page's charset;
// characters the charset cannot hold become numeric character references.
func renderPage(root *html.Node, cs pageCharset) ([]byte, error) {
	var buf bytes.Buffer
	if err := html.Render(&buf, root); err != nil {
		// x/net/html parses some modern pages into a void element with
		// children (a <link> in foreign content) and then refuses to render
		// them: the children follow the element instead, as a browser
		// shows them.
		hoistVoidChildren(root)
		buf.Reset()
		if err := html.Render(&buf, root); err != nil {
			return nil, err
		}
	}
	if cs.name == "utf-8" {
		return buf.Bytes(), nil
	}
	return encoding.HTMLEscapeUnsupported(cs.enc.NewEncoder()).Bytes(buf.Bytes())
}

// --- tree helpers

// voidElements are HTML's elements without content.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "keygen": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true}

// hoistVoidChildren moves the children of void elements to after them.
func hoistVoidChildren(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		hoistVoidChildren(c)
	}
	if n.Type != html.ElementNode || !voidElements[n.Data] || n.Parent == nil {
		return
	}
	for c := n.LastChild; c != nil; c = n.LastChild {
		n.RemoveChild(c)
		n.Parent.InsertBefore(c, n.NextSibling)
	}
}

func walk(n *html.Node, f func(*html.Node) bool) {
	if !f(n) {
		return
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		walk(c, f)
		c = next
	}
}

func find(root *html.Node, a atom.Atom) *html.Node {
	var out *html.Node
	walk(root, func(n *html.Node) bool {
		if out != nil {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == a {
			out = n
			return false
		}
		return true
	})
	return out
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val, true
		}
	}
	return "", false
}

func setAttr(n *html.Node, key, val string) {
	for i, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

func elem(a atom.Atom, attrs ...string) *html.Node {
	n := &html.Node{Type: html.ElementNode, DataAtom: a, Data: a.String()}
	for i := 0; i+1 < len(attrs); i += 2 {
		n.Attr = append(n.Attr, html.Attribute{Key: attrs[i], Val: attrs[i+1]})
	}
	return n
}

func text(s string) *html.Node { return &html.Node{Type: html.TextNode, Data: s} }

func withText(n *html.Node, s string) *html.Node {
	n.AppendChild(text(s))
	return n
}

func removeChildren(n *html.Node) {
	for n.FirstChild != nil {
		n.RemoveChild(n.FirstChild)
	}
}

func insertAfter(ref, n *html.Node) {
	if ref.Parent == nil {
		return
	}
	if ref.NextSibling == nil {
		ref.Parent.AppendChild(n)
	} else {
		ref.Parent.InsertBefore(n, ref.NextSibling)
	}
}

func skipText(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Head, atom.Template, atom.Iframe:
		return true
	}
	return false
}

// nodeText is the visible text under n, words separated by spaces.
func nodeText(n *html.Node) string {
	var sb strings.Builder
	walk(n, func(c *html.Node) bool {
		if skipText(c) {
			return false
		}
		if c.Type == html.TextNode {
			sb.WriteString(c.Data)
			sb.WriteByte(' ')
		}
		return true
	})
	return strings.Join(strings.Fields(sb.String()), " ")
}

// tokens splits s into lower-case words, each Han, Hiragana, Katakana or
// Hangul character being a word of its own.
func tokens(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		cjk := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
		word := !cjk && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !word && start >= 0 {
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
		if cjk {
			out = append(out, string(r))
		} else if word && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(s[start:]))
	}
	return out
}

// mainContent finds the element holding a page's main content: the element
// maximizing (gold tokens inside) - (other tokens inside), where gold is the
// page's human-marked main text. It returns nil if no element below <body>
// holds at least 30% of the gold tokens with more gold than other text.
func mainContent(root *html.Node, gold string) *html.Node {
	goldSet := map[string]bool{}
	goldN := 0
	for _, t := range tokens(gold) {
		goldSet[t] = true
		goldN++
	}
	if goldN == 0 {
		return nil
	}
	var best *html.Node
	bestScore := 0
	var score func(n *html.Node) (hits, total int)
	score = func(n *html.Node) (hits, total int) {
		if skipText(n) {
			return 0, 0
		}
		if n.Type == html.TextNode {
			for _, t := range tokens(n.Data) {
				total++
				if goldSet[t] {
					hits++
				}
			}
			return hits, total
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			h, t := score(c)
			hits += h
			total += t
		}
		if n.Type == html.ElementNode && n.DataAtom != atom.Html && n.DataAtom != atom.Body {
			if s := 2*hits - total; s > bestScore && 10*hits >= 3*goldN && inBody(n) {
				best, bestScore = n, s
			}
		}
		return hits, total
	}
	score(root)
	return best
}

func inBody(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.Body {
			return true
		}
	}
	return false
}

// goldLines splits a gold text into its non-empty lines.
func goldLines(gold string) []string {
	var out []string
	for _, l := range strings.Split(gold, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// headline is the first line of a gold text when it is short enough to be one.
func headline(gold string) string {
	ls := goldLines(gold)
	if len(ls) > 0 && utf8.RuneCountInString(ls[0]) <= 200 {
		return ls[0]
	}
	return ""
}

// --- case 2: syndication

// syndicate puts the gold text src into the frame of the host page: the host's
// main content element is emptied and filled with the story (headline, then a
// paragraph per line), the <title> names the story, host headline copies
// outside the main element (breadcrumbs, share boxes) name the story instead,
// and what else of the host's story stands outside the main element (a
// paragraph or list the element did not hold) is removed, so that the page
// holds one story. A story of one line has no headline: it is a paragraph, the
// host's headline copies go, and the title stays the host's. It reports false
// when the host's main content cannot be found.
func syndicate(root *html.Node, hostGold, src string) bool {
	mc := mainContent(root, hostGold)
	if mc == nil {
		return false
	}
	removeComments(root, mc)
	removeChildren(mc)
	lines := goldLines(src)
	hl := ""
	if len(lines) > 1 {
		hl = headline(src)
	}
	if hl != "" {
		mc.AppendChild(withText(elem(atom.H1), hl))
		lines = lines[1:]
	}
	for _, l := range lines {
		mc.AppendChild(withText(elem(atom.P), l))
	}
	hostHL := headline(hostGold)
	if t := find(root, atom.Title); t != nil && hl != "" {
		old := nodeText(t)
		nt := hl
		if hostHL != "" && strings.Contains(old, hostHL) {
			nt = strings.Replace(old, hostHL, hl, 1)
		}
		removeChildren(t)
		t.AppendChild(text(nt))
	}
	if body := find(root, atom.Body); body != nil {
		removeHostStory(body, mc, hostGold, hostHL, hl)
	}
	return true
}

// hostRemnantMin is the fewest words of an element outside the main element
// that removeHostStory takes for a part of the host's story: a sentence.
const hostRemnantMin = 8

// removeHostStory clears what of the host's story stands in body outside the
// main element mc: a text node that is the host's headline becomes hl (a
// breadcrumb or share box names the page's story), one that is another line
// of the host's story of 16 characters or more is emptied, and an element
// whose words are a run of hostRemnantMin or more of the host story's words
// in order (a paragraph or a list the element did not hold) is removed.
func removeHostStory(body, mc *html.Node, hostGold, hostHL, hl string) {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	hostLines := map[string]bool{}
	for _, l := range goldLines(hostGold) {
		if utf8.RuneCountInString(l) >= 16 {
			hostLines[norm(l)] = true
		}
	}
	hostHL = norm(hostHL)
	// The host story's words, joined, so that a run of them in order is a
	// substring that starts and ends at word boundaries.
	hostWords := " " + strings.Join(tokens(hostGold), " ") + " "
	var gone []*html.Node
	walk(body, func(n *html.Node) bool {
		if n == mc || skipText(n) {
			return false
		}
		switch n.Type {
		case html.TextNode:
			switch t := norm(n.Data); {
			case t != "" && t == hostHL:
				n.Data = hl
			case hostLines[t]:
				n.Data = ""
			}
		case html.ElementNode:
			if holds(n, mc) || n.DataAtom == atom.Body {
				return true
			}
			if ws := tokens(nodeText(n)); len(ws) >= hostRemnantMin && strings.Contains(hostWords, " "+strings.Join(ws, " ")+" ") {
				gone = append(gone, n)
				return false
			}
		}
		return true
	})
	removeNodes(gone)
}

var commentName = regexp.MustCompile(`(?i)(^|[-_\s])(comments?|commentlist|comment-list|comments-list|disqus|disqus_thread|respond|replies|discussion|talkback|reader-comments|user-comments)([-_\s\d]|$)`)

// removeComments removes the host page's comment sections: readers' comments
// are about the host's own story, not part of its frame. A comment section is
// an element outside the main content mc, not holding it, whose id or class
// names comments and which holds more than 200 characters of text.
func removeComments(root, mc *html.Node) {
	var gone []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if n == mc || skipText(n) {
			return false
		}
		if n.DataAtom == atom.Html || n.DataAtom == atom.Body {
			return true
		}
		id, _ := attr(n, "id")
		class, _ := attr(n, "class")
		if (commentName.MatchString(id) || commentName.MatchString(class)) && !holds(n, mc) && len(nodeText(n)) > 200 {
			gone = append(gone, n)
			return false
		}
		return true
	})
	removeNodes(gone)
}

// removeNodes takes each node out of its tree (collected during a walk,
// which must not change the tree it walks).
func removeNodes(ns []*html.Node) {
	for _, n := range ns {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// holds reports whether n is m or an ancestor of m.
func holds(n, m *html.Node) bool {
	for ; m != nil; m = m.Parent {
		if m == n {
			return true
		}
	}
	return false
}

// --- case 1: re-captures

// link is a page of the same site, for a "related articles" list.
type link struct{ URL, Title string }

// recapture applies to a page what changes between two crawls of it: the
// times of day in its text outside the story and a "last updated" line,
// session ids in its same-site links and tokens in its forms, its ad and promo
// blocks, its comment counts, and a "related articles" list of other pages of
// the site. gold (may be "") locates the story (the main content), after which
// the related list goes.
func recapture(root *html.Node, rng *rand.Rand, pageURL, gold string, when time.Time, related []link, zh bool) {
	body := find(root, atom.Body)
	if body == nil {
		return
	}
	var mc *html.Node
	if gold != "" {
		mc = mainContent(root, gold)
	}
	changeTimes(body, mc, rng)
	stamp := elem(atom.Div, "class", "last-updated")
	if zh {
		withText(stamp, "更新时间："+when.Format("2006-01-02 15:04:05"))
	} else {
		withText(stamp, "Last updated "+when.Format(time.RFC1123))
	}
	body.InsertBefore(stamp, body.FirstChild)
	addSessionIDs(body, rng, pageURL)
	swapAds(body, rng, zh)
	changeCommentCounts(body, rng)
	if len(related) > 0 {
		box := elem(atom.Div, "class", "related-articles")
		if zh {
			withText(box, "相关新闻")
		} else {
			box.AppendChild(withText(elem(atom.H3), "Related articles"))
		}
		ul := elem(atom.Ul)
		for _, l := range related {
			a := withText(elem(atom.A, "href", l.URL), l.Title)
			li := elem(atom.Li)
			li.AppendChild(a)
			ul.AppendChild(li)
		}
		box.AppendChild(ul)
		if mc != nil && mc.Parent != nil {
			insertAfter(mc, box)
		} else {
			body.AppendChild(box)
		}
	}
	body.AppendChild(&html.Node{Type: html.CommentNode,
		Data: fmt.Sprintf(" page served in %dms by web%02d at %s ", 20+rng.IntN(900), rng.IntN(40), when.Format(time.RFC3339))})
}

var timeOfDay = regexp.MustCompile(`\b([01]?\d|2[0-3]):([0-5]\d)\b`)

// changeTimes redraws the times of day in the page's text outside its main
// content mc (may be nil): clocks, "updated at" lines, tickers. A story's own
// times are the story's and stay.
func changeTimes(body, mc *html.Node, rng *rand.Rand) {
	walk(body, func(n *html.Node) bool {
		if skipText(n) || n == mc {
			return false
		}
		if n.Type == html.TextNode {
			n.Data = timeOfDay.ReplaceAllStringFunc(n.Data, func(string) string {
				return fmt.Sprintf("%d:%02d", rng.IntN(24), rng.IntN(60))
			})
		}
		return true
	})
}

func token(rng *rand.Rand, n int) string {
	const hex = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hex[rng.IntN(16)]
	}
	return string(b)
}

var sessionParam = regexp.MustCompile(`(?i)([?&;](?:sid|jsessionid|phpsessid|sessionid|session_id|token)=)[^&#]*`)

// addSessionIDs adds (or renews) a session id in every same-site link and a
// token in every form, as servers that track sessions in URLs do.
func addSessionIDs(body *html.Node, rng *rand.Rand, pageURL string) {
	sid := token(rng, 32)
	host := hostOf(pageURL)
	style := rng.IntN(3)
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.A:
			href, ok := attr(n, "href")
			if !ok || strings.HasPrefix(href, "#") || strings.HasPrefix(strings.ToLower(href), "javascript:") ||
				strings.HasPrefix(strings.ToLower(href), "mailto:") {
				return true
			}
			if h := hostOf(href); h != "" && h != host {
				return true
			}
			if sessionParam.MatchString(href) {
				setAttr(n, "href", sessionParam.ReplaceAllString(href, "${1}"+sid))
				return true
			}
			frag := ""
			if i := strings.IndexByte(href, '#'); i >= 0 {
				href, frag = href[:i], href[i:]
			}
			switch {
			case style == 0:
				href += ";jsessionid=" + strings.ToUpper(sid)
			case strings.Contains(href, "?"):
				href += "&sid=" + sid
			default:
				href += "?sid=" + sid
			}
			setAttr(n, "href", href+frag)
		case atom.Form:
			in := elem(atom.Input, "type", "hidden", "name", "csrf_token", "value", token(rng, 40))
			n.InsertBefore(in, n.FirstChild)
		case atom.Input:
			if t, _ := attr(n, "type"); strings.EqualFold(t, "hidden") {
				name, _ := attr(n, "name")
				if tokenName.MatchString(name) {
					setAttr(n, "value", token(rng, 24+rng.IntN(40)))
				}
			}
		}
		return true
	})
}

var tokenName = regexp.MustCompile(`(?i)token|sid|session|csrf|viewstate|eventvalidation|nonce|ts|time`)

func hostOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		if strings.HasPrefix(u, "//") {
			i = 0
		} else {
			return ""
		}
	}
	rest := u[i+len("://"):]
	if i == 0 {
		rest = u[2:]
	}
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	return strings.ToLower(rest)
}

// adNamed says whether an id or class value names an advertisement slot.
// WordPress names a post's categories and tags in its container's class
// ("category-white-label-native-advertising-platform"): those say what the
// post is about, and a re-capture that swapped that container for an
// advert would have lost the story it is labelled a copy of.
func adNamed(v string) bool {
	for _, tok := range strings.Fields(v) {
		if strings.HasPrefix(tok, "category-") || strings.HasPrefix(tok, "tag-") {
			continue
		}
		if adName.MatchString(tok) {
			return true
		}
	}
	return false
}

var adName = regexp.MustCompile(`(?i)(^|[-_\s])(ad|ads|adv|advert|advertisement|advertising|banner|promo|promotion|sponsor|sponsored|dfp|gpt|adslot|adunit|adsense)([-_\s\d]|$)`)

var promosEN = []string{
	"Subscribe today and save %d%% on your first year",
	"Win a weekend for two in %s - enter now",
	"Best %s deals of the week: up to %d%% off",
	"Breaking news alerts straight to your phone. Download our app",
	"Find local %s near you. Compare prices now",
	"Sponsored: Why %s readers are switching their insurance",
	"Try our newsletter free for %d days",
}

var promosZH = []string{
	"限时优惠：订阅全年立减%d%%",
	"赢取%s双人游，立即参加",
	"本周%s特价，低至%d折",
	"下载客户端，第一时间获取新闻推送",
	"推广：%s读者都在用的理财工具",
}

var promoWords = []string{"Paris", "London", "Tokyo", "laptop", "travel", "mortgage", "car", "phone", "hotel", "fitness"}
var promoWordsZH = []string{"巴黎", "伦敦", "东京", "笔记本", "旅游", "房贷", "汽车", "手机", "酒店", "健身"}

func promo(rng *rand.Rand, zh bool) string {
	ps, ws := promosEN, promoWords
	if zh {
		ps, ws = promosZH, promoWordsZH
	}
	p := ps[rng.IntN(len(ps))]
	var args []any
	for i := 0; i+1 < len(p); i++ {
		if p[i] != '%' {
			continue
		}
		switch p[i+1] {
		case 'd':
			args = append(args, 10+rng.IntN(80))
		case 's':
			args = append(args, ws[rng.IntN(len(ws))])
		}
		i++
	}
	return fmt.Sprintf(p, args...)
}

// swapAds replaces the contents of the page's ad and promo blocks (elements
// whose id or class names an ad) with other promotions; a page with none gets
// one promo block after its first element.
func swapAds(body *html.Node, rng *rand.Rand, zh bool) {
	var ads []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if skipText(n) {
			return false
		}
		id, _ := attr(n, "id")
		class, _ := attr(n, "class")
		if adNamed(id) || adNamed(class) {
			ads = append(ads, n)
			return false
		}
		return true
	})
	for _, n := range ads {
		if n.DataAtom == atom.Img || n.DataAtom == atom.Input || n.DataAtom == atom.Br {
			continue
		}
		removeChildren(n)
		a := elem(atom.A, "href", fmt.Sprintf("http://ads.example-adserver.com/click?cid=%d&r=%s", rng.IntN(1e6), token(rng, 12)))
		a.AppendChild(elem(atom.Img, "src", fmt.Sprintf("http://ads.example-adserver.com/b/%d.jpg", rng.IntN(1e6)), "alt", ""))
		a.AppendChild(text(promo(rng, zh)))
		n.AppendChild(a)
	}
	if len(ads) == 0 && body.FirstChild != nil {
		box := elem(atom.Div, "class", "promo")
		box.AppendChild(withText(elem(atom.A, "href", fmt.Sprintf("/promo/%d", rng.IntN(1e5))), promo(rng, zh)))
		insertAfter(body.FirstChild, box)
	}
}

var commentCount = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(\d+)(\s*(?:comments?|responses?|replies|reactions))\b`),
	regexp.MustCompile(`(?i)((?:comments?|replies)\s*[(\[]\s*)(\d+)(\s*[)\]])`),
	regexp.MustCompile(`(\d+)(\s*(?:条评论|条回复|人参与|人评论|跟贴))`),
	regexp.MustCompile(`((?:评论|跟贴|回复)\s*[(（]\s*)(\d+)(\s*[)）])`),
}

// changeCommentCounts raises every comment count in the page's text.
func changeCommentCounts(body *html.Node, rng *rand.Rand) {
	walk(body, func(n *html.Node) bool {
		if skipText(n) {
			return false
		}
		if n.Type != html.TextNode {
			return true
		}
		for i, re := range commentCount {
			n.Data = re.ReplaceAllStringFunc(n.Data, func(m string) string {
				sub := re.FindStringSubmatch(m)
				numAt := 1
				if i == 1 || i == 3 {
					numAt = 2
				}
				v, _ := strconv.Atoi(sub[numAt])
				sub[numAt] = strconv.Itoa(v + 1 + rng.IntN(40))
				return strings.Join(sub[1:], "")
			})
		}
		return true
	})
}
