package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Label is one line of the labels file: one response record of the benchmark
// WARCs and the cluster it belongs to. Records of one cluster are duplicates
// of each other; records of different clusters are not.
type Label struct {
	RecordID string `json:"record_id"` // WARC-Record-ID, with the angle brackets
	URI      string `json:"uri"`       // WARC-Target-URI
	Date     string `json:"date"`      // WARC-Date
	File     string `json:"file"`      // WARC file name (base name)
	Index    int    `json:"index"`     // position of the record in its file, the warcinfo record being 0
	Cluster  string `json:"cluster"`   // cluster id
	// Case is how the record's cluster was built: 1 re-capture,
	// 2 syndication, 3 a different article of a site with other articles in
	// the set (same frame, different story; a cluster of one), 5 a real pair
	// of _pairs/, 0 any other unique page. Case 4 (short and Chinese pages) is
	// not a construction of its own: it is the Short and Lang fields, in all
	// the other cases.
	Case    int    `json:"case"`
	Variant string `json:"variant"` // original, recapture, syndicated-cross-site, syndicated-same-site, real-pair, unique
	Site    string `json:"site"`    // site key of URI (package sitekey)
	Short   bool   `json:"short"`   // the story's gold text has fewer than 600 characters
	Lang    string `json:"lang"`    // language of the story's gold text ("" unknown)
	Source  string `json:"source"`  // corpus page of the story: dataset/id
	Frame   string `json:"frame"`   // corpus page whose HTML frame the record has: dataset/id
	// Synthetic is true when the record's story is a synthetic page's
	// (stitched; a scaled benchmark's): Source is then "dataset/id~n", the
	// n-th synthetic page in the frame of corpus page dataset/id.
	Synthetic bool `json:"synthetic,omitempty"`
	// PageType is the page's kind in a set of pages that says it (wcxb's
	// page_type: article, product, forum, ...), "" otherwise.
	PageType string `json:"page_type,omitempty"`
}

// ReadLabels reads a labels file.
func ReadLabels(name string) ([]Label, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeLabels(f)
}

// DecodeLabels reads labels, one JSON object a line.
func DecodeLabels(r io.Reader) ([]Label, error) {
	var out []Label
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var l Label
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("labels line %d: %w", line, err)
		}
		if l.RecordID == "" || l.Cluster == "" {
			return nil, fmt.Errorf("labels line %d: record_id and cluster are required", line)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// WriteLabels writes labels, one JSON object a line.
func WriteLabels(w io.Writer, ls []Label) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range ls {
		if err := enc.Encode(&ls[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}
