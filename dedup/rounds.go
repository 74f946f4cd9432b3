package dedup

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/near"
)

// Partitioned rounds. One reduce over every record holds every kept page's
// signatures: its memory grows with the archive. The decisions are
// sequential, but what ties one page's decision to pages of other sites is
// small once the frame filter counts a site's frame over that site's pages
// only (near.Index): the reduce then runs as rounds whose groups are bounded
// by a payload's copies, a site's pages and an LSH bucket, and one last
// round over the replaced pages only.
//
//	exact    by payload digest: the first capture of a payload leads, the
//	         others follow it (or stay, on a digest conflict or when the
//	         leader was captured later); by record ID: repeat counts.
//	site     by site key: a site's leading pages judged in capture order
//	         against the site's kept pages, as one machine judges them;
//	         the kept pages go on, less the site's frame, to one bucket for
//	         each MinHash band of their content keys (lshBands).
//	bands    by band: the pairs of a bucket, earlier and later page.
//	join     by kept page: its facts to each later page it shares
//	         lshMinShared bands with.
//	verify   by kept page: the page against each candidate, by the exact
//	         matcher.
//	resolve  one group, in capture order: a page's cross-site match is the
//	         most similar candidate not itself replaced; a page replaced by
//	         a page later replaced points at that one's kept copy; an exact
//	         copy of a replaced page is a near revisit of its kept copy.
//
// With --near=annotate no page is replaced: the site and verify rounds
// annotate what they would replace, and their containments, and the resolve
// round treats a page annotated as a near duplicate as one machine does,
// as no page a later one is compared with; its exact copies stay exact
// revisits of it.
//
// A line's key is a round's tag, the group and, after a space, the record's
// key in capture order; the lines of a group reach its round sorted (LC_ALL=C
// sort). A group's key holds no space: a digest, a site key, a band in hex,
// an ID in base64. Decisions leave the rounds keyed by their file (the key
// apply reads), with the repeat counts of the exact round.

// Round tags: the first byte of a line's key.
const (
	tagExact   = 'E'
	tagID      = 'I'
	tagSite    = 'S'
	tagBand    = 'B'
	tagJoin    = 'J'
	tagVerify  = 'V'
	tagResolve = 'Z'
)

// Values of lines keyed by file, for apply.
const (
	ValFile     = 'F'
	ValDecision = 'D'
	ValRepeat   = 'R'
)

// lshRounds is the banding of the bands round: 64 bands of 2 rows, and a
// pair is verified when it shares lshMinShared of them. With 2 rows, a pair
// at the cross-site threshold's Jaccard (0.25) shares two or more bands with
// probability 0.92 (one or more of 32 bands: 0.87), and a pair of pages that
// only share vocabulary, at 0.05, with 0.011 (0.077): on the scaled set 1.0
// candidate a page against 8.2, the same pairs missed. Datatrove's 14 bands
// of 8 rows, made for 0.5 and above, lose the low-similarity syndicated
// copies (docs/scale.md gives the measurements).
var lshRounds = lshScheme{64, 2}

// lshMinShared is how many bands a pair must share to be verified.
const lshMinShared = 2

// lshScheme is a MinHash LSH banding: bands of rows minimum hashes each.
type lshScheme struct{ bands, rows int }

// Line is one line between rounds: its key and its value (binary; base64
// in the text shuffle).
type Line struct {
	Key string
	Val []byte
}

// Group is the group of a key: what an engine partitions by.
func Group(key string) string {
	g, _, _ := strings.Cut(key, " ")
	return g
}

