package dedup

import (
	"fmt"
	"strconv"

	"github.com/warcdedup/warcdedup/warcio"
)

// ProfileNear is the WARC-Profile of a revisit record that stands for a near
// duplicate: a page whose payload differs from the kept capture's only in what
// changes between crawls or frames (ads, timestamps, session ids, navigation).
// Replay tools resolve it like any revisit, by WARC-Refers-To-Target-URI and
// -Date, and serve the kept capture. It is a URN of this project's own, as the
// standard allows for profiles it does not define (WARC 1.1 Sec. 6.7).
const ProfileNear = "urn:x-warcdedup:revisit:near-duplicate:1"

// Extension fields written on near-duplicate revisits and annotations.
const (
	FieldOwnDigest  = "WARC-Dedup-Payload-Digest" // the duplicate's own payload digest
	FieldMethod     = "WARC-Dedup-Method"         // spotsigs, af-spotsigs, simhash
	FieldSimilarity = "WARC-Dedup-Similarity"     // in [0, 1]
	FieldRelation   = "WARC-Dedup-Relation"       // same-site, cross-site
)

// match is a near-duplicate finding: the kept record and how it was found.
type match struct {
	keptNum    uint32 // the kept record's number in the reference store
	kept       ref    // ... and what it holds, once resolved
	keptDigest string
	method     string
	similarity float64 // Jaccard
	relation   string
	// The evidence behind similarity: how many distinct content signatures
	// (what is frame for neither site) the two pages share.
	shared int
	// For a containment, not a near duplicate (see containShare): which side
	// holds the other's text, and the share of the smaller side held.
	contain containment
	share   float64
}

// containment says which page of a containment pair holds the other's text.
type containment uint8

const (
	notContained containment = iota
	holdsKept                // the new page holds the kept page's text
	heldByKept               // the new page's text is held in the kept page
)

func formatSim(s float64) string { return strconv.FormatFloat(s, 'f', 4, 64) }

// nearRevisit builds the header of a revisit record that replaces the response
// rec, a near duplicate of the kept capture. WARC-Payload-Digest is the kept
// capture's, so that tools which resolve revisits by digest find the kept payload;
// the duplicate's own digest is kept in WARC-Dedup-Payload-Digest.
func nearRevisit(rec *warcio.Record, idBase, ownDigest string, m match) *warcio.Header {
	h := revisit(rec, idBase, m.keptDigest, m.kept.id, m.kept.uri, m.kept.date)
	h.Set("WARC-Profile", ProfileNear)
	h.Set(FieldOwnDigest, ownDigest)
	h.Set(FieldMethod, m.method)
	h.Set(FieldSimilarity, formatSim(m.similarity))
	h.Set(FieldRelation, m.relation)
	return h
}

// annotation builds a metadata record saying that rec, which is kept whole, is a
// near duplicate of the kept capture, or holds its text or is held in it (a
// containment); for --near=annotate.
func annotation(rec *warcio.Record, idBase, ownDigest string, m match) (*warcio.Header, []byte) {
	what, key := "near-duplicate-annotation", "near-duplicate-of"
	switch m.contain {
	case holdsKept:
		what, key = "containment-annotation", "contains-text-of"
	case heldByKept:
		what, key = "containment-annotation", "text-contained-in"
	}
	h := &warcio.Header{Version: rec.Header.Version, Fields: []warcio.Field{
		{Name: "WARC-Type", Value: "metadata"},
		{Name: "WARC-Record-ID", Value: NewID(idBase, what)},
		{Name: "WARC-Date", Value: rec.Header.Get("WARC-Date")},
		{Name: "WARC-Target-URI", Value: rec.Header.Get("WARC-Target-URI")},
		{Name: "WARC-Refers-To", Value: rec.ID()},
		{Name: "Content-Type", Value: "application/warc-fields"},
	}}
	block := fmt.Sprintf("%[1]s: %[2]s\r\n%[1]s-uri: %[3]s\r\n%[1]s-date: %[4]s\r\n%[1]s-digest: %[5]s\r\n"+
		"payload-digest: %[6]s\r\nmethod: %[7]s\r\nsimilarity: %[8]s\r\nrelation: %[9]s\r\n",
		key, m.kept.id, m.kept.uri, m.kept.date, m.keptDigest, ownDigest, m.method, formatSim(m.similarity), m.relation)
	if m.contain != notContained {
		block += "containment: " + formatSim(m.share) + "\r\n"
	}
	return h, []byte(block)
}
