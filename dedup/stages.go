package dedup

import (
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/warcdedup/warcdedup/near"
	"github.com/warcdedup/warcdedup/warcio"
)

// The steps of a run on a cluster: Map reads a file and hands on each
// record's Fact; Judge takes the Facts of every file in the run's order and
// decides; Apply reads a file again and writes it as its Decisions say.
// Map and Apply are one task per file and hold no state across files; Judge
// holds the indexes a run on one machine holds. Judge's decisions are those
// of Run by construction: Run makes the same Facts and calls the same judge.

// stage is what Run's loop does with each record.
type stage uint8

const (
	stageRun   stage = iota // decide and write
	stageMap                // hand on the Fact
	stageApply              // write as the Decision says
)

// Map reads the records of in, named name, as Run does (with its workers
// analysing pages), and calls emit with each record's Fact, in input order,
// instead of deciding over it. Nothing is written and no index changes.
func (d *Deduper) Map(in io.Reader, name string, emit func(*Fact) error) error {
	if emit == nil {
		return errors.New("dedup: Map without an emit function")
	}
	d.stage, d.emit = stageMap, emit
	defer func() { d.stage, d.emit = stageRun, nil }()
	return d.Run(in, name, io.Discard, false)
}

// Judge decides over the record of f, of the file name, as Run decides at
// the same point of a run: the Facts of a run's files go to Judge in the
// run's order, every record of one file before those of the next.
func (d *Deduper) Judge(name string, f *Fact) (Decision, error) {
	if d.broken != nil {
		return Decision{}, d.broken
	}
	if !d.judging || name != d.judgeFile {
		// A new file: what was reported of the last one is written.
		if err := d.begin(); err != nil {
			return Decision{}, err
		}
		d.ran, d.judging, d.judgeFile = true, true, name
	}
	return d.judge(name, f, 0)
}

// Apply reads the records of in, named name, as Run does, and writes each to
// out as its Decision says; a record without one is copied as it is. next
// returns the file's Decisions in the order of their records, and io.EOF
// after the last. A Decision that names no record of the file, or a record
// whose payload is not the one the Decision was made for, fails the file:
// the decisions are not of this file. So does a file that does not hold
// records records (the number of Facts Map made of it), unless records is
// negative.
func (d *Deduper) Apply(in io.Reader, name string, out io.Writer, compress bool, records int64, next func() (*Decision, error)) error {
	d.stage, d.applyNext, d.applyPending, d.applied = stageApply, next, nil, 0
	defer func() { d.stage, d.applyNext, d.applyPending = stageRun, nil, nil }()
	if err := d.Run(in, name, out, compress); err != nil {
		return err
	}
	if records >= 0 && d.applied != records {
		return fmt.Errorf("dedup: %s holds %d records, and the decisions were made for %d: it is not the file that was mapped", name, d.applied, records)
	}
	if dec, err := d.pendingDecision(); err != nil {
		return err
	} else if dec != nil {
		return fmt.Errorf("dedup: %s: a decision names offset %d, past the file's last record", name, dec.Offset)
	}
	return nil
}