// idKey is a record ID as a group: base64 without padding, no spaces.
func idKey(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

// RoundFacts writes the lines a record's Fact starts the rounds with: by
// digest for an eligible record, by ID for a record that has one. recKey is
// the record's key in capture order.
func RoundFacts(recKey string, f *Fact, emit func(Line) error) error {
	if f.id != "" {
		if err := emit(Line{string(tagID) + idKey(f.id) + " " + recKey, nil}); err != nil {
			return err
		}
	}
	if f.cls != clsEligible && f.cls != clsRefers {
		return nil
	}
	b, err := f.AppendBinary(nil)
	if err != nil {
		return err
	}
	group := f.digest
	if f.cls == clsRefers {
		if !strings.Contains(group, ":") {
			// A revisit's digest without its algorithm (pywb's index strips
			// "sha1:") meets the captures' as crawlers record them.
			group = "sha1:" + group
		}
		// After every capture of the group, whatever the order they were
		// read in: whether the capture a revisit names stays is known once
		// the group's captures are all decided.
		recKey = string(laterRefers) + recKey
	}
	return emit(Line{string(tagExact) + groupOf(foldDigest(group)) + " " + recKey, b})
}

// SeedLines writes the line a record kept by an earlier run, read from an
// index, starts the rounds with: keyed by its digest, as a run's records
// are, with a record key that sorts before every file's ("/" and its place
// in the index). Such a record leads its payload and is a kept page of its
// site, and is never replaced.
func SeedLines(n int, rec *index.Record, emit func(Line) error) error {
	b, err := index.AppendRecord(nil, rec)
	if err != nil {
		return err
	}
	return emit(Line{string(tagExact) + groupOf(foldDigest(rec.Digest)) + " " + string(sortableHex([]byte{'/'}, uint64(n))), b})
}

// NameLine writes the line that names a file, keyed fileKey, for the
// resolve round: an index names the output a kept record is in.
func NameLine(fileKey, path string, emit func(Line) error) error {
	return emitEvent(event{kind: evName, subject: fileKey, kept: path}, emit)
}

// seedKey says whether a record key is an index record's (SeedLines).
func seedKey(k string) bool { return strings.HasPrefix(k, "/") }

// laterRefers comes before the record key of an input revisit's line in
// the exact round (RoundFacts): it sorts after the record keys of files
// ('0', '1') and of an index ('/').
const laterRefers = '~'

// refersKey returns the record key of an input revisit's exact line as it
// was before RoundFacts put laterRefers in front of it.
func refersKey(k string) string { return strings.TrimPrefix(k, string(laterRefers)) }

// seedFact is the Fact of an index record: an eligible record with its
// page, if it has one.
func seedFact(rec *index.Record) *Fact {
	f := &Fact{cls: clsEligible, kind: "response", id: rec.ID, uri: rec.URI, date: rec.Date, digest: rec.Digest,
		computed: rec.Computed, sha256: rec.SHA256, entity: rec.Entity}
	if rec.Page.OK() {
		f.page = rec.Page
	}
	return f
}

// fileOf is the file key of a record key (FILE:OFFSET).
func fileOf(recKey string) string {
	i := strings.LastIndexByte(recKey, ':')
	if i < 0 {
		return recKey
	}
	return recKey[:i]
}

// Round names, in their order.
var RoundNames = []string{"exact", "site", "bands", "join", "verify", "resolve"}

// roundTags are the tags each round takes; it passes the other lines on as
// they are, so each round reads the output of the one before it, and apply
// the last one's.
var roundTags = map[string]string{"exact": "EI", "site": "S", "bands": "B", "join": "J", "verify": "V", "resolve": "Z"}

// Rounds runs one round over groups of lines.
type Rounds struct {
	round string
	opts  Options
	// Settings, if set, are the settings the files must have been mapped
	// with (see passOn).
	Settings string
	// Index says the run adds what it keeps to an index: the exact and
	// site rounds write the records they keep for the resolve round, which
	// hands those not replaced there to Keep, in capture order, as an index
	// takes them (Deduper.Kept), with the base name of their file.
	Index bool
	Keep  func(*index.Record) error
	// report, if set (SetReport), takes the resolve round's duplicates and
	// clusters, as the report of a run takes them.
	report *report
	// BrokenRevisit, if set, is told by the resolve round about each input
	// revisit that names a response the run replaced, with none like it
	// left, as Options.BrokenRevisit is by a run (offset as stored);
	// BrokenRevisits counts them.
	BrokenRevisit  func(file string, offset int64, id, uri, digest string)
	BrokenRevisits int
	// inputs are the files' paths, in capture order; names the base name
	// of each by its key (the resolve round, for Keep: NameLine).
	inputs []string
	names  map[string]string
	paths  map[string]string
	last   string     // the last key read
	g      groupState // the group being read
	// resolve's state: the replaced pages, by record key, the record whose
	// events are being gathered, and the last line.
	finals  *finalStore
	subject string
	events  []event
	prev    Line
	// late: the input revisits naming a capture decided after them, for
	// the end of the round.
	late revisitLog
}

// NewRound returns the round of that name (RoundNames) with the decision's
// options.
func NewRound(name string, opts Options) (*Rounds, error) {
	if _, ok := roundTags[name]; !ok {
		return nil, fmt.Errorf("dedup: no round %q (want one of %s)", name, strings.Join(RoundNames, ", "))
	}
	opts.Report = nil
	return &Rounds{round: name, opts: opts, finals: newFinalStore(opts.TempDir), late: revisitLog{dir: opts.TempDir}}, nil
}

func subjectOf(key string) string {
	_, s, _ := strings.Cut(key, " ")
	s, _, _ = strings.Cut(s, " ")
	return s
}

// ParseRepeat reads a repeat line's value (ValRepeat): the offset of a
// record and how many records of the run had its ID before it.
func ParseRepeat(v []byte) (off int64, n uint32, err error) {
	if len(v) == 0 || v[0] != ValRepeat {
		return 0, 0, errors.New("dedup: not a repeat line")
	}
	d := decoder{b: v[1:]}
	off = d.varint()
	c := d.uvarint()
	if d.err == nil && (len(d.b) != 0 || c == 0 || c > 1<<32-1) {
		d.fail(errors.New("not a repeat line"))
	}
	if d.err != nil {
		return 0, 0, fmt.Errorf("dedup: %w", d.err)
	}
	return off, uint32(c), nil
}

// SetRepeat sets how many records of the run had the record's ID before it
// (a repeat line of the exact round).
func (dec *Decision) SetRepeat(n uint32) { dec.repeat = n }

func decodeFact(l Line) (*Fact, error) {
	f := new(Fact)
	if err := f.UnmarshalBinary(l.Val); err != nil {
		return nil, err
	}
	return f, nil
}

// refOf is the reference to the record of f as a kept copy.
func refOf(f *Fact) ref {
	r := ref{id: f.id, uri: f.uri, date: f.date, digest: f.digest, computed: f.computed, sha256: f.sha256}
	if f.page.OK() {
		r.entity = f.entity
	}
	return r
}

// Event kinds of the resolve round.
const (
	evFollow  = 'f' // an exact copy of a leading page
	evEarlier = 'e' // an exact copy of a leading page, captured before it
	evKept    = 'k' // a record kept, unless replaced across sites: for the index
	evName    = 'n' // a file's path (kept), before its records: for the index
	evSite    = 's' // a page replaced by a page of its site (annotated, with --near=annotate)
	evCross   = 'x' // a page replaced, in a bucket, by a page of another site (or annotated)
	evHolds   = 'c' // a page that holds a kept page of its site, or is held in one (annotated)
	evRefer   = 'r' // an input revisit naming the leading capture (kept) or a replaced one (kept empty)
)

// event is a line of the resolve round: what a round found of a record.
type event struct {
	kind    byte
	subject string // the record's key
	kept    string // the kept record's key
	dec     Decision
	rec     *index.Record // evKept: the record as the index takes it
	// The record's target URI, date and ID, and the evidence of a near
	// duplicate, for the report (a decision's events).
	uri, date, id               string
	shared, sigs, keptSigs, own int
}

func (e *event) line() (Line, error) {
	v := []byte{e.kind}
	v = appendString(v, e.kept)
	key := string(tagResolve) + " " + e.subject + " " + string(e.kind) + e.kept
	switch e.kind {
	case evKept:
		var err error
		if v, err = index.AppendRecord(v, e.rec); err != nil {
			return Line{}, err
		}
	case evName:
		key = string(tagResolve) + " " + e.subject + " " + string(e.kind)
	default:
		v = appendString(appendString(appendString(appendString(v, e.uri), e.date), e.id), e.dec.m.Reason)
		m := &e.dec.m
		for _, n := range [...]int{m.Shared, m.Sigs, m.KeptSigs, m.Own} {
			v = binary.AppendUvarint(v, uint64(n))
		}
		v = append(v, e.dec.AppendBinary(nil)...)
	}
	return Line{key, v}, nil
}

// emitEvent writes an event for the resolve round.
func emitEvent(e event, emit func(Line) error) error {
	l, err := e.line()
	if err != nil {
		return err
	}
	return emit(l)
}

func decodeEvent(l Line) (event, error) {
	e := event{subject: subjectOf(l.Key)}
	if len(l.Val) < 1 {
		return e, errors.New("dedup: an empty resolve line")
	}
	e.kind = l.Val[0]
	d := decoder{b: l.Val[1:]}
	e.kept = d.string()
	if d.err != nil {
		return e, d.err
	}
	switch e.kind {
	case evKept:
		var err error
		e.rec, err = index.DecodeRecord(d.b)
		return e, err
	case evName:
		if len(d.b) != 0 {
			return e, errors.New("dedup: bytes after a file's name")
		}
		return e, nil
	}
	e.uri, e.date, e.id = d.string(), d.string(), d.string()
	reason := d.string()
	e.shared, e.sigs, e.keptSigs, e.own = int(d.uvarint()), int(d.uvarint()), int(d.uvarint()), int(d.uvarint())
	if d.err != nil {
		return e, d.err
	}
	if err := e.dec.UnmarshalBinary(d.b); err != nil {
		return e, err
	}
	m := &e.dec.m
	m.Shared, m.Sigs, m.KeptSigs, m.Own, m.Reason = e.shared, e.sigs, e.keptSigs, e.own, reason
	return e, nil
}

// groupOf makes a digest or a site key a group: no space, tab or line
// break, which end a key or a line (a recorded digest is taken verbatim),
// and not empty.
func groupOf(s string) string {
	if s == "" {
		return "-"
	}
	if strings.ContainsAny(s, " \t\r\n%") {
		s = strings.NewReplacer("%", "%25", " ", "%20", "\t", "%09", "\r", "%0D", "\n", "%0A").Replace(s)
	}
	return s
}

// stripFrame takes the site's frame (as the index holds it now) out of the
// page's bags.
func stripFrame(ix *near.Index, pg *near.Page, on bool) {
	if !on {
		return
	}
	strip := func(b features.Bag) features.Bag {
		if b == nil {
			return nil
		}
		out := make(features.Bag, 0, len(b))
		for _, e := range b {
			if !ix.IsFrame(pg.Site, e.Key) {
				out = append(out, e)
			}
		}
		return out
	}
	pg.Spots, pg.Bigrams, pg.AF = strip(pg.Spots), strip(pg.Bigrams), strip(pg.AF)
}

// pageKeys are the keys of each bag a page may be compared by across
// sites: none for a page with no main text (near.Page.Whole), which is
// compared with captures of its own URL only, in its site's round.
func pageKeys(p *near.Page) [][]uint64 {
	if p.Whole {
		return nil
	}
	var out [][]uint64
	for _, b := range []features.Bag{p.Spots, p.Bigrams, p.AF} {
		ks := make([]uint64, len(b))
		for i, e := range b {
			ks[i] = e.Key
		}
		out = append(out, ks)
	}
	return out
}

// lshBands returns the band keys of each set in sets (one family each).
func lshBands(sets [][]uint64, sc lshScheme) []uint64 {
	var out []uint64
	mins := make([]uint64, sc.bands*sc.rows)
	for fam, ks := range sets {
		if len(ks) == 0 {
			continue
		}
		for i := range mins {
			mins[i] = ^uint64(0)
		}
		for _, k := range ks {
			for i := range mins {
				if h := features.Mix(k ^ uint64(i+1)*0x9e3779b97f4a7c15); h < mins[i] {
					mins[i] = h
				}
			}
		}
		for b := 0; b < sc.bands; b++ {
			h := fnv.New64a()
			var buf [8]byte
			binary.LittleEndian.PutUint64(buf[:], uint64(fam<<16|b))
			h.Write(buf[:])
			for r := 0; r < sc.rows; r++ {
				binary.LittleEndian.PutUint64(buf[:], mins[b*sc.rows+r])
				h.Write(buf[:])
			}
			out = append(out, h.Sum64())
		}
	}
	return out
}

// kept writes the record of f, key k, as the index takes it, for the
// resolve round: kept unless it is replaced across sites there.
func (r *Rounds) kept(k string, f *Fact, page *near.Page, emit func(Line) error) error {
	rec := &index.Record{ID: f.id, URI: f.uri, Date: f.date, Digest: f.digest, Computed: f.computed,
		SHA256: f.sha256, Page: page}
	if f.page.OK() {
		rec.Entity = f.entity
	}
	return emitEvent(event{kind: evKept, subject: k, rec: rec}, emit)
}

// SetReport makes the resolve round write the JSON lines report of the
// duplicates it decides and, when it ends, of their clusters, as a run's
// report (Options.Report) does; containments and pages kept on weak
// evidence are in it only when they are annotated (--near=annotate).
func (r *Rounds) SetReport(w io.Writer) { r.report = newReport(w, r.opts.TempDir) }

// Inputs are the paths of the run's files, in capture order, as the
// resolve round read them (NameLine).
func (r *Rounds) Inputs() []string { return r.inputs }

// settle decides over the subject whose events were gathered.
func (r *Rounds) settle(emit func(Line) error) error {
	evs := r.events
	r.events = r.events[:0]
	if len(evs) == 0 {
		return nil
	}
	if evs[0].kind == evName {
		if r.names == nil {
			r.names, r.paths = map[string]string{}, map[string]string{}
		}
		if _, ok := r.names[evs[0].subject]; !ok {
			base := filepath.Base(evs[0].kept)
			for k, p := range r.paths {
				if r.names[k] == base {
					// apply writes each file's output by its base name: one
					// would overwrite the other, in two tasks that cannot
					// see each other (as the one-task reduce refuses them).
					return &NameClashError{First: p, Second: evs[0].kept, Base: base}
				}
			}
			r.names[evs[0].subject] = base
			r.paths[evs[0].subject] = evs[0].kept
			r.inputs = append(r.inputs, evs[0].kept)
		}
		return nil
	}
	var dec, holds *Decision
	var keep *index.Record
	annotate := r.opts.Near == NearAnnotate
	// Of a page's cross-site matches, the most similar whose kept page was
	// not itself replaced (or, annotated, left out of the index of pages),
	// as one machine's index would hold it.
	for i := range evs {
		e := &evs[i]
		switch e.kind {
		case evCross:
			if r.finals.has(e.kept) {
				continue
			}
			if dec == nil || e.dec.m.Similarity > dec.m.Similarity {
				dec = &e.dec
			}
		case evSite, evFollow:
			// The page it matched or copies was replaced in turn: it points
			// at that page's kept copy. An annotated page is kept: its
			// exact copies are revisits of it.
			dec = &e.dec
			f, ok, err := r.finals.get(e.kept)
			switch {
			case err != nil:
				return err
			case ok && e.kind == evSite:
				dec.m.kept, dec.m.keptDigest = f.kept, f.keptDigest
				dec.m.Relation = f.Relation
			case ok && !annotate:
				dec.act, dec.kept, dec.m = actNear, ref{}, *f
			}
		case evEarlier:
			// Kept whole unless the leading page was replaced: then a near
			// revisit of its kept copy, as one machine finds judging the
			// copy as a page, unless that copy was captured after it.
			f, ok, err := r.finals.get(e.kept)
			if err != nil {
				return err
			}
			if ok && !annotate && !later(f.kept.date, e.date) {
				dec = &e.dec
				dec.act, dec.kept, dec.m = actNear, ref{}, *f
			}
		case evHolds:
			holds = &e.dec
		case evKept:
			keep = e.rec
		case evRefer:
			// An input revisit: passed through; it is broken if what it names
			// was replaced (as the run's goneSet tells). A capture read after
			// the revisit is decided later in the round: checked at its end
			// (Flush).
			if e.kept != "" && !annotate && e.kept > evs[0].subject {
				if err := r.late.add(r.paths[fileOf(e.subject)], e.kept, e.dec.Offset, e.id, e.uri, e.dec.digest); err != nil {
					return err
				}
				continue
			}
			if e.kept != "" && (annotate || !r.finals.has(e.kept)) {
				continue
			}
			r.brokenRevisit(r.paths[fileOf(e.subject)], e.dec.Offset, e.id, e.uri, e.dec.digest)
		}
	}
	if dec == nil {
		dec = holds
	}
	if keep != nil && r.Keep != nil && (dec == nil || dec.act == actPass) {
		keep.File = r.names[fileOf(evs[0].subject)]
		if dec != nil && dec.m.Contain == near.NotContained {
			// Annotated as a near duplicate of another site's page: kept,
			// but, as one machine keeps it, no page a later crawl's pages
			// are compared with.
			keep.Page = nil
		}
		if err := r.Keep(keep); err != nil {
			return err
		}
	}
	if dec == nil {
		return nil
	}
	// A replaced page, or a near duplicate kept with its annotation, is no
	// page a later one is compared with (nor a copy's kept page, replaced);
	// a copy captured before its page, replaced, names no capture an input
	// revisit can be resolved by.
	if (dec.act == actNear || dec.annotate && dec.m.Contain == near.NotContained) && evs[0].kind != evFollow {
		if err := r.finals.put(evs[0].subject, &dec.m); err != nil {
			return err
		}
	}
	if r.report != nil {
		if err := r.reportLine(evs, dec); err != nil {
			return err
		}
	}
	v := append([]byte{ValDecision}, dec.AppendBinary(nil)...)
	return emit(Line{fileOf(evs[0].subject), v})
}

// brokenRevisit counts and tells of an input revisit whose original the
// run replaced.
func (r *Rounds) brokenRevisit(file string, stored int64, id, uri, digest string) {
	r.BrokenRevisits++
	if r.BrokenRevisit != nil {
		r.BrokenRevisit(file, stored, id, uri, digest)
	}
}

// reportLine writes the report's line for the decision over the subject of
// evs.
func (r *Rounds) reportLine(evs []event, dec *Decision) error {
	var e *event
	for i := range evs {
		if evs[i].kind != evKept {
			e = &evs[i]
			break
		}
	}
	d := Duplicate{File: r.paths[fileOf(e.subject)], URI: e.uri, Date: e.date, RecordID: e.id, Action: "revisit"}
	if dec.act == actExact {
		k := &dec.kept
		d.KeptURI, d.KeptDate, d.KeptID, d.Method, d.Similarity, d.Relation = k.uri, k.date, k.id, "exact", 1, relation(k.uri, e.uri)
		if err := r.report.duplicate(d); err != nil {
			return err
		}
		return r.report.commit()
	}
	m := &dec.m
	d.KeptURI, d.KeptDate, d.KeptID, d.Method, d.Similarity, d.Relation = m.kept.uri, m.kept.date, m.kept.id, m.Method, m.Similarity, string(m.Relation)
	d.Shared, d.Signatures, d.KeptSignatures, d.Own, d.Reason = m.Shared, m.Sigs, m.KeptSigs, m.Own, m.Reason
	if dec.annotate {
		d.Action = "annotate"
	}
	var err error
	switch m.Contain {
	case near.NotContained:
		err = r.report.duplicate(d)
	default:
		// As judgeContainment reports it.
		d.Direction, d.Containment, d.Shared, d.Own = "contains", m.Share, 0, 0
		if m.Contain == near.HeldByKept {
			d.Direction = "contained-in"
		}
		err = r.report.containment(d)
	}
	if err != nil {
		return err
	}
	return r.report.commit()
}

// Add takes the next line of the round's input, in key order, and writes
// what it decides; a line of another round or of apply goes on as it is.
func (r *Rounds) Add(l Line, emit func(Line) error) error {
	if len(l.Key) == 0 {
		return errors.New("dedup: a line without a key")
	}
	if l.Key < r.last {
		return fmt.Errorf("dedup: key %.60q after %.60q: the lines are not sorted by key (LC_ALL=C sort)", l.Key, r.last)
	}
	if l.Key == r.last && (l.Key[0] == tagExact || l.Key[0] == tagID) {
		// A record's key names it once: the same key twice is a file's facts
		// given twice (a map task's output, or a file listed twice, taken
		// again), which would make the record a revisit of itself.
		return fmt.Errorf("dedup: record %s twice (key %.60q): a file's facts were given twice", subjectOf(l.Key), l.Key)
	}
	r.last = l.Key
	if r.round == "resolve" && l.Key[0] == tagResolve {
		if len(r.prev.Key) > 0 && r.prev.Key == l.Key && bytes.Equal(r.prev.Val, l.Val) {
			return nil // the same candidate, found in another bucket
		}
		r.prev = Line{l.Key, append(r.prev.Val[:0], l.Val...)}
		return r.resolveLine(l, emit)
	}
	if !strings.ContainsRune(roundTags[r.round], rune(l.Key[0])) {
		return r.passOn(l, emit)
	}
	if g := Group(l.Key); !r.g.open || g != r.g.name {
		if err := r.end(emit); err != nil {
			return err
		}
		r.g.name, r.g.open = g, true
		return r.begin(l, emit)
	}
	return r.line(l, emit)
}

// Flush ends the group being read, and the resolve round's record.
func (r *Rounds) Flush(emit func(Line) error) error {
	if r.round == "resolve" {
		err := r.settle(emit)
		if err == nil {
			err = r.late.each(func(file, kept string, stored int64, id, uri, digest string) {
				if r.finals.has(kept) {
					r.brokenRevisit(file, stored, id, uri, digest)
				}
			})
		}
		r.late.close()
		if cerr := r.finals.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := r.report.close(); err != nil {
			return err
		}
	}
	return r.end(emit)
}

// passOn writes a line of a later round, or of apply, as it is. A file's
// line (ValFile) carries the settings the file was mapped with: the round
// must run with the same.
func (r *Rounds) passOn(l Line, emit func(Line) error) error {
	if c := l.Key[0]; c >= '0' && c <= '9' {
		if strings.IndexByte(l.Key, ':') >= 0 {
			return fmt.Errorf("dedup: a fact keyed %.60q: the rounds read the output of warcdedup map --rounds", l.Key)
		}
		if len(l.Val) > 0 && l.Val[0] == ValFile {
			_, name, set, err := ParseFileLine(l.Val)
			if err != nil {
				return err
			}
			if r.Settings != "" && set != r.Settings {
				return &SettingsError{File: name, Mapped: set, Here: r.Settings}
			}
		}
	}
	return emit(l)
}

// FileLine is the value of a file's line: its record count, its path and
// the settings it was mapped with.
func FileLine(records int64, name, settings string) []byte {
	return fmt.Appendf([]byte{ValFile}, "%d\x00%s\x00%s", records, name, settings)
}

// ParseFileLine reads a FileLine value.
func ParseFileLine(v []byte) (records int64, name, settings string, err error) {
	if len(v) == 0 || v[0] != ValFile {
		return 0, "", "", errors.New("dedup: not a file's line")
	}
	c, rest, _ := strings.Cut(string(v[1:]), "\x00")
	name, settings, _ = strings.Cut(rest, "\x00")
	if _, err := fmt.Sscanf(c, "%d", &records); err != nil || name == "" {
		return 0, "", "", errors.New("dedup: not a file's line")
	}
	return records, name, settings, nil
}

// NameClashError is two input files of one base name, which would write one
// output.
type NameClashError struct{ First, Second, Base string }

func (e *NameClashError) Error() string {
	return fmt.Sprintf("%s and %s would both write %s: give each input of a run its own file name", e.First, e.Second, e.Base)
}

// SettingsError is a file mapped with other settings than a round's.
type SettingsError struct{ File, Mapped, Here string }

func (e *SettingsError) Error() string {
	return fmt.Sprintf("%s was mapped with other settings:\n  map:   %s\n  round: %s", e.File, e.Mapped, e.Here)
}

// resolveLine takes one line of the resolve round.
func (r *Rounds) resolveLine(l Line, emit func(Line) error) error {
	e, err := decodeEvent(l)
	if err != nil {
		return err
	}
	if e.subject != r.subject {
		if err := r.settle(emit); err != nil {
			return err
		}
		r.subject = e.subject
	}
	r.events = append(r.events, e)
	return nil
}

// Groups runs the round over sorted lines (Add, then Flush).
func (r *Rounds) Groups(lines []Line, emit func(Line) error) error {
	for _, l := range lines {
		if err := r.Add(l, emit); err != nil {
			return err
		}
	}
	return r.Flush(emit)
}

// sortLines sorts lines by key as LC_ALL=C sort does, then by value.
func sortLines(ls []Line) {
	slices.SortFunc(ls, func(a, b Line) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return bytes.Compare(a.Val, b.Val)
	})
}

