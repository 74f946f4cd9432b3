package dedup

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/warcio"
)

// Held is what an existing output holds that earlier runs' seeds (an
// index, a CDX) may name as kept: a run that writes over the file (--force)
// must keep each such record again, or later runs' revisits of it would
// name a record in no file. A record is named by its WARC-Record-ID and
// payload digest (an index's records, a CDX line with an ID), or by its
// URI, date to the second and payload digest (a CDX line without one, as
// pywb's and cdxj-indexer's lines are). Every seed counts, not only the
// first of its payload: the index's captures kept whole beside their
// payload's kept record (index.Record.Stays) and later CDX lines of one
// payload name records too. IDs a file repeats are told apart by digest.
type Held struct {
	name string
	recs []heldRecord
	keys map[heldKey][]int32 // -> records of recs with the key
	cur  bool                // the current Run writes over it (BeginOutput)
}

type heldRecord struct {
	id, uri string
	// byID, byCapture: a seed names it by ID, one without an ID by its
	// capture; keptID, keptCapture: the Run wrote whole a record of its
	// ID and payload, of its capture. A record named by ID is written
	// again only as itself; one named by capture also as another record
	// of that URI, second and payload, which serves the seed's revisits
	// as well.
	byID, byCapture, keptID, keptCapture bool
}

// heldMark is what a key marks on the records that have it.
type heldMark uint8

const (
	namedByID heldMark = iota
	namedByCapture
	writtenByID
	writtenByCapture
)

// heldKey is one of a record's two names (see Held).
type heldKey struct {
	name   string
	digest digestKey
}

func heldByID(id, digest string) heldKey {
	return heldKey{"i" + id, keyOf(foldDigest(digest))}
}

func heldByCapture(uri, date, digest string) heldKey {
	return heldKey{"c" + uriKey(uri) + " " + secondOf(date), keyOf(foldDigest(digest))}
}

// secondOf spells a WARC-Date to the second, as a CDX timestamp has it.
// A date that is not RFC 3339 (no zone, minutes only, a day) is its first
// 14 digits, padded as index.ReadCDX pads a shorter timestamp, as a CDX
// indexer makes a timestamp of it.
func secondOf(date string) string {
	if t, err := time.Parse(time.RFC3339Nano, date); err == nil {
		return t.UTC().Format("20060102150405")
	}
	var b []byte
	for i := 0; i < len(date) && len(b) < 14; i++ {
		if c := date[i]; '0' <= c && c <= '9' {
			b = append(b, c)
		}
	}
	if len(b) < 4 {
		return date
	}
	return string(b) + "00000101000000"[len(b):]
}

// HoldOutput reads an existing output file that the runs to come will
// write over, before the Deduper is seeded, and returns what it holds for
// the seeds to name (Held). A file that does not read as WARC to its end
// returns the error: what follows may be records the seeds name, so it
// must not be written over.
func (d *Deduper) HoldOutput(r io.Reader, name string) (*Held, error) {
	if d.ran || d.seeded {
		return nil, fmt.Errorf("dedup: HoldOutput after Seed or Run")
	}
	h := &Held{name: name, keys: map[heldKey][]int32{}}
	rd := warcio.NewReader(r, name)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if rec.Kind != warcio.KindWARC || !strings.EqualFold(rec.Type(), "response") {
			continue
		}
		dg := rec.Header.Get("WARC-Payload-Digest")
		if dg == "" {
			// Kept under the digest computed of its payload (Fact.digest).
			pay, err := warcio.ReadPayload(rd, nil)
			if err != nil {
				continue
			}
			dg = pay.Digest
		}
		id, uri := rec.ID(), rec.Header.Get("WARC-Target-URI")
		n := int32(len(h.recs))
		h.recs = append(h.recs, heldRecord{id: id, uri: uri})
		h.add(heldByID(id, dg), n)
		h.add(heldByCapture(uri, rec.Header.Get("WARC-Date"), dg), n)
	}
	if len(h.recs) > 0 {
		d.held = append(d.held, h)
	}
	return h, nil
}

func (h *Held) add(k heldKey, n int32) { h.keys[k] = append(h.keys[k], n) }

// mark marks the records with key k.
func (h *Held) mark(k heldKey, m heldMark) {
	for _, n := range h.keys[k] {
		r := &h.recs[n]
		switch m {
		case namedByID:
			r.byID = true
		case namedByCapture:
			r.byCapture = true
		case writtenByID:
			r.keptID = true
		case writtenByCapture:
			r.keptCapture = true
		}
	}
}

// nameHeld marks the held records a seed names.
func (d *Deduper) nameHeld(r *index.Record) {
	if len(d.held) == 0 || r.Gone {
		return
	}
	k, m := heldByID(r.ID, r.Digest), namedByID
	if r.ID == "" {
		k, m = heldByCapture(r.URI, r.Date, r.Digest), namedByCapture
	}
	for _, h := range d.held {
		h.mark(k, m)
	}
}

// keptHeld marks the records of the output being written over that the
// current Run writes whole again as the response of f, whatever its class
// (a record too small to deduplicate is written whole all the same).
func (d *Deduper) keptHeld(f *Fact) {
	if f.kind != "response" || f.heldDigest == "" {
		return
	}
	for _, h := range d.held {
		if h.cur {
			h.mark(heldByID(f.id, f.heldDigest), writtenByID)
			h.mark(heldByCapture(f.heldURI, f.heldDate, f.heldDigest), writtenByCapture)
		}
	}
}

// BeginOutput says which output the next Run writes over (nil: one that
// held nothing): the records of it it writes whole again are counted
// (Held.Lost).
func (d *Deduper) BeginOutput(h *Held) {
	for _, x := range d.held {
		x.cur = x == h
	}
}

// Lost returns how many of the held records the seeds name, how many of
// those the Runs since BeginOutput did not write whole again (the records
// a run writing over the file would leave in no file), and the URI and ID
// of the first few of them.
func (h *Held) Lost() (named, lost int, first []string) {
	for _, r := range h.recs {
		if !r.byID && !r.byCapture {
			continue
		}
		named++
		if r.byID && !r.keptID || r.byCapture && !r.keptCapture && !r.keptID {
			if lost++; lost <= 3 {
				first = append(first, r.uri+" "+r.id)
			}
		}
	}
	return named, lost, first
}