// pendingDecision returns the next Decision Apply has not used, or nil after
// the last.
func (d *Deduper) pendingDecision() (*Decision, error) {
	if d.applyPending == nil && d.applyNext != nil {
		dec, err := d.applyNext()
		if err == io.EOF {
			d.applyNext = nil
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		d.applyPending = dec
	}
	return d.applyPending, nil
}

// applyOne writes the record of it as its Decision says.
func (d *Deduper) applyOne(name string, it *item, w *warcio.Writer) error {
	if it.rec.Kind == warcio.KindPadding {
		// No record, so no Fact and no Decision (Map): copied as it is,
		// whatever decision names its offset, which is a record's.
		d.Stats.add(&d.Stats.Out, kindName(it.rec))
		return w.CopyRaw(it.raw)
	}
	d.applied++
	if it.rec.Err != nil {
		// Carried over as it is (Options.Lenient), as judge counts it.
		d.Stats.Damaged++
		d.Stats.DamagedBytes += it.raw.Size
	}
	dec, err := d.pendingDecision()
	if err != nil {
		return err
	}
	off := it.rec.PlainOffset
	if dec != nil && dec.Offset < off {
		return fmt.Errorf("dedup: %s: a decision names offset %d, where no record starts", name, dec.Offset)
	}
	if dec == nil || dec.Offset > off {
		d.Stats.add(&d.Stats.Out, kindName(it.rec))
		return w.CopyRaw(it.raw)
	}
	d.applyPending = nil
	if dec.act != actPass {
		if f := d.factOf(it); f.cls != clsEligible || foldDigest(f.digest) != foldDigest(dec.digest) {
			return fmt.Errorf("dedup: %s: record %s at offset %d is not the one its decision was made for", name, it.rec.ID(), off)
		}
		// A revisit of itself would leave its payload in no file: the
		// decision was made for another record of this payload and offset
		// (lines moved between files). A record that repeats an earlier
		// record's ID (repeat) may name that one.
		if k := dec.keptRef(); k.id != "" && k.id == it.rec.ID() && dec.repeat == 0 {
			return fmt.Errorf("dedup: %s: the decision for record %s at offset %d names the record itself as its kept copy: it was made for another record", name, it.rec.ID(), off)
		}
		d.Stats.add(&d.Stats.Out, "revisit")
		if dec.act == actExact {
			d.Stats.Revisits++
		} else {
			d.Stats.NearRevisits++
		}
	} else {
		d.Stats.add(&d.Stats.Out, kindName(it.rec))
	}
	if dec.annotate {
		d.Stats.add(&d.Stats.Out, "metadata")
	}
	return d.write(w, name, it, dec)
}

// Fact and Decision have a binary form for the steps in between (see
// cmd/warcdedup, which writes it as base64 in text lines). Strings are
// length-prefixed; numbers are varints.

const (
	factVersion     = 2
	decisionVersion = 1
)

const (
	factNonconforming = 1 << iota
	factPage
	factComputed // the computed digest differs from the recorded one, and follows it
	// Compact forms of what every record's Fact carries, as Heritrix, wget
	// and warcio write them (a map line is a record's, and the rounds send
	// a page's Fact four times): any other spelling is written as it is.
	factUUID         // the record ID is "<urn:uuid:...>" in lower case: 16 bytes
	factSeconds      // the date is "YYYY-MM-DDThh:mm:ssZ": Unix seconds, a varint
	factSHA1         // the digest is "sha1:" and base32 of 20 bytes: the bytes
	factSHA1Computed // the computed digest, when it differs, likewise
)

// factKinds are the record kinds a Fact names by their place (+1) in the
// list; 0 is followed by the name.
var factKinds = []string{"response", "request", "metadata", "warcinfo", "revisit", "resource", "conversion", "continuation"}

// uuidID returns the 16 bytes of a record ID "<urn:uuid:...>" whose UUID is
// in lower-case canonical form (8-4-4-4-12 hex digits), which formatUUIDID
// writes back as it was.
func uuidID(id string) ([16]byte, bool) {
	var u [16]byte
	const pre, n = "<urn:uuid:", len("<urn:uuid:") + 36 + 1
	if len(id) != n || id[:len(pre)] != pre || id[n-1] != '>' {
		return u, false
	}
	h := id[len(pre) : n-1]
	k := 0
	for i := 0; i < len(h); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if h[i] != '-' {
				return u, false
			}
			continue
		}
		c := h[i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		default:
			return u, false
		}
		u[k/2] |= v << (4 * (1 - k%2))
		k++
	}
	return u, true
}

// formatUUIDID is the record ID of the UUID u.
func formatUUIDID(u []byte) string {
	const hexd = "0123456789abcdef"
	b := make([]byte, 0, len("<urn:uuid:")+36+1)
	b = append(b, "<urn:uuid:"...)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexd[c>>4], hexd[c&15])
	}
	return string(append(b, '>'))
}

const secondsLayout = "2006-01-02T15:04:05Z"

// dateSeconds returns the Unix seconds of a WARC-Date written to the second
// in UTC, which formatSeconds writes back as it was.
func dateSeconds(date string) (int64, bool) {
	if len(date) != len(secondsLayout) {
		return 0, false
	}
	t, err := time.Parse(secondsLayout, date)
	if err != nil || t.Format(secondsLayout) != date {
		return 0, false
	}
	return t.Unix(), true
}

func formatSeconds(s int64) string { return time.Unix(s, 0).UTC().Format(secondsLayout) }

