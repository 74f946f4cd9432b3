package dedup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

// corpusPages lists up to n pages of the corpus with their URLs.
func corpusPages(tb testing.TB, n int) []page {
	var ps []page
	for _, ds := range []string{"l3s-gn1", "dragnet", "cleaneval-final", "cx-bbc", "cx-163", "chinese-wced", "cleanportaleval", "scrapinghub-aeb"} {
		f, err := os.Open(testshared.Path(tb, "corpus/"+ds+"/manifest.jsonl"))
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && len(ps) < n {
			var m struct{ ID, URL, HTML string }
			json.Unmarshal(sc.Bytes(), &m)
			if m.URL == "" {
				m.URL = "http://" + ds + ".example/" + m.ID
			}
			ps = append(ps, page{id: ds + "-" + m.ID, url: m.URL, html: ds + "/" + m.HTML})
		}
		f.Close()
	}
	return ps
}

// BenchmarkRun is the whole pipeline on real pages (one WARC of 1,500 corpus
// pages, no exact duplicates among them), per worker count: MB/s of WARC input
// and pages/s. Workers is a CPU budget, as in the CLI (--workers sets
// GOMAXPROCS): workers=1 is the whole pipeline on one CPU.
func BenchmarkRun(b *testing.B) {
	ps := corpusPages(b, 1500)
	in := pagesWARCb(b, ps)
	for _, workers := range []int{1, 2} {
		for _, near := range []NearMode{NearOff, NearRevisit} {
			b.Run(fmt.Sprintf("workers=%d/near=%v", workers, near != NearOff), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					opts := DefaultOptions()
					opts.Workers, opts.Near = workers, near
					d := New(opts)
					if err := d.Run(bytes.NewReader(in), "bench", io.Discard, false); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(ps))*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			})
		}
	}
}