// A round reads a group a line at a time (begin with its first line, line
// with each later one, end after its last) and holds what one machine holds
// for it: the payload's first capture, the site's index, a page's Fact. The
// bands round holds the record keys of its bucket.

// groupState is what a round holds of the group being read.
type groupState struct {
	name string
	open bool
	// exact: the leading capture, its key and its Fact's binary form; the
	// later captures replaced by a capture at another URI (by capKey), and
	// whether a later capture at the leading one's URI stays, for the input
	// revisits of the payload (Deduper.gone holds the same).
	lead     *Fact
	leadRef  ref
	leadKey  string
	leadVal  []byte
	gone     map[digestKey]struct{}
	stayed   map[digestKey]bool   // later captures kept (stays)
	cond     map[digestKey]string // keys of captures kept unless replaced in the resolve round (evEarlier)
	leadKept bool
	// ids: the records with the ID so far.
	seen int
	// site: the site's Deduper and its kept pages' keys by reference;
	// verify: a Deduper for one candidate at a time.
	d    *Deduper
	keys map[uint32]string
	// bands: the bucket's record keys.
	bucket []string
	// join: the page, its Fact's binary form and the last line's pair;
	// verify: the page and its Fact.
	page   string
	fact   []byte
	last   string
	weak   bool // the page was kept on weak evidence
	shared int  // the bands the last line's pair shares
	fb     *Fact
}

