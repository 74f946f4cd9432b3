package dedup

import (
	"errors"
	"strconv"
	"strings"

	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/near"
	"github.com/warcdedup/warcdedup/warcio"
)

// The decision over a record is made in two halves: judge decides from the
// record's Fact alone (and the Deduper's indexes), write makes the output
// record from the input record and the Decision. A run on one machine does
// both in turn; the map, reduce and apply steps (see Map, Judge, Apply) do
// them apart, on other machines, with the Fact and the Decision in between.
// Both go through the same two functions, so both give the same records.

// class says what the decision may do with a record, as far as the record
// itself tells: only a record of class eligible can be a kept copy or be
// replaced.
type class uint8

const (
	clsEligible     class = iota
	clsDamaged            // a damaged record, or a block that does not match its digest
	clsUnparsed           // an HTTP response whose head does not parse
	clsNoPayload          // not an HTTP response, or a truncated one
	clsNotOK              // status other than 200
	clsTruncSeg           // WARC-Truncated, segmented, or a body cut off in transfer (shortBody)
	clsSmall              // payload under Options.MinSize
	clsNoFields           // no record ID, target URI or date
	clsUnrewritable       // a header that could not be written back as it is (rewritable)
	clsRefers             // a revisit naming its original by URI and payload digest (referring)
	clsAfterDamage        // found after damaged bytes, perhaps inside them (warcio.Record.AfterDamage)
	numClasses
)

// Fact is what the decision needs to know of one record: what Map hands to
// Judge. It is small (a page's signatures are most of it) and has a binary
// form (MarshalBinary).
type Fact struct {
	// Offset is the record's offset in the decompressed input
	// (warcio.Record.PlainOffset): it names the record in a Decision.
	Offset int64
	kind   string // kindName
	size   int64  // bytes as stored
	id     string // WARC-Record-ID
	cls    class
	// nonconforming: warcio.Validate found problems.
	nonconforming bool
	problems      []warcio.Problem // not carried over: for the caller's message
	// For an eligible record:
	uri, date string
	digest    string // the payload digest as recorded, or as computed if none was
	computed  string // as computed
	sha256    [32]byte
	length    int64      // payload bytes as stored
	stored    int64      // clsRefers: the record's offset as stored (warcio.Record.Offset), for messages
	entity    string     // the response's entity fields, for a page (entityOf)
	page      *near.Page // the page, if it was analysed and can be compared
	// later, if set, analyses the page when the decision needs it (see
	// Deduper.exactCopy).
	later func(f *Fact) error
	// For an output written over (Held), of any response: its payload
	// digest as recorded (or computed), URI and date. Not carried over.
	heldDigest, heldURI, heldDate string
}

// factOf makes the Fact of an item read (and analysed) by the pipeline.
func (d *Deduper) factOf(it *item) *Fact {
	rec, pay := it.rec, it.pay
	f := &Fact{Offset: rec.PlainOffset, kind: kindName(rec), size: it.raw.Size, id: rec.ID()}
	if f.problems = warcio.Validate(rec); len(f.problems) > 0 {
		f.nonconforming = true
	}
	if len(d.held) > 0 {
		f.heldDigest = rec.Header.Get("WARC-Payload-Digest")
		if f.heldDigest == "" && pay != nil {
			f.heldDigest = pay.Digest
		}
		f.heldURI, f.heldDate = rec.Header.Get("WARC-Target-URI"), rec.Header.Get("WARC-Date")
	}
	if referring(rec) {
		// Passed through as it is; uri and digest are the original it names.
		f.cls = clsRefers
		f.uri, f.date, f.digest = referent(rec), rec.Header.Get("WARC-Date"), rec.Header.Get("WARC-Payload-Digest")
		f.stored = rec.Offset
		return f
	}
	switch {
	case rec.Err != nil:
		f.cls = clsDamaged
	case rec.AfterDamage:
		f.cls = clsAfterDamage
	case pay == nil:
		f.cls = clsNoPayload
		if it.perr != nil && !errors.Is(it.perr, warcio.ErrTruncated) {
			f.cls = clsUnparsed
		}
	case pay.HTTP.StatusCode != 200:
		f.cls = clsNotOK
	case rec.Header.Has("WARC-Truncated") || rec.Header.Has("WARC-Segment-Number") || shortBody(pay) || it.encodingCut:
		f.cls = clsTruncSeg
	case pay.Length == 0 || pay.Length < d.opts.MinSize:
		f.cls = clsSmall
	case rec.ID() == "" || rec.Header.Get("WARC-Target-URI") == "" || rec.Header.Get("WARC-Date") == "":
		f.cls = clsNoFields
	case !rewritable(&rec.Header):
		// A revisit or an annotation carries this header's fields: one that
		// cannot be written so as to read back the same stays as it is.
		f.cls = clsUnrewritable
	}
	if f.cls != clsEligible {
		return f
	}
	f.uri, f.date = rec.Header.Get("WARC-Target-URI"), rec.Header.Get("WARC-Date")
	// A digest the crawler recorded is used verbatim: replay tools match
	// digests as exact strings, and wget digests the raw chunked bytes.
	f.digest = rec.Header.Get("WARC-Payload-Digest")
	if f.digest == "" {
		f.digest = pay.Digest
	}
	f.computed, f.sha256, f.length = pay.Digest, pay.SHA256, pay.Length
	if it.page.OK() {
		f.page = it.page
		f.entity = entityOf(pay.HTTP)
	}
	return f
}

