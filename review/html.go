package review

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/warcdedup/warcdedup/dedup"
)

// Defaults of Options.
const (
	DefaultMaxText = 4000 // bytes of each main text compared
	DefaultContext = 6    // words of equal text shown either side of a change
	DefaultMaxDiff = 1500 // bytes of words shown for each side of a diff
	maxSiteList    = 300  // sites offered in the site filter's list
)

// Options says how Write makes the page. The zero value is usable: no texts,
// default sizes.
type Options struct {
	// Title heads the page; "" gives "warcdedup review".
	Title string
	// Texts returns the main text of a record by its WARC-Record-ID; nil, or
	// false for a record, shows that decision's URLs and figures only.
	// WARCTexts makes one from WARC files.
	Texts func(recordID string) (string, bool)
	// ReadWARCs, when Texts is nil, makes Write read the texts itself with
	// WARCTexts from the files the report names (its "file" fields) and
	// WARCs.
	ReadWARCs bool
	// WARCs are more WARC files or directories of them to look for records
	// in: the outputs of the run, or where the inputs now are.
	WARCs []string
	// MaxText cuts each text to this many bytes before the diff (0:
	// DefaultMaxText, negative: no cut).
	MaxText int
	// Context is the number of equal words shown either side of a change
	// (0: DefaultContext); longer equal runs are collapsed to a count.
	Context int
	// MaxDiff bounds the bytes of words shown for each side of one diff (0:
	// DefaultMaxDiff, negative: no bound); the rest is counted, not shown.
	MaxDiff int
}

func (o *Options) defaults() {
	if o.Title == "" {
		o.Title = "warcdedup review"
	}
	if o.MaxText == 0 {
		o.MaxText = DefaultMaxText
	}
	if o.Context <= 0 {
		o.Context = DefaultContext
	}
	if o.MaxDiff == 0 {
		o.MaxDiff = DefaultMaxDiff
	}
}

// Write reads a warcdedup JSON lines report and writes the review page of its
// near duplicates and containments to w: one self-contained HTML file (see the
// package documentation).
func Write(report io.Reader, w io.Writer, opts Options) error {
	rep, err := ReadReport(report)
	if err != nil {
		return err
	}
	if opts.Texts == nil && opts.ReadWARCs {
		mt := opts.MaxText
		if mt == 0 {
			mt = DefaultMaxText
		}
		paths := append(append([]string(nil), rep.Files...), opts.WARCs...)
		texts, err := WARCTexts(paths, rep.RecordIDs(), max(mt, 0))
		if err != nil {
			return err
		}
		opts.Texts = texts
	}
	return WriteReport(rep, w, opts)
}

// WriteReport writes the review page of a report already read.
func WriteReport(rep *Report, w io.Writer, opts Options) error {
	opts.defaults()
	bw := bufio.NewWriterSize(w, 256<<10)
	p := &page{w: bw, opts: opts}
	p.write(rep)
	if err := bw.Flush(); err != nil {
		return err
	}
	return p.err
}

type page struct {
	w    *bufio.Writer
	opts Options
	err  error
}

func (p *page) s(s string) {
	if p.err == nil {
		_, p.err = p.w.WriteString(s)
	}
}

// e writes s escaped for HTML text and quoted attribute values.
func (p *page) e(s string) { p.s(html.EscapeString(s)) }

func (p *page) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

const css = `body{font:14px/1.4 system-ui,sans-serif;margin:0 1em;color:#222}
header{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #ccc;z-index:1}
h1{font-size:1.3em;margin:.2em 0}
.sum{color:#555}
[hidden]{display:none!important}
details{border-bottom:1px solid #eee;padding:2px 0}
summary{cursor:pointer;overflow-wrap:anywhere}
summary b{display:inline-block;width:3.2em;text-align:right;margin-right:.4em}
.t{display:inline-block;min-width:11em;padding:0 .3em;border-radius:3px;background:#eef}
.t.k{background:#fed}.t.c{background:#efe}
.m{color:#666;font-size:.9em}
dl{display:grid;grid-template-columns:max-content 1fr;gap:0 1em;margin:.4em 0 .4em 2em}
dt{color:#666}dd{margin:0;overflow-wrap:anywhere}
table.df{border-collapse:collapse;width:100%;table-layout:fixed;margin:.3em 0 .6em}
table.df th{text-align:left;font-weight:normal;color:#666}
table.df td{vertical-align:top;border:1px solid #ddd;padding:2px 4px;overflow-wrap:anywhere}
del{background:#fcc;text-decoration:line-through}ins{background:#cfc;text-decoration:none}
td.g{color:#888;text-align:center;font-style:italic;border:none}
.n{color:#888;font-style:italic;margin-left:2em}
`

