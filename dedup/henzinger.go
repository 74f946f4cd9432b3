package dedup

import (
	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/matcher"
)

// Henzinger's combined algorithm (SIGIR 2006, Sec. 4): a pair is a near duplicate
// if it is B-similar (at least 2 of the 6 Broder supershingles agree) and its
// 384-bit simhashes agree in at least 355 bits (C-similarity). Henzinger reports
// precision 0.79 at 79% of B's recall for it. It is offered as an option
// (--method=henzinger), for comparison with the SpotSigs routing and for crawls
// where the frame is part of what a curator calls a duplicate.
const (
	henzingerC       = 355 // agreeing bits of 384
	henzingerMinSame = 2   // agreeing supershingles of 6
)

// henzingerIndex finds candidates by simhash (a Hamming radius of 384-355 bits,
// with the pigeonhole guarantee of matcher.Simhash384) and confirms them by the
// supershingles.
type henzingerIndex struct {
	sim    *matcher.Simhash384
	shingl [][6]uint64
	docs   []nearDoc
	hits   []matcher.Hit
	sites  siteNames
}

func (d *Deduper) henzinger() *henzingerIndex {
	if d.hz == nil {
		sim, err := matcher.NewSimhash384(384 - henzingerC)
		if err != nil {
			panic(err)
		}
		d.hz = &henzingerIndex{sim: sim, sites: siteNames{}}
	}
	return d.hz
}

func agreeingShingles(a, b [6]uint64) int {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// match returns the kept page the item duplicates by B+C: the candidate with
// the most agreeing simhash bits, ties to the earliest.
func (x *henzingerIndex) match(it *item) (match, bool) {
	x.hits = x.sim.Query(it.an.sim384, x.hits[:0])
	best := -1
	for i, h := range x.hits {
		if x.docs[h.ID].gone {
			continue
		}
		if agreeingShingles(x.shingl[h.ID], it.an.shingles) < henzingerMinSame {
			continue
		}
		if best < 0 || h.Dist < x.hits[best].Dist || (h.Dist == x.hits[best].Dist && h.ID < x.hits[best].ID) {
			best = i
		}
	}
	if best < 0 {
		return match{}, false
	}
	h := x.hits[best]
	kd := &x.docs[h.ID]
	rel := "cross-site"
	if qs, ok := x.sites[it.an.site]; ok && kd.site == qs {
		rel = "same-site"
	}
	return match{keptNum: kd.ref, method: "henzinger-b+c",
		similarity: float64(384-h.Dist) / 384, relation: rel}, true
}

// withdraw marks the pages from number from on as gone: they are skipped
// among the hits (the simhash index cannot remove them).
func (x *henzingerIndex) withdraw(from int) {
	for i := from; i < len(x.docs); i++ {
		x.docs[i].gone = true
	}
}

func (x *henzingerIndex) add(it *item, ref uint32) {
	id := uint32(len(x.docs))
	x.docs = append(x.docs, nearDoc{ref: ref, site: x.sites.num(it.an.site)})
	x.shingl = append(x.shingl, it.an.shingles)
	x.sim.Add(id, it.an.sim384)
}

// henzingerFeatures is the extractor configuration the combined algorithm needs.
func henzingerFeatures() features.Config {
	cfg := features.DefaultConfig()
	cfg.Families = features.FamShingles | features.FamSimhash
	return cfg
}