// action is what becomes of a record.
type action uint8

const (
	actPass  action = iota // copied as it is
	actExact               // a revisit of the kept record with its payload
	actNear                // a near revisit of the kept page
	numActions
)

// Decision is what becomes of one record: what Judge hands to Apply. A
// record without one is copied as it is.
type Decision struct {
	// Offset names the record (Fact.Offset).
	Offset int64
	act    action
	// annotate: a metadata record follows the record (--near=annotate).
	annotate bool
	// repeat is how many records of the run had the record's ID before it
	// (see idBase).
	repeat uint32
	digest string // the record's payload digest (Fact.digest)
	kept   ref    // actExact: the kept record
	m      match  // actNear, annotate: the near duplicate or containment
}

// Pass says whether the record is copied as it is, with nothing after it.
func (dec *Decision) Pass() bool { return dec.act == actPass && !dec.annotate }

// Repeat is how many records of the run had the record's WARC-Record-ID
// before it.
func (dec *Decision) Repeat() uint32 { return dec.repeat }

// judge decides what becomes of the record of f, in file name, and updates
// the indexes and counts; outOff is where the record will start in the
// output, for the index of kept records (0 if that is not known).
func (d *Deduper) judge(name string, f *Fact, outOff int64) (Decision, error) {
	dec, err := d.judgeRecord(name, f, outOff)
	if err == nil && f.nonconforming && dec.act != actPass {
		d.Stats.NonconformingReplaced++
	}
	if err == nil && dec.act == actPass && len(d.held) > 0 {
		d.keptHeld(f)
	}
	return dec, err
}

