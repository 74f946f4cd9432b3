package dedup

import (
	"fmt"
	"strconv"

	"github.com/warcdedup/warcdedup/near"
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

// match is a near-duplicate finding with the kept record it refers to.
type match struct {
	near.Match
	kept       ref // the kept record (Match.Ref in the reference store), once resolved
	keptDigest string
}

func formatSim(s float64) string { return strconv.FormatFloat(s, 'f', 4, 64) }

// nearRevisit builds the header of a revisit record that replaces the response
// rec, a near duplicate of the kept capture. WARC-Payload-Digest is the kept
// capture's, so that tools which resolve revisits by digest find the kept payload;
// the duplicate's own digest is kept in WARC-Dedup-Payload-Digest.
func nearRevisit(rec *warcio.Record, idBase, ownDigest string, m match) *warcio.Header {
	h := revisit(rec, idBase, m.keptDigest, m.kept.id, m.kept.uri, m.kept.date)
	h.Set("WARC-Profile", ProfileNear)
	h.Set(FieldOwnDigest, ownDigest)
	h.Set(FieldMethod, m.Method)
	h.Set(FieldSimilarity, formatSim(m.Similarity))
	h.Set(FieldRelation, string(m.Relation))
	return h
}

// annotation builds a metadata record saying that rec, which is kept whole, is a
// near duplicate of the kept capture, or holds its text or is held in it (a
// containment); for --near=annotate.
func annotation(rec *warcio.Record, idBase, ownDigest string, m match) (*warcio.Header, []byte) {
	what, key := "near-duplicate-annotation", "near-duplicate-of"
	switch m.Contain {
	case near.HoldsKept:
		what, key = "containment-annotation", "contains-text-of"
	case near.HeldByKept:
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
		key, m.kept.id, m.kept.uri, m.kept.date, m.keptDigest, ownDigest, m.Method, formatSim(m.Similarity), string(m.Relation))
	if m.Contain != near.NotContained {
		block += "containment: " + formatSim(m.Share) + "\r\n"
	}
	return h, []byte(block)
}
