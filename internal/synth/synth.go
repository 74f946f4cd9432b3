// Package synth makes synthetic kept records for measuring the index at
// scale: pages shaped as real ones, 40 to 160 spot signatures (median near
// the 78 measured on 1,439 real pages, matcher's package doc) drawn from a
// Zipf vocabulary of 2^24 folded signatures, over 10,000 sites.
package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/near"
)

// Records yields n kept records with near-duplicate pages, the same for a
// seed.
func Records(n int, seed uint64) func(yield func(*index.Record) bool) {
	return func(yield func(*index.Record) bool) {
		r := rand.New(rand.NewPCG(seed, 1))
		z := rand.NewZipf(r, 1.1, 4, 1<<24-1)
		keys := make([]uint64, 0, 200)
		for i := range n {
			keys = keys[:0]
			for range 40 + r.IntN(121) {
				keys = append(keys, z.Uint64()*2654435761%(1<<32))
			}
			site := fmt.Sprintf("site%05d.example", r.IntN(10000))
			uri := fmt.Sprintf("http://%s/story/%d", site, i)
			digest := fmt.Sprintf("sha1:%032X", i)
			rec := &index.Record{ID: fmt.Sprintf("<urn:uuid:%08x-0000-5000-8000-%012x>", i, i), URI: uri,
				Date: "2025-06-01T12:00:00Z", Digest: digest, Computed: digest, File: "crawl-00001.warc.gz", Offset: int64(i) * 20000,
				Entity: "Content-Type: text/html; charset=utf-8\r\nContent-Length: 48213\r\n",
				Page:   &near.Page{Site: site, URL: near.URLKey(uri), Spots: features.BagOf(keys)}}
			if !yield(rec) {
				return
			}
		}
	}
}