// judgeRecord is judge, but for the count of nonconforming records
// replaced.
func (d *Deduper) judgeRecord(name string, f *Fact, outOff int64) (Decision, error) {
	dec := Decision{Offset: f.Offset}
	d.Stats.add(&d.Stats.In, f.kind)
	d.Stats.BytesIn += f.size
	if f.nonconforming {
		d.Stats.Nonconforming++
	}
	if f.id != "" {
		if dec.repeat = d.ids.add(f.id); dec.repeat > 0 {
			d.Stats.DuplicateIDs++
		}
	}
	pass := func() (Decision, error) {
		d.Stats.add(&d.Stats.Out, f.kind)
		return dec, nil
	}
	switch f.cls {
	case clsEligible:
	case clsDamaged:
		// Carried over as it is, and never used as a kept copy or replaced
		// by a revisit.
		d.Stats.Damaged++
		d.Stats.DamagedBytes += f.size
		return pass()
	case clsUnparsed:
		d.Stats.UnparsedHTTP++
		return pass()
	case clsNotOK:
		d.Stats.SkippedNotOK++
		return pass()
	case clsTruncSeg:
		d.Stats.SkippedTruncSeg++
		return pass()
	case clsSmall:
		d.Stats.SkippedSmall++
		return pass()
	case clsRefers:
		// Checked at Close, once every response is judged.
		if err := d.visits.add(name, "", f.stored, f.id, f.uri, f.digest); err != nil {
			return dec, err
		}
		return pass()
	default:
		return pass()
	}
	dec.digest = f.digest
	kept, dup, err := d.exact.lookup(f.digest)
	if err != nil {
		return dec, err
	}
	if dup && (kept.computed != f.computed || kept.sha256 != f.sha256 && kept.sha256 != [32]byte{}) {
		// The crawler recorded the same digest for different bytes, or the bytes
		// differ under one SHA-1 (a collision, as the SHAttered PDFs, Stevens et
		// al., CRYPTO 2017). Matching on the recorded string or on SHA-1 alone
		// would replace a unique payload: keep it. A record from a CDX of an
		// earlier crawl has no SHA-256 (index.ReadCDX): its SHA-1 is all
		// there is to compare, as wget --warc-dedup compares it.
		d.Stats.DigestConflicts++
		d.gone.keptWhole(d.wholeRecord(f, outOff))
		return pass()
	}
	if dup && kept.seed && (kept.id != "" && kept.id == f.id ||
		kept.id == "" && sameURI(kept.uri, f.uri) && secondOf(kept.date) == secondOf(f.date)) {
		// The kept record is this record, read from an index of an earlier
		// run over the same file, or from a CDX of it (which may name it by
		// URI and date only, to the second): a record is never a revisit
		// of itself.
		d.Stats.AlreadyKept++
		d.gone.stays(f.uri, f.digest)
		return pass()
	}
	if dup && later(kept.date, f.date) {
		// The kept copy was captured after this one: this capture stays
		// whole rather than point forward in time.
		d.Stats.LaterKept++
		d.gone.keptWhole(d.wholeRecord(f, outOff))
		return pass()
	}
	if !dup {
		if f.later != nil {
			if err := f.later(f); err != nil {
				return dec, err
			}
			f.later = nil
		}
		r := ref{id: f.id, uri: f.uri, date: f.date, digest: f.digest, computed: f.computed, sha256: f.sha256,
			file: d.outName, offset: outOff}
		if f.page.OK() {
			r.entity = f.entity
		}
		m, found, err := d.nearMatch(f, r.date)
		if err != nil {
			return dec, err
		}
		if found && m.Contain == near.NotContained {
			return d.judgeNear(name, f, dec, r, m)
		}
		n, err := d.exact.add(r)
		if err != nil {
			return dec, err
		}
		d.gone.kept(f.uri, f.digest)
		d.Stats.EligibleUnique++
		if f.page.OK() {
			f.page.Ref = n
			d.nearIdx().Add(f.page)
		}
		if found {
			return d.judgeContainment(name, f, dec, m)
		}
		return pass()
	}
	// The revisit names the payload as the kept record spells its digest
	// (they may differ in the algorithm's case): a replay tool finds the
	// original by that string.
	dec.act, dec.kept, dec.digest = actExact, kept, kept.digest
	if !sameURI(kept.uri, f.uri) {
		d.gone.replaced(f.uri, f.digest)
	}
	if err := d.report.duplicate(Duplicate{File: name, URI: f.uri, Date: f.date, RecordID: f.id,
		KeptURI: kept.uri, KeptDate: kept.date, KeptID: kept.id, Method: "exact", Similarity: 1,
		Relation: relation(kept.uri, f.uri), Action: "revisit"}); err != nil {
		return dec, err
	}
	d.Stats.Revisits++
	d.Stats.BytesSaved += f.length
	d.Stats.add(&d.Stats.Out, "revisit")
	return dec, nil
}

// wholeRecord is the index's record of the capture of f, kept whole at
// outOff of the output.
func (d *Deduper) wholeRecord(f *Fact, outOff int64) index.Record {
	return index.Record{ID: f.id, URI: f.uri, Date: f.date, Digest: f.digest, Computed: f.computed,
		SHA256: f.sha256, File: d.outName, Offset: outOff}
}

// nearMatch finds the kept page the page of f (captured at date) is a near
// duplicate of, or containment of, if any.
func (d *Deduper) nearMatch(f *Fact, date string) (m match, found bool, err error) {
	if !f.page.OK() {
		return m, false, nil
	}
	if m.Match, found = d.nearIdx().Match(f.page); !found {
		return m, false, nil
	}
	if err := d.resolve(&m); err != nil {
		return m, false, err
	}
	if later(m.kept.date, date) {
		d.Stats.LaterKept++
		return m, false, nil
	}
	if m.kept.seed && m.kept.id == f.id && f.id != "" {
		d.Stats.AlreadyKept++
		return m, false, nil
	}
	return m, true, nil
}

