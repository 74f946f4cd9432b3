package dedup

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/warcdedup/warcdedup/warcio"
)

// Pathological pages cost bounded time and memory and pass through: a 10 MB page
// on one line, markup nested 200,000 deep, and a gzip bomb (1 GB of zeros in
// about 1 MB) served with Content-Encoding: gzip.
func TestPathologicalPages(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for range 1024 {
		zw.Write(zero)
	}
	zw.Close()
	pages := []struct {
		name, headers string
		body          []byte
	}{
		{"one line", "Content-Type: text/html\r\n", []byte("<html><body><p>" + strings.Repeat("word ", 2<<20) + "</p></body></html>")},
		{"deep nesting", "Content-Type: text/html\r\n", []byte("<html><body>" + strings.Repeat("<div>", 200000) + "the end" + strings.Repeat("</div>", 200000))},
		{"gzip bomb", "Content-Type: text/html\r\nContent-Encoding: gzip\r\n", bomb.Bytes()},
	}
	for _, p := range pages {
		var in bytes.Buffer
		w := warcio.NewWriter(&in, false)
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Record-ID", Value: "<urn:uuid:p>"},
			{Name: "WARC-Date", Value: "2026-01-01T00:00:00Z"}, {Name: "WARC-Target-URI", Value: "http://a.example/"},
			{Name: "Content-Type", Value: "application/http; msgtype=response"}}}
		w.WriteRecord(h, append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\n%s\r\n", p.headers)), p.body...))
		out := bytes.NewBuffer(make([]byte, 0, in.Len()+4096))
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		d := New(DefaultOptions())
		if err := d.Run(bytes.NewReader(in.Bytes()), p.name, out, false); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		el := time.Since(start)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes in %v, %.1f MiB allocated", p.name, in.Len(), el, float64(alloc)/(1<<20))
		if !bytes.Equal(out.Bytes(), in.Bytes()) {
			t.Errorf("%s: not passed through unchanged", p.name)
		}
		// Bounds: seconds on a loaded 2-core machine; memory set by the 4 MiB
		// analysis cap (maxAnalysed), not by the page (the extractor's
		// transient allocation on 4 MiB of one-word text is the largest part,
		// measured 126 MiB).
		if el > 10*time.Second {
			t.Errorf("%s: took %v", p.name, el)
		}
		if alloc > 256<<20 {
			t.Errorf("%s: allocated %d bytes", p.name, alloc)
		}
	}
}