// begin starts a group with its first line.
func (r *Rounds) begin(l Line, emit func(Line) error) error {
	g := &r.g
	switch l.Key[0] {
	case tagExact:
		g.lead, g.gone, g.stayed, g.cond, g.leadKept = nil, nil, nil, nil, false
		return r.lead(l, emit)
	case tagID:
		g.seen = 1
	case tagSite:
		g.d, g.keys = New(r.opts), map[uint32]string{}
		return r.siteLine(l, emit)
	case tagBand:
		g.bucket = append(g.bucket[:0], subjectOf(l.Key))
	case tagJoin, tagVerify:
		g.weak = l.Key[0] == tagJoin && strings.HasSuffix(l.Key, " 0-")
		if !strings.HasSuffix(l.Key, " 0") && !g.weak {
			return fmt.Errorf("dedup: candidates of %.60q without its page", l.Key)
		}
		g.page, g.last = Group(l.Key)[1:], ""
		g.fact = slices.Clone(l.Val)
		if l.Key[0] == tagVerify {
			f, err := decodeFact(l)
			if err != nil {
				return err
			}
			o := r.opts
			o.FrameFilter = false // the sites' frames are out of the Facts
			g.fb, g.d = f, New(o)
		}
	default:
		return fmt.Errorf("dedup: a line of no round (key %.40q)", l.Key)
	}
	return nil
}

