package dedup

import (
	"fmt"
	"strconv"
	"strings"

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
	// FieldOwnPrefix starts the fields that keep the duplicate's own values
	// of the HTTP fields its near revisit takes from the kept response
	// (WARC-Dedup-Own-Content-Type, WARC-Dedup-Own-Content-Length, ...).
	FieldOwnPrefix = "WARC-Dedup-Own-"
)

// entityFields are the HTTP response fields that describe the body rather
// than the exchange. A replay tool serves a revisit with the revisit's own
// HTTP head and the kept record's body (pywb, WARCPathLoader.load_resource
// in warcserver/resource/responseloader.py): for a near revisit, whose body
// differs from the duplicate's, the duplicate's Content-Length cuts the body
// short or leaves a client waiting, and its charset garbles the text. So a
// near revisit's head carries the kept response's values of these fields.
var entityFields = []string{"Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding",
	"Content-Range", "Content-MD5", "Content-Language", "Content-Disposition", "ETag", "Last-Modified"}

func isEntityField(name string) bool {
	for _, f := range entityFields {
		if strings.EqualFold(f, name) {
			return true
		}
	}
	return false
}

// entityOf returns a response's entity fields as "Name: value" lines, each
// ending in CR LF, in their order.
func entityOf(h *warcio.HTTPResponse) string {
	var sb strings.Builder
	for _, f := range h.Fields {
		if isEntityField(f.Name) && !strings.ContainsAny(f.Name+f.Value, "\r\n") {
			sb.WriteString(f.Name + ": " + f.Value + "\r\n")
		}
	}
	return sb.String()
}

// nearHead is the HTTP head of a near revisit of dup: its status line and
// header lines less its entity fields (a folded line goes with its field),
// then the kept response's entity fields. With no kept fields known (a
// record kept by an older index), the head is dup's own.
func nearHead(dup *warcio.HTTPResponse, keptEntity string) []byte {
	head := dup.CRLFHead()
	if keptEntity == "" {
		return head
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(head), "\r\n"), "\r\n")
	var sb strings.Builder
	drop := false
	for i, l := range lines {
		if i == 0 {
			sb.WriteString(l)
			continue
		}
		if l == "" || l == "\r\n" {
			continue
		}
		if l[0] != ' ' && l[0] != '\t' {
			name, _, _ := strings.Cut(l, ":")
			drop = isEntityField(strings.TrimSpace(name))
		}
		if !drop {
			sb.WriteString(l)
		}
	}
	sb.WriteString(keptEntity)
	sb.WriteString("\r\n")
	return []byte(sb.String())
}

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

// keepOwnEntity adds to a near revisit's header the duplicate's own values
// of the entity fields its head takes from the kept response.
func keepOwnEntity(h *warcio.Header, dup *warcio.HTTPResponse, keptEntity string) {
	if keptEntity == "" {
		return
	}
	for _, f := range dup.Fields {
		if isEntityField(f.Name) && !strings.ContainsAny(f.Name+f.Value, "\r\n") && strings.TrimSpace(f.Value) == f.Value && f.Value != "" {
			h.Fields = append(h.Fields, warcio.Field{Name: FieldOwnPrefix + f.Name, Value: f.Value})
		}
	}
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
