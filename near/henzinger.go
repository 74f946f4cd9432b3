package near

import "github.com/warcdedup/warcdedup/matcher"

// Henzinger's combined algorithm (SIGIR 2006, Sec. 4): a pair is a near duplicate
// if it is B-similar (at least 2 of the 6 Broder supershingles agree) and its
// 384-bit simhashes agree in at least 355 bits (C-similarity). Henzinger reports
// precision 0.79 at 79% of B's recall for it. It is offered as an option
// (MethodHenzinger), for comparison with the SpotSigs routing and for crawls
// where the frame is part of what a curator calls a duplicate.
const (
	henzingerC       = 355 // agreeing bits of 384
	henzingerMinSame = 2   // agreeing supershingles of 6
)

// henzinger finds candidates by simhash (a Hamming radius of 384-355 bits,
// with the pigeonhole guarantee of matcher.Simhash384) and confirms them by the
// supershingles. Its pages are the Index's docs.
type henzinger struct {
	sim    *matcher.Simhash384
	shingl [][6]uint64
	sims   [][6]uint64 // the fingerprints, for Index.Page
	hits   []matcher.Hit
}

func newHenzinger() (*henzinger, error) {
	sim, err := matcher.NewSimhash384(384 - henzingerC)
	if err != nil {
		return nil, err
	}
	return &henzinger{sim: sim}, nil
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

// hzMatch returns the kept page p duplicates by B+C: the candidate with the
// most agreeing simhash bits, ties to the earliest.
func (x *Index) hzMatch(p *Page) (Match, bool) {
	h := x.hz
	h.hits = h.sim.Query(p.Sim384, h.hits[:0])
	best := -1
	for i, hit := range h.hits {
		if x.docs[hit.ID].gone {
			continue
		}
		if agreeingShingles(h.shingl[hit.ID], p.Shingles) < henzingerMinSame {
			continue
		}
		if best < 0 || hit.Dist < h.hits[best].Dist || (hit.Dist == h.hits[best].Dist && hit.ID < h.hits[best].ID) {
			best = i
		}
	}
	if best < 0 {
		return Match{}, false
	}
	hit := h.hits[best]
	kd := &x.docs[hit.ID]
	rel := CrossSite
	if qs, ok := x.sites[p.Site]; ok && kd.site == qs {
		rel = SameSite
	}
	return Match{Ref: kd.ref, Method: "henzinger-b+c", Similarity: float64(384-hit.Dist) / 384, Relation: rel}, true
}

func (x *Index) hzAdd(p *Page) {
	id := uint32(len(x.docs))
	x.docs = append(x.docs, doc{ref: p.Ref, site: x.siteNum(p.Site), url: p.URL, num: [numFam]uint32{noNum, noNum, noNum, noNum}})
	x.hz.shingl = append(x.hz.shingl, p.Shingles)
	x.hz.sims = append(x.hz.sims, p.Sim384)
	x.hz.sim.Add(id, p.Sim384)
}