// lead takes a line of the exact round while the group has no leading
// capture: the first capture of the payload leads; an input revisit before
// it names nothing replaced in the run.
func (r *Rounds) lead(l Line, emit func(Line) error) error {
	g := &r.g
	k := subjectOf(l.Key)
	if seedKey(k) {
		rec, err := index.DecodeRecord(l.Val)
		if err != nil {
			return err
		}
		g.lead = seedFact(rec)
		g.leadRef = ref{id: rec.ID, uri: rec.URI, date: rec.Date, digest: rec.Digest, computed: rec.Computed,
			sha256: rec.SHA256, entity: rec.Entity, bare: rec.Bare, seed: true}
		g.leadKey, g.leadVal = k, slices.Clone(l.Val)
		return nil
	}
	f, err := decodeFact(l)
	if err != nil || f.cls == clsRefers {
		return err
	}
	g.lead, g.leadRef = f, refOf(f)
	g.leadKey, g.leadVal = k, slices.Clone(l.Val)
	return nil
}

// line takes a later line of the group.
func (r *Rounds) line(l Line, emit func(Line) error) error {
	switch l.Key[0] {
	case tagExact:
		return r.exactLine(l, emit)
	case tagID:
		return r.idLine(l, emit)
	case tagSite:
		return r.siteLine(l, emit)
	case tagBand:
		return r.bandLine(l, emit)
	case tagJoin:
		return r.joinLine(l, emit)
	case tagVerify:
		return r.verifyLine(l, emit)
	}
	return fmt.Errorf("dedup: a line of no round (key %.40q)", l.Key)
}

