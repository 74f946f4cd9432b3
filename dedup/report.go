package dedup

import (
	"encoding/json"

	"io"
	"sort"
	"warcdedup/sitekey"
)

// Duplicate is one line of the curators' report: a record that was found to
// duplicate an earlier, kept one.
type Duplicate struct {
	Kind       string  `json:"kind"` // "duplicate" or "containment"
	File       string  `json:"file"`
	URI        string  `json:"uri"`
	Date       string  `json:"date"`
	RecordID   string  `json:"record_id"`
	KeptURI    string  `json:"kept_uri"`
	KeptDate   string  `json:"kept_date"`
	KeptID     string  `json:"kept_id"`
	Method     string  `json:"method"`     // "exact", "spotsigs", "af-spotsigs", "simhash"
	Similarity float64 `json:"similarity"` // 1 for exact duplicates
	Relation   string  `json:"relation"`   // "same-site" or "cross-site"
	Action     string  `json:"action"`     // "revisit", "annotate", or "report" (a containment, default mode)
	// For kind "containment" lines: "contains" (the record holds the kept
	// record's text) or "contained-in" (its text is held in the kept record),
	// and the share of the smaller side's text found in the other.
	Direction   string  `json:"direction,omitempty"`
	Containment float64 `json:"containment,omitempty"`
}

// Cluster is the report's line for a kept record and every record found to
// duplicate it, written when the run ends.
type Cluster struct {
	Kind     string   `json:"kind"` // "cluster"
	KeptID   string   `json:"kept_id"`
	KeptURI  string   `json:"kept_uri"`
	KeptDate string   `json:"kept_date"`
	Size     int      `json:"size"` // the kept record and its duplicates
	Members  []string `json:"members"`
}

// report writes the JSON lines report, if one was asked for.
type report struct {
	enc      *json.Encoder
	clusters map[string]*Cluster
	order    []string
}

func newReport(w io.Writer) *report {
	if w == nil {
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // URIs with & and <urn:...> IDs stay readable
	return &report{enc: enc, clusters: map[string]*Cluster{}}
}

func (r *report) duplicate(d Duplicate) error {
	if r == nil {
		return nil
	}
	d.Kind = "duplicate"
	c := r.clusters[d.KeptID]
	if c == nil {
		c = &Cluster{Kind: "cluster", KeptID: d.KeptID, KeptURI: d.KeptURI, KeptDate: d.KeptDate, Size: 1}
		r.clusters[d.KeptID] = c
		r.order = append(r.order, d.KeptID)
	}
	c.Size++
	c.Members = append(c.Members, d.RecordID)
	return r.enc.Encode(d)
}

// containment writes the line of a containment pair; it joins no cluster, since
// neither record stands for the other.
func (r *report) containment(d Duplicate) error {
	if r == nil {
		return nil
	}
	d.Kind = "containment"
	return r.enc.Encode(d)
}

// close writes the clusters, largest first (ties in the order they were found).
func (r *report) close() error {
	if r == nil {
		return nil
	}
	cs := make([]*Cluster, len(r.order))
	for i, id := range r.order {
		cs[i] = r.clusters[id]
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Size > cs[j].Size })
	for _, c := range cs {
		if err := r.enc.Encode(c); err != nil {
			return err
		}
	}
	return nil
}

// relation says whether two URIs are of the same site, by Henzinger's site key.
func relation(a, b string) string {
	if sitekey.FromURL(a) == sitekey.FromURL(b) {
		return "same-site"
	}
	return "cross-site"
}