// script filters the rows; with the URL fragment #selftest it selects a tier
// after load and reports the rows left visible in <output id="selftest">.
const script = `(function(){
var tier=document.getElementById('tier'),site=document.getElementById('site'),shown=document.getElementById('shown');
var rows=document.querySelectorAll('details.r');
function apply(){var t=tier.value,s=site.value.trim().toLowerCase(),n=0;
for(var i=0;i<rows.length;i++){var r=rows[i],ok=(!t||r.dataset.t===t)&&(!s||r.dataset.s.indexOf(s)>=0);
if(r.hidden===ok)r.hidden=!ok;if(ok)n++}shown.textContent=n;return n}
tier.addEventListener('change',apply);site.addEventListener('input',apply);
if(location.hash==='#selftest')addEventListener('load',function(){
var o=document.getElementById('selftest'),h=document.body.offsetHeight,ms=performance.now(),pick='';
for(var i=0;i<tier.options.length;i++){var v=tier.options[i].value;if(v==='replaced'||(!pick&&v))pick=v}
tier.value=pick;tier.dispatchEvent(new Event('change'));
var vis=0;for(var i=0;i<rows.length;i++)if(!rows[i].hidden)vis++;
o.setAttribute('data-tier',pick);o.setAttribute('data-visible',vis);o.setAttribute('data-total',rows.length);
o.setAttribute('data-load-ms',Math.round(ms));o.setAttribute('data-height',h);o.textContent='selftest: '+vis+' of '+rows.length+' rows visible';
for(var i=0;i<rows.length;i++)if(!rows[i].hidden){rows[i].open=true;break}});
})();`