// end ends the group: the exact round's leading page goes to its site.
func (r *Rounds) end(emit func(Line) error) error {
	g := &r.g
	if !g.open {
		return nil
	}
	g.open = false
	var err error
	switch g.name[0] {
	case tagExact:
		switch {
		case g.lead == nil:
		case g.lead.page.OK():
			err = emit(Line{string(tagSite) + groupOf(g.lead.page.Site) + " " + g.leadKey, g.leadVal})
		case r.Index && !seedKey(g.leadKey):
			err = r.kept(g.leadKey, g.lead, nil, emit)
		}
		g.lead = nil
	case tagSite, tagVerify:
		err = g.d.Close()
		g.d, g.keys, g.fb = nil, nil, nil
	}
	return err
}

// exactLine decides over a later capture of the group's payload: an exact
// revisit of its first capture, or kept on a digest conflict or when the
// first was captured later. Copies of a page wait for the resolve round:
// the page may be replaced.
func (r *Rounds) exactLine(l Line, emit func(Line) error) error {
	g := &r.g
	lead := g.lead
	if lead == nil {
		return r.lead(l, emit)
	}
	k := subjectOf(l.Key)
	if seedKey(k) {
		return nil // an index holds one record of a payload, the first
	}
	f, err := decodeFact(l)
	if err != nil {
		return err
	}
	if f.cls == clsRefers {
		return r.referLine(refersKey(k), f, emit)
	}
	conflict := lead.computed != f.computed || lead.sha256 != f.sha256 && lead.sha256 != [32]byte{}
	if !conflict && later(lead.date, f.date) && lead.page.OK() && !seedKey(g.leadKey) {
		// Captured before the leading page, read after it: kept whole if
		// that page stays (no revisit points forward in time); if it is
		// replaced, one machine, which then holds no capture of the
		// payload, judges this copy as a page, and finds what replaced
		// the leading page. The resolve round tells which.
		ck := capKey(f.uri, f.digest)
		delete(g.gone, ck)
		if g.cond == nil {
			g.cond = map[digestKey]string{}
		}
		g.cond[ck] = k
		dec := Decision{Offset: f.Offset, digest: f.digest}
		return emitEvent(event{kind: evEarlier, subject: k, kept: g.leadKey, dec: dec, uri: f.uri, date: f.date, id: f.id}, emit)
	}
	if conflict || later(lead.date, f.date) || g.leadRef.seed && lead.id == f.id && f.id != "" {
		// Kept: the capture stays (as the record itself, kept by an earlier
		// run over its file, does).
		r.stays(f)
		return nil
	}
	if k := capKey(f.uri, f.digest); !sameURI(lead.uri, f.uri) && !g.stayed[k] && g.cond[k] == "" {
		if g.gone == nil {
			g.gone = map[digestKey]struct{}{}
		}
		g.gone[k] = struct{}{}
	}
	dec := Decision{Offset: f.Offset, act: actExact, digest: lead.digest, kept: g.leadRef}
	// A copy of a page waits for the resolve round (the page may be
	// replaced); a copy of another payload is decided, and goes there for
	// the report.
	return emitEvent(event{kind: evFollow, subject: k, kept: r.g.leadKey, dec: dec, uri: f.uri, date: f.date, id: f.id}, emit)
}

