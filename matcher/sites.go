package matcher

import "github.com/warcdedup/warcdedup/features"

// Sites routes same-site pages to one SpotSigs index per site key, created on
// first use. Henzinger (SIGIR 2006, Sec. 3.5 and 4) found that pages of one
// site need their own, more careful comparison; keeping an index per site also
// keeps each index small, so a query only meets pages of its own site.
//
// An index holding one page costs its signatures (12 bytes each) plus about
// 1.5 KB for a page of 150 signatures (hash table of 4-byte slots at most 3/4
// full, the index and map entry), measured by TestSitesSmall.
type Sites struct {
	tau float64
	m   map[string]*SpotSigs
}

// NewSites returns an empty router for threshold tau (see NewSpotSigs).
func NewSites(tau float64) (*Sites, error) {
	if _, err := parseTau(tau); err != nil {
		return nil, err
	}
	return &Sites{tau: tau, m: map[string]*SpotSigs{}}, nil
}

// Index returns the index of site, creating it if needed.
func (s *Sites) Index(site string) *SpotSigs {
	ix := s.m[site]
	if ix == nil {
		ix, _ = NewSpotSigs(s.tau) // tau was checked by NewSites
		s.m[site] = ix
	}
	return ix
}

// Observe is SpotSigs.Observe on site's index. It does not create an index for
// a page that has no signatures.
func (s *Sites) Observe(site string, id uint32, bag features.Bag, g Guess) (Candidate, bool) {
	if len(bag) == 0 {
		return Candidate{}, false
	}
	return s.Index(site).Observe(id, bag, g)
}

// Len is the number of sites with an index.
func (s *Sites) Len() int { return len(s.m) }

// Comparisons is the total of SpotSigs.Comparisons over all sites.
func (s *Sites) Comparisons() uint64 {
	var n uint64
	for _, ix := range s.m {
		n += ix.comparisons
	}
	return n
}