func (p *page) write(rep *Report) {
	p.s("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
	p.e(p.opts.Title)
	p.s("</title>\n<meta name=\"viewport\" content=\"width=device-width\">\n<style>\n")
	p.s(css)
	p.s("</style></head><body>\n<header><h1>")
	p.e(p.opts.Title)
	p.s("</h1>\n")
	tiers := map[string]int{}
	var tierOrder []string
	sites := map[string]int{}
	near, cont := 0, 0
	for _, d := range rep.Decisions {
		t := Tier(d)
		if tiers[t] == 0 {
			tierOrder = append(tierOrder, t)
		}
		tiers[t]++
		for _, s := range rowSites(d) {
			sites[s]++
		}
		if d.Kind == "containment" {
			cont++
		} else {
			near++
		}
	}
	p.f("<p class=\"sum\">%s and %s listed, least confident first; %s (not listed); %s.",
		plural(near, "near duplicate"), plural(cont, "containment"), plural(rep.Exact, "exact duplicate"), plural(rep.Clusters, "cluster"))
	if len(tierOrder) > 0 {
		p.s(" Tiers:")
		for k, t := range tierOrder {
			if k > 0 {
				p.s(",")
			}
			p.s(" ")
			p.e(t)
			p.f(" %d", tiers[t])
		}
		p.s(".")
	}
	p.s("</p>\n")
	p.s("<p><label>Tier <select id=\"tier\"><option value=\"\">all</option>")
	for _, t := range tierOrder {
		p.s("<option value=\"")
		p.e(t)
		p.s("\">")
		p.e(t)
		p.f(" (%d)</option>", tiers[t])
	}
	p.s("</select></label> <label>Site <input id=\"site\" list=\"sites\" placeholder=\"part of a host name\"></label> ")
	p.f("<span id=\"shown\">%d</span> shown <output id=\"selftest\"></output></p>\n", len(rep.Decisions))
	p.writeSites(sites)
	p.s("</header>\n<main>\n")
	if len(rep.Decisions) == 0 {
		p.s("<p>No near duplicates or containments in this report.</p>\n")
	}
	for _, d := range rep.Decisions {
		p.row(d)
	}
	p.s("</main>\n<script>\n")
	p.s(script)
	p.s("\n</script>\n</body></html>\n")
}

// writeSites writes the site filter's suggestions: the most frequent sites.
func (p *page) writeSites(sites map[string]int) {
	list := make([]string, 0, len(sites))
	for s := range sites {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool {
		if sites[list[i]] != sites[list[j]] {
			return sites[list[i]] > sites[list[j]]
		}
		return list[i] < list[j]
	})
	if len(list) > maxSiteList {
		list = list[:maxSiteList]
	}
	p.s("<datalist id=\"sites\">")
	for _, s := range list {
		p.s("<option value=\"")
		p.e(s)
		p.s("\">")
	}
	p.s("</datalist>\n")
}

// rowSites are the sites of a decision's two URIs.
func rowSites(d dedup.Duplicate) []string {
	a, b := Site(d.URI), Site(d.KeptURI)
	switch {
	case a == b && a == "":
		return nil
	case a == b || b == "":
		return []string{a}
	case a == "":
		return []string{b}
	}
	return []string{a, b}
}

func fmtSim(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// link writes a URI as a link when it is an http(s) URL, as text otherwise.
func (p *page) link(uri string) {
	if u, err := url.Parse(uri); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		p.s("<a href=\"")
		p.e(uri)
		p.s("\">")
		p.e(uri)
		p.s("</a>")
		return
	}
	p.e(uri)
}

// row writes one decision: a summary line and, inside the closed details, the
// figures and the diff of the two texts.
func (p *page) row(d dedup.Duplicate) {
	t := Tier(d)
	cls := "t"
	switch {
	case d.Kind == "containment":
		cls = "t c"
	case d.Action != "revisit":
		cls = "t k"
	}
	p.s("<details class=\"r\" data-t=\"")
	p.e(t)
	p.s("\" data-s=\"")
	p.e(strings.Join(rowSites(d), " "))
	p.s("\"><summary><b>")
	p.s(fmtSim(d.Similarity))
	p.f("</b><span class=\"%s\">", cls)
	p.e(t)
	p.s("</span> <span class=\"m\">")
	p.e(d.Method)
	p.s(" ")
	p.e(d.Relation)
	p.s("</span> ")
	p.link(d.URI)
	p.s(" → ")
	p.link(d.KeptURI)
	p.s("</summary>\n<dl><dt>dates<dd>")
	p.e(d.Date)
	p.s(", kept ")
	p.e(d.KeptDate)
	p.s("<dt>decision<dd>")
	p.e(d.Action)
	switch {
	case d.Kind == "containment":
		p.s(" — containment")
		if d.Direction != "" {
			p.s(", ")
			p.e(d.Direction)
		}
		p.f(", %s of the smaller text held in the other", fmtSim(d.Containment))
	case d.Action == "revisit":
		p.s(" — replaced")
	default:
		p.s(" — kept")
		if d.Reason != "" {
			p.s(": ")
			p.e(d.Reason)
		}
	}
	p.s("<dt>evidence<dd>")
	p.e(d.Method)
	p.f(" similarity %s, %s", fmtSim(d.Similarity), html.EscapeString(d.Relation))
	switch {
	case d.Shared > 0:
		p.f("; shared signatures %d of %d (kept %d)", d.Shared, d.Signatures, d.KeptSignatures)
		if d.Own > 0 {
			p.f(", %d not in the kept page", d.Own)
		}
	case d.Signatures > 0 || d.KeptSignatures > 0:
		p.f("; signatures %d (kept %d)", d.Signatures, d.KeptSignatures)
	}
	p.s("<dt>records<dd>")
	p.e(d.RecordID)
	p.s(" in ")
	p.e(d.File)
	p.s(", kept ")
	p.e(d.KeptID)
	p.s("</dl>\n")
	p.texts(d)
	p.s("</details>\n")
}

// texts writes the diff of a decision's two main texts, or says why there is
// none.
func (p *page) texts(d dedup.Duplicate) {
	if p.opts.Texts == nil {
		return
	}
	// The kept record is the earlier: the diff goes from it to the duplicate.
	a, okA := p.opts.Texts(d.KeptID)
	b, okB := p.opts.Texts(d.RecordID)
	// Not found: the record is in none of the WARC files read (a file the
	// report names, moved or named relative to another directory).
	switch {
	case !okA && !okB:
		p.s("<p class=\"n\">Neither record was found in the WARC files read: no text to compare.</p>\n")
		return
	case !okB:
		p.s("<p class=\"n\">The duplicate was not found in the WARC files read: no text to compare.</p>\n")
		return
	case !okA:
		p.s("<p class=\"n\">The kept record was not found in the WARC files read: no text to compare.</p>\n")
		return
	}
	a, cutA := truncate(a, p.opts.MaxText)
	b, cutB := truncate(b, p.opts.MaxText)
	wa, wb := words(a), words(b)
	if cutA || cutB {
		p.f("<p class=\"n\">Texts compared over their first %d bytes.</p>\n", p.opts.MaxText)
	}
	ops := diffWords(wa, wb)
	// A containment's page is kept whole too: it is the other page, not a
	// duplicate.
	right := "duplicate"
	if d.Kind == "containment" {
		right = "page kept whole"
	}
	p.diff(ops, wa, wb, right)
}

// diff writes the ops as a two-column table, a (the kept text) on the left
// with its own words in del, b (the duplicate's) on the right with its own in
// ins: changes with Context words of
// equal text around them, longer equal runs collapsed to a count.
func (p *page) diff(ops []op, a, b []string, right string) {
	changed := false
	for _, o := range ops {
		if o.kind != opEqual {
			changed = true
			break
		}
	}
	if !changed {
		p.f("<p class=\"n\">Main texts identical (%d words).</p>\n", len(a))
		return
	}
	ctx := p.opts.Context
	budget := p.opts.MaxDiff
	var l, r strings.Builder
	inRow := false
	shown := 0
	p.s("<table class=\"df\"><tr><th>kept<th>" + right + "\n")
	endRow := func() {
		if inRow {
			p.s("<tr><td>")
			p.s(l.String())
			p.s("</td><td>")
			p.s(r.String())
			p.s("</td></tr>\n")
			shown += l.Len() + r.Len()
			l.Reset()
			r.Reset()
			inRow = false
		}
	}
	gap := func(n int) {
		p.f("<tr><td class=\"g\" colspan=\"2\">… %d equal words …</td></tr>\n", n)
	}
	both := func(w string) {
		inRow = true
		ew := html.EscapeString(w)
		l.WriteString(ew)
		l.WriteByte(' ')
		r.WriteString(ew)
		r.WriteByte(' ')
	}
	for i := 0; i < len(ops); {
		if budget > 0 && (shown+l.Len()+r.Len())/2 > budget {
			rest := 0
			for _, o := range ops[i:] {
				if o.kind != opEqual {
					rest++
				}
			}
			endRow()
			p.f("<tr><td class=\"g\" colspan=\"2\">… %d more changed words not shown …</td></tr>\n", rest)
			break
		}
		j := i
		if ops[i].kind == opEqual {
			for j < len(ops) && ops[j].kind == opEqual {
				j++
			}
			n := j - i
			first, last := i == 0, j == len(ops)
			switch {
			case first && last:
				// not reached: the texts differ
			case first && n > ctx:
				gap(n - ctx)
				for _, o := range ops[j-ctx : j] {
					both(a[o.i])
				}
			case last && n > ctx:
				for _, o := range ops[i : i+ctx] {
					both(a[o.i])
				}
				endRow()
				gap(n - ctx)
			case !first && !last && n > 2*ctx+3:
				for _, o := range ops[i : i+ctx] {
					both(a[o.i])
				}
				endRow()
				gap(n - 2*ctx)
				for _, o := range ops[j-ctx : j] {
					both(a[o.i])
				}
			default:
				for _, o := range ops[i:j] {
					both(a[o.i])
				}
			}
			i = j
			continue
		}
		for j < len(ops) && ops[j].kind != opEqual {
			j++
		}
		inRow = true
		var dels, inss []string
		for _, o := range ops[i:j] {
			if o.kind == opDel {
				dels = append(dels, a[o.i])
			} else {
				inss = append(inss, b[o.j])
			}
		}
		changeRun(&l, "del", dels, budget)
		changeRun(&r, "ins", inss, budget)
		i = j
	}
	endRow()
	p.s("</table>\n")
}

// changeRun writes a run of changed words in a del or ins element, at most
// limit bytes of them (limit <= 0: all), the rest counted.
func changeRun(sb *strings.Builder, tag string, ws []string, limit int) {
	if len(ws) == 0 {
		return
	}
	sb.WriteString("<" + tag + ">")
	n := 0
	for k, w := range ws {
		if limit > 0 && n+len(w) > limit && k > 0 {
			sb.WriteString("</" + tag + "> <i>… " + strconv.Itoa(len(ws)-k) + " more words</i> ")
			return
		}
		if k > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(html.EscapeString(w))
		n += len(w) + 1
	}
	sb.WriteString("</" + tag + "> ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
