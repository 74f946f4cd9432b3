package dedup

import (
	"fmt"
	"strconv"

	"warcdedup/warcio"
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
	kept       ref
	keptDigest string
	method     string
	similarity float64
	relation   string
}

func formatSim(s float64) string { return strconv.FormatFloat(s, 'f', 4, 64) }

// NearRevisit builds the header of a revisit record that replaces the response
// rec, a near duplicate of the kept capture. WARC-Payload-Digest is the kept
// capture's, so that tools which resolve revisits by digest find the kept payload;
// the duplicate's own digest is kept in WARC-Dedup-Payload-Digest.
func nearRevisit(rec *warcio.Record, ownDigest string, m match) *warcio.Header {
	h := Revisit(rec, m.keptDigest, m.kept.id, m.kept.uri, m.kept.date)
	h.Set("WARC-Profile", ProfileNear)
	h.Set(FieldOwnDigest, ownDigest)
	h.Set(FieldMethod, m.method)
	h.Set(FieldSimilarity, formatSim(m.similarity))
	h.Set(FieldRelation, m.relation)
	return h
}

// annotation builds a metadata record saying that rec, which is kept whole, is a
// near duplicate of the kept capture (--near=annotate).
func annotation(rec *warcio.Record, ownDigest string, m match) (*warcio.Header, []byte) {
	h := &warcio.Header{Version: rec.Header.Version, Fields: []warcio.Field{
		{Name: "WARC-Type", Value: "metadata"},
		{Name: "WARC-Record-ID", Value: NewID(rec.ID(), "near-duplicate-annotation")},
		{Name: "WARC-Date", Value: rec.Header.Get("WARC-Date")},
		{Name: "WARC-Target-URI", Value: rec.Header.Get("WARC-Target-URI")},
		{Name: "WARC-Refers-To", Value: rec.ID()},
		{Name: "Content-Type", Value: "application/warc-fields"},
	}}
	block := fmt.Sprintf("near-duplicate-of: %s\r\nnear-duplicate-of-uri: %s\r\nnear-duplicate-of-date: %s\r\n"+
		"near-duplicate-of-digest: %s\r\npayload-digest: %s\r\nmethod: %s\r\nsimilarity: %s\r\nrelation: %s\r\n",
		m.kept.id, m.kept.uri, m.kept.date, m.keptDigest, ownDigest, m.method, formatSim(m.similarity), m.relation)
	return h, []byte(block)
}