// judgeNear decides over a near duplicate: a revisit record, or the record
// kept (with an annotation after it in --near=annotate).
func (d *Deduper) judgeNear(name string, f *Fact, dec Decision, self ref, m match) (Decision, error) {
	dec.m = m
	if m.Relation == near.SameSite && near.URLKey(m.kept.uri) != f.page.URL {
		// A page of another URL of the site, as its site's frame counts it
		// (near.Index.AddFrame).
		d.nearIdx().AddFrame(f.page)
	}
	action := "revisit"
	reason := m.Reason
	if d.opts.Near == NearAnnotate || reason != "" {
		action = "annotate"
		if reason != "" {
			d.Stats.WeakEvidence++
		}
		d.Stats.add(&d.Stats.Out, f.kind)
		// The page is kept: a later exact copy of it refers to it.
		if _, err := d.exact.add(self); err != nil {
			return dec, err
		}
		d.gone.kept(f.uri, f.digest)
		if d.opts.Near == NearAnnotate {
			dec.annotate = true
			d.Stats.Annotations++
			d.Stats.add(&d.Stats.Out, "metadata")
		} else {
			// Kept and reported, as a containment is: the default output
			// holds one record for each input record.
			action = "keep"
		}
	} else {
		dec.act = actNear
		d.gone.replaced(f.uri, f.digest)
		d.Stats.NearRevisits++
		if m.Relation == near.SameSite {
			d.Stats.NearSameSite++
		} else {
			d.Stats.NearCrossSite++
		}
		d.Stats.BytesSaved += f.length
		d.Stats.add(&d.Stats.Out, "revisit")
	}
	return dec, d.report.duplicate(Duplicate{File: name, URI: f.uri, Date: f.date, RecordID: f.id,
		KeptURI: m.kept.uri, KeptDate: m.kept.date, KeptID: m.kept.id, Method: m.Method, Similarity: m.Similarity,
		Relation: string(m.Relation), Action: action, Reason: reason, Shared: m.Shared, Signatures: m.Sigs,
		KeptSignatures: m.KeptSigs, Own: m.Own})
}

// judgeContainment decides over a page that holds a kept page's text, or is
// held in one (see near.ContainShare): it is kept, since each side has text
// the other lacks, so neither replaces the other. The pair goes to the
// report and, with --near=annotate, into a metadata record after the page;
// the default output keeps one record for each input record.
func (d *Deduper) judgeContainment(name string, f *Fact, dec Decision, m match) (Decision, error) {
	dec.m = m
	d.Stats.add(&d.Stats.Out, f.kind)
	action := "report"
	if d.opts.Near == NearAnnotate {
		action = "annotate"
		dec.annotate = true
		d.Stats.add(&d.Stats.Out, "metadata")
	}
	d.Stats.Containments++
	dir := "contains"
	if m.Contain == near.HeldByKept {
		dir = "contained-in"
	}
	return dec, d.report.containment(Duplicate{File: name, URI: f.uri, Date: f.date, RecordID: f.id,
		KeptURI: m.kept.uri, KeptDate: m.kept.date, KeptID: m.kept.id, Method: m.Method, Similarity: m.Similarity,
		Relation: string(m.Relation), Action: action, Direction: dir, Containment: m.Share, Signatures: m.Sigs,
		KeptSignatures: m.KeptSigs})
}

// write writes the record of it as dec says, in file name.
func (d *Deduper) write(w *warcio.Writer, name string, it *item, dec *Decision) error {
	rec := it.rec
	base := idBase(rec, name, dec.repeat)
	switch dec.act {
	case actExact:
		h := revisit(rec, base, dec.digest, dec.kept.id, refersURI(dec.kept, rec), dec.kept.date)
		return w.ReplaceRecord(it.raw, h, it.pay.HTTP.CRLFHead())
	case actNear:
		h := nearRevisit(rec, base, dec.digest, dec.m)
		keepOwnEntity(h, it.pay.HTTP, dec.m.kept.entity)
		return w.ReplaceRecord(it.raw, h, nearHead(it.pay.HTTP, dec.m.kept.entity))
	}
	if err := w.CopyRaw(it.raw); err != nil {
		return err
	}
	if dec.annotate {
		h, block := annotation(rec, base, dec.digest, dec.m)
		return w.WriteRecord(h, block)
	}
	return nil
}

// shortBody says whether an HTTP response's body was cut off in transfer
// and the crawler did not mark it with WARC-Truncated (a connection dropped
// or a size limit hit before the body was complete): a body shorter than its
// Content-Length, or a chunked body that ends before its last chunk. Such a
// capture is no kept copy: a complete capture of the page would become a
// revisit of it, and the archive would hold the page only cut. Nor is it
// replaced: what it holds is kept as it was captured.
//
// A chunked body goes by its chunks alone (RFC 9112, section 6.3): its
// Content-Length, if any, does not count. A body in another transfer coding
// ends where the connection closed: it has no length to go by.
// Transfer-Encoding: identity (of RFC 2616) is no coding: the Content-Length
// holds.
func shortBody(pay *warcio.Payload) bool {
	if pay.ChunkedCut {
		return true
	}
	cl := pay.HTTP.Get("Content-Length")
	if cl == "" || !identityOnly(pay.HTTP) {
		return false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(cl), 10, 64)
	return err == nil && pay.Length < n
}

// identityOnly says the response's Transfer-Encoding fields, if it has any,
// name no transfer coding but identity.
func identityOnly(h *warcio.HTTPResponse) bool {
	for _, f := range h.Fields {
		if !strings.EqualFold(f.Name, "Transfer-Encoding") {
			continue
		}
		for c := range strings.SplitSeq(f.Value, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return false
			}
		}
	}
	return true
}
