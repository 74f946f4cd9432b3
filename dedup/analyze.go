package dedup

import (
	"errors"
	"strings"

	"github.com/warcdedup/warcdedup/near"
	"github.com/warcdedup/warcdedup/warcio"
)

// Method says how near duplicates are found (near.Method).
type Method = near.Method

// Methods of near-duplicate matching.
const (
	MethodSpotSigs  = near.MethodSpotSigs
	MethodHenzinger = near.MethodHenzinger
)

// ParseMethod reads the --method flag's value.
func ParseMethod(s string) (Method, bool) { return near.ParseMethod(s) }

// NearMode says what happens to near duplicates.
type NearMode uint8

const (
	NearRevisit  NearMode = iota // replace them by revisit records (the default)
	NearAnnotate                 // keep them and add a metadata record saying what they duplicate
	NearOff                      // exact duplicates only
)

// ParseNearMode reads the --near flag's value.
func ParseNearMode(s string) (NearMode, bool) {
	switch s {
	case "revisit":
		return NearRevisit, true
	case "annotate":
		return NearAnnotate, true
	case "off":
		return NearOff, true
	}
	return 0, false
}

// maxAnalysed is the most payload bytes kept for analysis; the cap bounds
// memory with many pages in flight. A page cut there may lose the text that
// identifies it: modern shops put megabytes of JSON before their content
// (ridge.com's wallets, 2.7 MB, had no main text in its first 2 MiB, so its
// re-capture was never found). Of wcxb's 1,138 pages 14 are over 2 MiB and
// 3 over 4 MiB; the news datasets' largest is 1.6 MB.
const maxAnalysed = 4 << 20

func (d *Deduper) newAnalyzer() *near.Analyzer {
	a, err := near.NewAnalyzer(d.opts.Config)
	if err != nil {
		panic(err) // the configuration is ours and tested; an error is a bug
	}
	return a
}

// needsAnalysis says whether a record goes to the workers: an HTML page that
// near-duplicate matching can replace.
func (d *Deduper) needsAnalysis(it *item) bool {
	if d.opts.Near == NearOff || d.stage == stageApply || it.pay == nil || it.rec.Err != nil || it.rec.AfterDamage {
		return false
	}
	if it.pay.HTTP.StatusCode != 200 || it.pay.Length < d.opts.MinSize || it.pay.Length == 0 {
		return false
	}
	if it.rec.Header.Has("WARC-Truncated") || it.rec.Header.Has("WARC-Segment-Number") || shortBody(it.pay) {
		return false
	}
	return isHTML(it.pay.HTTP.Get("Content-Type"), it.pay.Body)
}

// exactCopy says whether a run need not analyse the page of it before its
// decision: a record with its payload digest was kept already, so it will
// most likely be an exact duplicate, whose page is never compared. A page
// analysis costs about as much as reading and digesting the record (profile
// of a map task: 20 of 54 CPU-seconds), and a re-crawl holds many exact
// copies. The hint is the kept digests as the decision loop has come (a
// copy read within a few records of its original is analysed all the
// same); should the decision find no kept copy after all, it analyses the
// page itself (Fact.later), so decisions never depend on the hint. A map
// task decides nothing and analyses every page.
func (d *Deduper) exactCopy(it *item) bool {
	if d.stage != stageRun {
		return false
	}
	if testExactCopy != nil {
		it.later = testExactCopy(it)
		return it.later
	}
	digest := it.rec.Header.Get("WARC-Payload-Digest")
	if digest == "" {
		digest = it.pay.Digest
	}
	if !d.exact.known(digest) {
		return false
	}
	it.later = true
	return true
}

// testExactCopy, if set by a test, answers exactCopy's question instead of
// the index of kept digests.
var testExactCopy func(*item) bool

// analyzeLater returns the Fact.later of an item whose analysis was left to
// the decision loop. A panic fails the file, as one in a worker's analysis
// does (Deduper.analyze), and the analyzer is made anew.
func (d *Deduper) analyzeLater(name string, it *item) func(*Fact) error {
	return func(f *Fact) (err error) {
		defer func() {
			if v := recover(); v != nil {
				d.judgeAnalyzer = nil
				err = newPanicError(name, it.rec, v)
			}
		}()
		if d.judgeAnalyzer == nil {
			d.judgeAnalyzer = d.newAnalyzer()
		}
		analyzePage(d.judgeAnalyzer, it)
		if it.page.OK() {
			f.page = it.page
			f.entity = entityOf(it.pay.HTTP)
		}
		return nil
	}
}

// keepBody is how many payload bytes the reader keeps for analysis: none unless
// the response may be an HTML page that near-duplicate matching could replace.
func (d *Deduper) keepBody(h *warcio.HTTPResponse) int {
	if d.opts.Near == NearOff || d.stage == stageApply || h.StatusCode != 200 {
		return 0
	}
	ct := strings.ToLower(h.Get("Content-Type"))
	if ct == "" || strings.Contains(ct, "html") || strings.HasPrefix(ct, "text/plain") || strings.HasPrefix(ct, "application/octet-stream") {
		return maxAnalysed
	}
	return 0
}

func isHTML(ctype string, body []byte) bool {
	ct := strings.ToLower(ctype)
	if strings.Contains(ct, "html") {
		return true
	}
	if ct != "" && !strings.HasPrefix(ct, "text/plain") && !strings.HasPrefix(ct, "application/octet-stream") {
		return false
	}
	// No or a generic content type: look for markup, as browsers sniff.
	head := strings.ToLower(string(body[:min(len(body), 512)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

// testAnalyzeHook, if set by a test, is called at the start of each analysis.
var testAnalyzeHook func(*item)

// analyzePage makes the item's near-duplicate page.
func analyzePage(a *near.Analyzer, it *item) {
	if testAnalyzeHook != nil {
		testAnalyzeHook(it)
	}
	body, err := it.pay.Decode(maxAnalysed)
	if errors.Is(err, warcio.ErrEncodingCut) {
		// Cut off in transfer: no kept copy, nor replaced (shortBody).
		it.encodingCut = true
		return
	}
	if it.pay.Cut || len(body) >= maxAnalysed {
		// Analysed in part: its page would say nothing of the text after
		// the cap, which a near revisit would throw away (two captures
		// alike in their first 4 MiB and not after). It has no page: only
		// an exact duplicate replaces it.
		return
	}
	it.page = a.Page(body, it.pay.HTTP.Get("Content-Type"), it.rec.Header.Get("WARC-Target-URI"))
}

// nearIdx is the index of kept pages, made on first use.
func (d *Deduper) nearIdx() *near.Index {
	if d.near == nil {
		x, err := near.NewIndex(d.opts.Config)
		if err != nil {
			panic(err) // thresholds are checked by the command line
		}
		d.near = x
	}
	return d.near
}
