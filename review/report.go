package review

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/warcdedup/warcdedup/dedup"
)

// Report is what a review page is made of: the report's near duplicates and
// containments in review order, and counts of the rest.
type Report struct {
	// Decisions are the near duplicates (kind "duplicate", method other than
	// "exact") and the containments, least confident first (see Sort).
	Decisions []dedup.Duplicate
	Exact     int      // exact duplicates: counted, not listed
	Clusters  int      // cluster lines
	Files     []string // the report's "file" fields, in order of first appearance
}

// ReadReport reads a JSON lines report and sorts its decisions for review.
// Lines of unknown kinds are ignored; a line that is not JSON is an error.
func ReadReport(r io.Reader) (*Report, error) {
	rep := &Report{}
	seen := map[string]bool{}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var d dedup.Duplicate
			if jerr := json.Unmarshal(line, &d); jerr != nil {
				return nil, fmt.Errorf("report line %d: %v", n, jerr)
			}
			switch {
			case d.Kind == "cluster":
				rep.Clusters++
			case d.Kind == "duplicate" && d.Method == "exact":
				rep.Exact++
			case d.Kind == "duplicate" || d.Kind == "containment":
				rep.Decisions = append(rep.Decisions, d)
			}
			if d.File != "" && !seen[d.File] && d.Kind != "cluster" {
				seen[d.File] = true
				rep.Files = append(rep.Files, d.File)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	Sort(rep.Decisions)
	return rep, nil
}

// RecordIDs returns the IDs of the records whose texts the page shows: each
// decision's record and kept record.
func (r *Report) RecordIDs() []string {
	var ids []string
	seen := map[string]bool{}
	for _, d := range r.Decisions {
		for _, id := range []string{d.RecordID, d.KeptID} {
			if id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// actionRank orders the actions from the least confident: pages kept on weak
// evidence, then annotated ones, then reported containments, then replaced.
func actionRank(a string) int {
	switch a {
	case "keep":
		return 0
	case "annotate":
		return 1
	case "report":
		return 2
	case "revisit":
		return 3
	}
	return 4
}

// Sort orders decisions for review, least confident first: by action (keep
// and annotate before revisit), then by similarity ascending; ties keep the
// report's order.
func Sort(ds []dedup.Duplicate) {
	sort.SliceStable(ds, func(i, j int) bool {
		ri, rj := actionRank(ds[i].Action), actionRank(ds[j].Action)
		if ri != rj {
			return ri < rj
		}
		return ds[i].Similarity < ds[j].Similarity
	})
}

// Tier is a decision's confidence tier, what the page's tier filter selects:
// "containment" for a containment, "replaced" for a near duplicate replaced by
// a revisit, "kept: <reason>" for one kept (action keep or annotate), where the
// reason is the report's reason up to its first colon ("weak-evidence"), or
// "annotate mode" when the mode only annotates.
func Tier(d dedup.Duplicate) string {
	if d.Kind == "containment" {
		return "containment"
	}
	switch d.Action {
	case "revisit":
		return "replaced"
	case "keep", "annotate":
		reason, _, _ := strings.Cut(d.Reason, ":")
		reason = strings.TrimSpace(reason)
		if reason == "" {
			if d.Action == "annotate" {
				reason = "annotate mode"
			} else {
				return "kept"
			}
		}
		return "kept: " + reason
	}
	return d.Action
}

// Site is the host of a URI, lower-cased, without a leading "www." ("" if
// the URI has none).
func Site(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	h := strings.ToLower(u.Hostname())
	return strings.TrimPrefix(h, "www.")
}
