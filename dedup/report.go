package dedup

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"

	"github.com/warcdedup/warcdedup/sitekey"
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
	Action     string  `json:"action"`     // "revisit", "annotate", "keep" (weak evidence, default mode), or "report" (a containment, default mode)
	// Why a near duplicate was kept rather than replaced although the mode
	// replaces: "weak-evidence: N shared content signatures" (see
	// Options.MinEvidence).
	Reason string `json:"reason,omitempty"`
	// For kind "containment" lines: "contains" (the record holds the kept
	// record's text) or "contained-in" (its text is held in the kept record),
	// and the share of the smaller side's text found in the other.
	Direction   string  `json:"direction,omitempty"`
	Containment float64 `json:"containment,omitempty"`
	// The evidence of a near duplicate or containment: distinct content
	// signatures (what is frame for neither site) the two share, and the
	// size of each side's content; for a near duplicate, how many of the
	// record's content signatures are not in the kept record (near.Match.Own).
	Shared         int `json:"shared_signatures,omitempty"`
	Signatures     int `json:"signatures,omitempty"`
	KeptSignatures int `json:"kept_signatures,omitempty"`
	Own            int `json:"own_signatures,omitempty"`
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

// report writes the JSON lines report, if one was asked for. The lines of a
// Run are held (pending) until the next Run starts or the Deduper is closed,
// so that a Run that is withdrawn leaves none; the clusters take only the
// duplicates of Runs that were not withdrawn. Held lines take memory until
// then: about 500 bytes a duplicate found in the file.
type report struct {
	w        io.Writer
	enc      *json.Encoder // encodes into pending
	pending  bytes.Buffer
	adds     []clusterAdd // the pending lines' cluster members
	clusters map[string]*Cluster
	order    []string
	err      error // sticky: the report is incomplete after a write error
}

// clusterAdd is a duplicate waiting to join its kept record's cluster.
type clusterAdd struct{ keptID, keptURI, keptDate, member string }

func newReport(w io.Writer) *report {
	if w == nil {
		return nil
	}
	r := &report{w: w, clusters: map[string]*Cluster{}}
	r.enc = newEncoder(&r.pending)
	return r
}

func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // URIs with & and <urn:...> IDs stay readable
	return enc
}

func (r *report) duplicate(d Duplicate) error {
	if r == nil {
		return nil
	}
	d.Kind = "duplicate"
	r.adds = append(r.adds, clusterAdd{keptID: d.KeptID, keptURI: d.KeptURI, keptDate: d.KeptDate, member: d.RecordID})
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

// commit writes the pending lines and adds their duplicates to the clusters.
func (r *report) commit() error {
	if r == nil {
		return nil
	}
	if r.err != nil {
		return r.err
	}
	for _, a := range r.adds {
		c := r.clusters[a.keptID]
		if c == nil {
			c = &Cluster{Kind: "cluster", KeptID: a.keptID, KeptURI: a.keptURI, KeptDate: a.keptDate, Size: 1}
			r.clusters[a.keptID] = c
			r.order = append(r.order, a.keptID)
		}
		c.Size++
		c.Members = append(c.Members, a.member)
	}
	r.adds = r.adds[:0]
	if _, err := r.pending.WriteTo(r.w); err != nil {
		r.err = err
		return err
	}
	return nil
}

// withdraw drops the pending lines.
func (r *report) withdraw() {
	if r == nil {
		return
	}
	r.pending.Reset()
	r.adds = r.adds[:0]
}

// close writes the pending lines, then the clusters, largest first (ties in
// the order they were found).
func (r *report) close() error {
	if r == nil {
		return nil
	}
	if err := r.commit(); err != nil {
		return err
	}
	cs := make([]*Cluster, len(r.order))
	for i, id := range r.order {
		cs[i] = r.clusters[id]
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Size > cs[j].Size })
	enc := newEncoder(r.w)
	for _, c := range cs {
		if err := enc.Encode(c); err != nil {
			r.err = err
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
