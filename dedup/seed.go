package dedup

import (
	"fmt"
	"time"

	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/near"
)

// RecordsDone is how many records the Deduper's Runs have decided so far;
// it may be read while a Run goes on (a progress display).
func (d *Deduper) RecordsDone() int64 { return d.recordsDone.Load() }

// SetOutput names the output file the next Run writes to, for the kept
// records it hands on to an index (Kept) and in its errors (WriteError).
func (d *Deduper) SetOutput(name string) { d.outName = name }

// Seed adds a record kept by an earlier run, read from an index: a later
// record with its payload, or a near duplicate of its page, becomes a
// revisit of it. Seeds come before the first Run, and a Run's withdrawal
// does not take them back.
func (d *Deduper) Seed(r *index.Record) error {
	if d.ran {
		return fmt.Errorf("dedup: Seed after Run")
	}
	d.seeded = true
	d.nameHeld(r)
	if r.Gone {
		d.gone.seed(r.GoneKey)
		return nil
	}
	if r.Stays {
		d.gone.seedStays(r.URI, r.Digest)
		return nil
	}
	d.gone.kept(r.URI, r.Digest)
	if d.exact.known(r.Digest) {
		// A payload seeded already (an index, then a CDX listing another
		// capture of it): the first stays its kept record, the one an
		// index names and an output written over must keep.
		d.Stats.Seeded++
		return nil
	}
	n, err := d.exact.add(ref{id: r.ID, uri: r.URI, date: r.Date, digest: r.Digest, computed: r.Computed,
		sha256: r.SHA256, file: r.File, offset: r.Offset, bare: r.Bare, entity: r.Entity, seed: true})
	if err != nil {
		return err
	}
	d.seedRefs = n + 1
	if r.Page.OK() {
		r.Page.Ref = n
		d.nearIdx().Add(r.Page)
		d.seedPages = d.near.Len()
	}
	d.Stats.Seeded++
	return nil
}

// Kept calls fn for every record this Deduper's Runs kept and did not
// withdraw, in the order they were kept, with its near-duplicate page if it
// has one, then for each capture they kept whole beside its payload's kept
// record (index.Record.Stays), and then for each capture they replaced with
// no response of its URI and payload digest left (index.Record.Gone): what
// an index takes from the run. It is called after the last
// Run and before Close, which releases the kept records' store.
func (d *Deduper) Kept(fn func(*index.Record) error) error {
	pages := map[uint32]int{}
	if d.near != nil {
		for i := d.seedPages; i < d.near.Len(); i++ {
			if p, ok := d.near.Page(i); ok {
				pages[p.Ref] = i
			}
		}
	}
	for n := uint32(d.seedRefs); int(n) < d.exact.len(); n++ {
		r, err := d.exact.get(n)
		if err != nil {
			return err
		}
		if !d.exact.live(n, r) {
			continue
		}
		rec := &index.Record{ID: r.id, URI: r.uri, Date: r.date, Digest: r.digest, Computed: r.computed,
			SHA256: r.sha256, File: r.file, Offset: r.offset, Entity: r.entity}
		if i, ok := pages[n]; ok {
			rec.Page, _ = d.near.Page(i)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	// The captures kept whole beside their payload's kept record, then
	// those replaced with none like them left, after the kept records
	// (which a later load reads first, as they were kept first).
	for i := range d.gone.whole {
		if err := fn(&d.gone.whole[i]); err != nil {
			return err
		}
	}
	for _, k := range d.gone.still() {
		if err := fn(&index.Record{Gone: true, GoneKey: k}); err != nil {
			return err
		}
	}
	return nil
}

// later says whether WARC-Date a is after b. A capture is never made a
// revisit of a later one: the earliest capture is the one an archive keeps
// (Heritrix's DeDuplicator and wget --warc-dedup point revisits back in
// time). Dates that do not parse are not compared.
func later(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && ta.After(tb)
}

// SeedFrom seeds the Deduper with every record load yields, as Seed does
// one: load is an index's Load. Reading, decoding and storing the records
// runs on a goroutine of its own while their pages are added to the
// near-duplicate index here, in the same order: on two cores the index,
// which takes most of a load's time, does not wait for the rest.
func (d *Deduper) SeedFrom(load func(fn func(*index.Record) error) error) error {
	if d.ran {
		return fmt.Errorf("dedup: Seed after Run")
	}
	d.seeded = true
	x := d.nearIdx()
	pages := make(chan []*near.Page, 16)
	errc := make(chan error, 1)
	go func() {
		defer close(pages)
		var cur []*near.Page
		err := load(func(r *index.Record) error {
			d.nameHeld(r)
			if r.Gone {
				// A capture an earlier run replaced; a later kept record of
				// its URI and digest drops it again.
				d.gone.seed(r.GoneKey)
				return nil
			}
			if r.Stays {
				// A capture an earlier run kept whole: it resolves the
				// revisits of its URI and payload, whatever is replaced.
				d.gone.seedStays(r.URI, r.Digest)
				return nil
			}
			d.gone.kept(r.URI, r.Digest)
			if d.exact.known(r.Digest) {
				d.Stats.Seeded++ // the first seed of a payload stays (Seed)
				return nil
			}
			n, err := d.exact.add(ref{id: r.ID, uri: r.URI, date: r.Date, digest: r.Digest, computed: r.Computed,
				sha256: r.SHA256, file: r.File, offset: r.Offset, bare: r.Bare, entity: r.Entity, seed: true})
			if err != nil {
				return err
			}
			d.seedRefs = n + 1
			d.Stats.Seeded++
			if r.Page.OK() {
				r.Page.Ref = n
				if cur = append(cur, r.Page); len(cur) == 512 {
					pages <- cur
					cur = nil
				}
			}
			return nil
		})
		if len(cur) > 0 {
			pages <- cur
		}
		errc <- err
	}()
	for b := range pages {
		for _, p := range b {
			x.Add(p)
		}
	}
	d.seedPages = x.Len()
	return <-errc
}