// sha1Bytes returns the 20 bytes of a digest "sha1:" + base32 (as
// warcio.Payload.Digest writes it), which formatSHA1 writes back as it was.
func sha1Bytes(digest string) ([]byte, bool) {
	if len(digest) != len("sha1:")+32 || digest[:5] != "sha1:" {
		return nil, false
	}
	b, err := base32.StdEncoding.DecodeString(digest[5:])
	if err != nil || len(b) != 20 || base32.StdEncoding.EncodeToString(b) != digest[5:] {
		return nil, false
	}
	return b, true
}

func formatSHA1(b []byte) string { return "sha1:" + base32.StdEncoding.EncodeToString(b) }

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads what the append functions wrote; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

var errCut = errors.New("cut short")

func (r *decoder) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errCut)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *decoder) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errCut)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *decoder) byte() byte {
	if len(r.b) < 1 {
		r.fail(errCut)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *decoder) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.fail(errCut)
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *decoder) string() string { return string(r.bytes(r.uvarint())) }

// digest reads a payload digest: its 20 bytes if raw (formatSHA1), else a
// string.
func (r *decoder) digest(raw bool) string {
	if !raw {
		return r.string()
	}
	if b := r.bytes(20); r.err == nil {
		return formatSHA1(b)
	}
	return ""
}

func (r *decoder) float() float64 {
	v := r.bytes(8)
	if v == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(v))
}

// AppendBinary appends the Fact's binary form to b.
func (f *Fact) AppendBinary(b []byte) ([]byte, error) {
	var flags byte
	if f.nonconforming {
		flags |= factNonconforming
	}
	if f.page.OK() {
		flags |= factPage
	}
	eligible, refers := f.cls == clsEligible, f.cls == clsRefers
	if eligible && f.computed != f.digest {
		flags |= factComputed
	}
	uuid, isUUID := uuidID(f.id)
	if isUUID {
		flags |= factUUID
	}
	var secs int64
	var sha, shaComputed []byte
	if eligible || refers {
		var ok bool
		if secs, ok = dateSeconds(f.date); ok {
			flags |= factSeconds
		}
		if sha, ok = sha1Bytes(f.digest); ok {
			flags |= factSHA1
		}
		if eligible && f.computed != f.digest {
			if shaComputed, ok = sha1Bytes(f.computed); ok {
				flags |= factSHA1Computed
			}
		}
	}
	b = append(b, factVersion, flags, byte(f.cls))
	b = binary.AppendVarint(b, f.Offset)
	if k := slices.Index(factKinds, f.kind); k >= 0 {
		b = append(b, byte(k+1))
	} else {
		b = appendString(append(b, 0), f.kind)
	}
	b = binary.AppendVarint(b, f.size)
	if isUUID {
		b = append(b, uuid[:]...)
	} else {
		b = appendString(b, f.id)
	}
	if !eligible && !refers {
		return b, nil
	}
	b = appendString(b, f.uri)
	if flags&factSeconds != 0 {
		b = binary.AppendVarint(b, secs)
	} else {
		b = appendString(b, f.date)
	}
	if sha != nil {
		b = append(b, sha...)
	} else {
		b = appendString(b, f.digest)
	}
	if refers {
		return binary.AppendVarint(b, f.stored), nil
	}
	switch {
	case shaComputed != nil:
		b = append(b, shaComputed...)
	case f.computed != f.digest:
		b = appendString(b, f.computed)
	}
	b = append(b, f.sha256[:]...)
	b = binary.AppendVarint(b, f.length)
	if f.page.OK() {
		b = appendString(b, f.entity)
		return f.page.AppendBinary(b)
	}
	return b, nil
}

