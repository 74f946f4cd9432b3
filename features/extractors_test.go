package features

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	readability "github.com/go-shiori/go-readability"
	distiller "github.com/markusmobius/go-domdistiller"
)

// The main-text libraries on the module proxy besides go-trafilatura
// (TestTrafilaturaWordF1): go-shiori/go-readability (a port of Mozilla's
// Readability.js, Firefox's reader view) and markusmobius/go-domdistiller (a
// port of Chromium's DOM Distiller). Each is given the page decoded to UTF-8
// by our charset detection, as go-trafilatura is, and its text is scored by
// WCXB's word F1 against the gold texts. A failure, an error or a panic is an
// empty extraction, as a missing prediction is in WCXB's evaluate.py.

func readabilityText(src []byte, pageURL string) (text string, failed bool) {
	defer func() {
		if recover() != nil {
			text, failed = "", true
		}
	}()
	u, _ := url.Parse(pageURL)
	a, err := readability.FromReader(bytes.NewReader(src), u)
	if err != nil {
		return "", true
	}
	return a.TextContent, false
}

func distillerText(src []byte, pageURL string) (text string, failed bool) {
	defer func() {
		if recover() != nil {
			text, failed = "", true
		}
	}()
	opts := &distiller.Options{SkipPagination: true}
	if u, err := url.Parse(pageURL); err == nil && u.IsAbs() {
		opts.OriginalURL = u
	}
	r, err := distiller.ApplyForReader(bytes.NewReader(src), opts)
	if err != nil || r == nil {
		return "", true
	}
	return r.Text, false
}

// TestOtherExtractorsWordF1 measures go-readability and go-domdistiller
// beside our main text on every corpus page with a gold text: word F1, and
// the CPU time of each a page. It is a measurement, logged, and slow (the
// two together take about as long as go-trafilatura), so it runs only when
// WARCDEDUP_EXTRACTORS is set; docs/method.md gives the figures.
func TestOtherExtractorsWordF1(t *testing.T) {
	if os.Getenv("WARCDEDUP_EXTRACTORS") == "" {
		t.Skip("WARCDEDUP_EXTRACTORS is not set: no measurement of other extractors")
	}
	pages := loadCorpus(t)
	ours := mainTextExtractor(t)
	dec := mainTextExtractor(t) // its decoder only
	type extractor struct {
		name string
		text func(src []byte, pageURL string) (string, bool)
	}
	others := []extractor{{"go-readability", readabilityText}, {"go-domdistiller", distillerText}}
	type acc struct {
		score  []wordAcc // ours, then each of others
		best   []wordAcc // the better of ours and each of others, page by page
		cpu    []time.Duration
		failed []int
	}
	newAcc := func() *acc {
		n := len(others) + 1
		return &acc{score: make([]wordAcc, n), best: make([]wordAcc, n), cpu: make([]time.Duration, n), failed: make([]int, n)}
	}
	by := map[string]*acc{}
	add := func(k string, s []wordScore, cpu []time.Duration, failed []bool) {
		a := by[k]
		if a == nil {
			a = newAcc()
			by[k] = a
		}
		for i := range s {
			a.score[i].add(s[i])
			b := s[0]
			if s[i].F1 > b.F1 {
				b = s[i]
			}
			a.best[i].add(b)
			a.cpu[i] += cpu[i]
			if failed[i] {
				a.failed[i]++
			}
		}
	}
	for _, p := range pages {
		if !goldPage(p) {
			continue
		}
		s := make([]wordScore, len(others)+1)
		cpu := make([]time.Duration, len(others)+1)
		failed := make([]bool, len(others)+1)
		c0 := cpuTime()
		d := ours.Extract(p.body, "", p.URL)
		s[0] = wordF1(mainTextString(ours, d), p.gold)
		cpu[0] = cpuTime() - c0
		src, _ := dec.decode(p.body, "")
		for i, x := range others {
			c0 := cpuTime()
			text, bad := x.text(src, p.URL)
			cpu[i+1], failed[i+1] = cpuTime()-c0, bad
			s[i+1] = wordF1(text, p.gold)
		}
		add(p.Dataset, s, cpu, failed)
		add("all", s, cpu, failed)
		if p.Dataset == "wcxb" {
			add("wcxb "+p.PageType, s, cpu, failed)
		}
	}
	for _, k := range sortedKeys(by) {
		a := by[k]
		n := float64(max(a.score[0].n, 1))
		line := fmt.Sprintf("%-24s pages %4d  ours F1 %.3f (%.2f ms)", k, a.score[0].n, a.score[0].mean().F1, a.cpu[0].Seconds()*1000/n)
		for i, x := range others {
			m := a.score[i+1].mean()
			line += fmt.Sprintf("  %s F1 %.3f P %.3f R %.3f (%.2f ms, %d failed; the better of it and ours %.3f)",
				x.name, m.F1, m.P, m.R, a.cpu[i+1].Seconds()*1000/n, a.failed[i+1], a.best[i+1].mean().F1)
		}
		t.Log(line)
	}
	for _, k := range sortedKeys(wordF1Floors) {
		if a := by[k]; a == nil || a.score[1].n != wordF1Floors[k].pages {
			t.Errorf("%s: the extractors did not run over the %d pages with gold text", k, wordF1Floors[k].pages)
		}
	}
}