// stays notes a later capture of the group's payload that is kept: it
// resolves the input revisits naming its URI, whether the captures of its
// URI replaced were read before it or after.
func (r *Rounds) stays(f *Fact) {
	g := &r.g
	k := capKey(f.uri, f.digest)
	delete(g.gone, k)
	if g.stayed == nil {
		g.stayed = map[digestKey]bool{}
	}
	g.stayed[k] = true
	if sameURI(g.lead.uri, f.uri) {
		g.leadKept = true
	}
}

// referLine takes an input revisit naming the group's payload (of record
// key k): broken if the capture it names was replaced across URIs, and,
// if it names the leading capture's URI, unless a later capture there
// stays, the resolve round tells whether the leading capture was replaced.
func (r *Rounds) referLine(k string, f *Fact, emit func(Line) error) error {
	g := &r.g
	// The event's Decision is no decision: it carries the record's offset
	// as stored and its digest, for the message.
	e := event{kind: evRefer, subject: k, dec: Decision{Offset: f.stored, digest: f.digest}, uri: f.uri, date: f.date, id: f.id}
	if ck := capKey(f.uri, f.digest); !mapHas(g.gone, ck) {
		switch {
		case g.cond[ck] != "" && !g.stayed[ck]:
			// A copy captured before the leading page resolves it unless
			// the resolve round replaces it.
			e.kept = g.cond[ck]
		case !sameURI(g.lead.uri, f.uri) || g.leadKept || seedKey(g.leadKey):
			return nil
		default:
			e.kept = g.leadKey
		}
	}
	return emitEvent(e, emit)
}

func mapHas(m map[digestKey]struct{}, k digestKey) bool {
	_, ok := m[k]
	return ok
}

// idLine writes the repeat count of a record after the first with its ID.
func (r *Rounds) idLine(l Line, emit func(Line) error) error {
	k := subjectOf(l.Key)
	off, ok := offsetOf(k)
	if !ok {
		return fmt.Errorf("dedup: %.60q is no record key", k)
	}
	v := binary.AppendVarint([]byte{ValRepeat}, off)
	v = binary.AppendUvarint(v, uint64(r.g.seen))
	r.g.seen++
	return emit(Line{fileOf(k), v})
}