// UnmarshalBinary reads a Fact written by AppendBinary.
func (f *Fact) UnmarshalBinary(data []byte) error {
	*f = Fact{}
	r := decoder{b: data}
	if v := r.byte(); r.err == nil && v != factVersion {
		return fmt.Errorf("dedup: record fact of format %d, this version reads %d", v, factVersion)
	}
	flags, cls := r.byte(), class(r.byte())
	if cls >= numClasses {
		r.fail(fmt.Errorf("unknown class %d", cls))
	}
	f.cls, f.nonconforming = cls, flags&factNonconforming != 0
	f.Offset = r.varint()
	switch k := r.byte(); {
	case k == 0:
		f.kind = r.string()
	case int(k) <= len(factKinds):
		f.kind = factKinds[k-1]
	default:
		r.fail(fmt.Errorf("unknown record kind %d", k))
	}
	f.size = r.varint()
	if flags&factUUID != 0 {
		if u := r.bytes(16); r.err == nil {
			f.id = formatUUIDID(u)
		}
	} else {
		f.id = r.string()
	}
	if r.err == nil && (f.cls == clsEligible || f.cls == clsRefers) {
		f.uri = r.string()
		if flags&factSeconds != 0 {
			f.date = formatSeconds(r.varint())
		} else {
			f.date = r.string()
		}
		f.digest = r.digest(flags&factSHA1 != 0)
	}
	if r.err == nil && f.cls == clsRefers {
		f.stored = r.varint()
	}
	if r.err == nil && f.cls == clsEligible {
		f.computed = f.digest
		if flags&factComputed != 0 {
			f.computed = r.digest(flags&factSHA1Computed != 0)
		}
		copy(f.sha256[:], r.bytes(32))
		f.length = r.varint()
		if flags&factPage != 0 {
			f.entity = r.string()
			if r.err == nil {
				p, rest, err := near.DecodePage(r.b)
				if err != nil {
					r.fail(err)
				} else if !p.OK() {
					r.fail(errors.New("a page that cannot be compared"))
				}
				f.page, r.b = p, rest
			}
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Errorf("%d bytes after the fact", len(r.b)))
	}
	if r.err != nil {
		return fmt.Errorf("dedup: reading a record fact: %w", r.err)
	}
	return nil
}

const (
	decAnnotate = 1 << iota
	decBare
	decMatch
)

// AppendBinary appends the Decision's binary form to b.
func (dec *Decision) AppendBinary(b []byte) []byte {
	var flags byte
	if dec.annotate {
		flags |= decAnnotate
	}
	if dec.kept.bare {
		flags |= decBare
	}
	hasMatch := dec.act == actNear || dec.annotate
	if hasMatch {
		flags |= decMatch
	}
	b = append(b, decisionVersion, byte(dec.act), flags)
	b = binary.AppendVarint(b, dec.Offset)
	b = binary.AppendUvarint(b, uint64(dec.repeat))
	b = appendString(b, dec.digest)
	if dec.act == actExact {
		b = appendString(b, dec.kept.id)
		b = appendString(b, dec.kept.uri)
		b = appendString(b, dec.kept.date)
	}
	if hasMatch {
		m := &dec.m
		b = appendString(b, m.kept.id)
		b = appendString(b, m.kept.uri)
		b = appendString(b, m.kept.date)
		b = appendString(b, m.kept.entity)
		b = appendString(b, m.keptDigest)
		b = appendString(b, m.Method)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.Similarity))
		b = appendString(b, string(m.Relation))
		b = append(b, byte(m.Contain))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.Share))
	}
	return b
}

// UnmarshalBinary reads a Decision written by AppendBinary.
func (dec *Decision) UnmarshalBinary(data []byte) error {
	*dec = Decision{}
	r := decoder{b: data}
	if v := r.byte(); r.err == nil && v != decisionVersion {
		return fmt.Errorf("dedup: decision of format %d, this version reads %d", v, decisionVersion)
	}
	act, flags := action(r.byte()), r.byte()
	if act >= numActions {
		r.fail(fmt.Errorf("unknown action %d", act))
	}
	dec.act, dec.annotate = act, flags&decAnnotate != 0
	dec.Offset = r.varint()
	if rep := r.uvarint(); rep > math.MaxUint32 {
		r.fail(errors.New("repeat count out of range"))
	} else {
		dec.repeat = uint32(rep)
	}
	dec.digest = r.string()
	if act == actExact {
		dec.kept = ref{id: r.string(), uri: r.string(), date: r.string(), bare: flags&decBare != 0}
	}
	if flags&decMatch != 0 {
		m := &dec.m
		m.kept = ref{id: r.string(), uri: r.string(), date: r.string(), entity: r.string()}
		m.keptDigest = r.string()
		m.Method = r.string()
		m.Similarity = r.float()
		m.Relation = near.Relation(r.string())
		m.Contain = near.Containment(r.byte())
		m.Share = r.float()
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Errorf("%d bytes after the decision", len(r.b)))
	}
	if r.err != nil {
		return fmt.Errorf("dedup: reading a decision: %w", r.err)
	}
	return nil
}

// keptRef is the kept record a revisit decision names.
func (dec *Decision) keptRef() ref {
	if dec.act == actNear {
		return dec.m.kept
	}
	return dec.kept
}
