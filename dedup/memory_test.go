package dedup

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// bigRecordsFile writes a WARC with two identical 48 MiB responses to a file.
func bigRecordsFile(t *testing.T) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "big-*.warc")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	body := bytes.Repeat([]byte("0123456789abcdef"), 3<<20) // 48 MiB
	w := warcio.NewWriter(f, false)
	for i, uri := range []string{"http://a.example/video", "http://b.example/video"} {
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Record-ID", Value: "<urn:uuid:big-" + strings.Repeat("x", i+1) + ">"},
			{Name: "WARC-Date", Value: "2026-01-01T00:00:00Z"},
			{Name: "WARC-Target-URI", Value: uri},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		block := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n"), body...)
		if err := w.WriteRecord(h, block); err != nil {
			t.Fatal(err)
		}
	}
	return f.Name()
}

// Memory is bounded by the index, not by the input: passing a 96 MiB file with
// 48 MiB records through allocates a small fraction of it (records wait in
// temporary files, payloads are digested as they stream).
func TestLargeRecordsBoundedMemory(t *testing.T) {
	path := bigRecordsFile(t)
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	opts := DefaultOptions()
	opts.TempDir = t.TempDir()
	d := New(opts)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := d.Run(in, path, io.Discard, false); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MiB to pass %.0f MiB", float64(alloc)/(1<<20), float64(d.Stats.BytesIn)/(1<<20))
	if alloc > 24<<20 {
		t.Errorf("allocated %d bytes for a %d-byte input: records are held in memory", alloc, d.Stats.BytesIn)
	}
	if d.Stats.Revisits != 1 {
		t.Errorf("the second copy was not made a revisit: %+v", d.Stats)
	}
	if left, _ := os.ReadDir(opts.TempDir); len(left) != 0 {
		t.Errorf("%d spool files left behind", len(left))
	}
}