// siteLine judges a site's leading page against the site's kept pages, as
// one machine judges it. A kept page goes on to the other sites' without its
// site's frame as it was when the page was judged, as one machine takes the
// frame out when the page is compared with the next ones (the frame as the
// round ends, larger, found pairs one machine does not: 3 and 2 added on the
// benchmark's two seeds).
func (r *Rounds) siteLine(l Line, emit func(Line) error) error {
	g := &r.g
	k := subjectOf(l.Key)
	ix := g.d.nearIdx()
	n := ix.Len()
	var f *Fact
	if seedKey(k) {
		// A page kept by an earlier run: kept here too, as one machine
		// seeded with the index keeps it.
		rec, err := index.DecodeRecord(l.Val)
		if err != nil {
			return err
		}
		if err := g.d.Seed(rec); err != nil {
			return err
		}
		f = seedFact(rec)
	} else {
		var err error
		if f, err = decodeFact(l); err != nil {
			return err
		}
		dec, err := g.d.Judge(fileOf(k), f)
		if err != nil {
			return err
		}
		switch {
		case dec.act == actNear:
			return emitEvent(event{kind: evSite, subject: k, kept: g.keys[dec.m.Ref], dec: dec, uri: f.uri, date: f.date, id: f.id}, emit)
		case dec.annotate && dec.m.Contain == near.NotContained:
			// --near=annotate: the page is kept with its annotation, and,
			// as one machine keeps it out of its index of pages, no later
			// page is compared with it; as a revisit, it is compared with
			// no other site's pages.
			if err := emitEvent(event{kind: evSite, subject: k, kept: g.keys[dec.m.Ref], dec: dec, uri: f.uri, date: f.date, id: f.id}, emit); err != nil {
				return err
			}
			if r.Index {
				return r.kept(k, f, nil, emit)
			}
			return nil
		case dec.annotate:
			// A containment: the page is kept and goes on as any kept
			// page; a near duplicate of another site's page, if the
			// verify round finds one, is annotated instead.
			if err := emitEvent(event{kind: evHolds, subject: k, kept: g.keys[dec.m.Ref], dec: dec, uri: f.uri, date: f.date, id: f.id}, emit); err != nil {
				return err
			}
		}
	}
	var page *near.Page
	if ix.Len() > n {
		g.keys[f.page.Ref] = k
		page = f.page
	}
	if r.Index && !seedKey(k) {
		if err := r.kept(k, f, page, emit); err != nil {
			return err
		}
	}
	// A page kept on weak evidence (page nil) is compared with other
	// sites' pages, as one machine compares it with every kept page, but,
	// as there, no later page is compared with it: its facts go on marked
	// so ("0-").
	mark := " 0"
	if page == nil {
		mark = " 0-"
	}
	kf, pg := *f, *f.page
	kf.page = &pg
	stripFrame(ix, &pg, r.opts.FrameFilter)
	pg.Ref = 0
	b, err := kf.AppendBinary(nil)
	if err != nil {
		return err
	}
	if err := emit(Line{string(tagJoin) + k + mark, b}); err != nil {
		return err
	}
	for _, band := range lshBands(pageKeys(&pg), lshRounds) {
		if err := emit(Line{fmt.Sprintf("%c%016x %s", tagBand, band, k), nil}); err != nil {
			return err
		}
	}
	return nil
}

// bandLine pairs a page of a bucket with the bucket's earlier pages: each
// is its candidate. A pair goes to the join round twice, keyed by its
// earlier page (whose Fact is sent to the later one) and by its later page
// (which is then verified). An index's page makes no pair as the later
// page: it is never replaced, and the pages before it in the bucket are the
// index's too (seed keys sort first), which one machine never compares with
// each other. Its verify group would have no page line (joinLine), and the
// pairs among an index's pages would grow with the square of a bucket's.
func (r *Rounds) bandLine(l Line, emit func(Line) error) error {
	g := &r.g
	b := subjectOf(l.Key)
	if b == g.bucket[len(g.bucket)-1] {
		return nil
	}
	if seedKey(b) {
		g.bucket = append(g.bucket, b)
		return nil
	}
	for _, a := range g.bucket {
		if err := emit(Line{string(tagJoin) + a + " 1" + b, nil}); err != nil {
			return err
		}
	}
	g.bucket = append(g.bucket, b)
	return emit(Line{string(tagJoin) + b + " 2", nil})
}

// joinLine sends the group's page's Fact to a later page it is a candidate
// of (a line "1" and the later page), or to its own verification (a line
// "2": the page is the later page of a pair).
func (r *Rounds) joinLine(l Line, emit func(Line) error) error {
	g := &r.g
	_, rest, _ := strings.Cut(l.Key, " ")
	if rest == g.last {
		g.shared++ // the same pair, from another band
	} else {
		g.last, g.shared = rest, 1
	}
	switch {
	case rest == "2":
		if g.shared > 1 {
			return nil
		}
		return emit(Line{string(tagVerify) + g.page + " 0", g.fact})
	case strings.HasPrefix(rest, "1"):
		if g.weak || g.shared != lshMinShared {
			return nil // kept on weak evidence; or too few bands shared, or sent
		}
		return emit(Line{string(tagVerify) + rest[1:] + " 1" + g.page, g.fact})
	}
	return fmt.Errorf("dedup: %.60q is no join line", l.Key)
}

// verifyLine judges the group's page against one of its candidates, an
// earlier page of another site, by the exact matcher, the sites' frames
// already taken out: a candidate it would replace the page with goes to
// the resolve round.
func (r *Rounds) verifyLine(l Line, emit func(Line) error) error {
	g := &r.g
	_, rest, _ := strings.Cut(l.Key, " ")
	if !strings.HasPrefix(rest, "1") {
		return fmt.Errorf("dedup: %.60q is no candidate line", l.Key)
	}
	a := rest[1:]
	fa, err := decodeFact(l)
	if err != nil {
		return err
	}
	fb := g.fb
	if fa.page == nil || fb.page == nil || fa.page.Site == fb.page.Site {
		return nil // the site round judged these
	}
	// The candidate alone in the index: the page is compared with it as one
	// machine would compare it, were it the most similar kept page.
	ix := g.d.nearIdx()
	n := ix.Len()
	ref, err := g.d.exact.add(refOf(fa))
	if err != nil {
		return err
	}
	fa.page.Ref = ref
	ix.Add(fa.page)
	m, found, err := g.d.nearMatch(fb, fb.date)
	ix.Withdraw(n)
	annotate := r.opts.Near == NearAnnotate
	if err != nil || !found || !m.Replace() && !annotate {
		return err
	}
	dec := Decision{Offset: fb.Offset, act: actNear, digest: fb.digest, m: m}
	if annotate {
		// Every near duplicate and containment is annotated, as one
		// machine annotates them.
		dec.act, dec.annotate = actPass, true
	}
	return emitEvent(event{kind: evCross, subject: g.page, kept: a, dec: dec, uri: fb.uri, date: fb.date, id: fb.id}, emit)
}
