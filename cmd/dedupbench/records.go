package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/warcdedup/warcdedup/warcio"
)

// records writes a WARC of n small image responses, each with a payload of
// its own: what a crawl holds besides its pages, many records of a few
// hundred bytes. It measures what grows with the number of records rather
// than with bytes or pages (docs/performance.md: the --cdxj index's memory).
func records(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dedupbench records", flag.ContinueOnError)
	fl.SetOutput(stderr)
	n := fl.Int("n", 800_000, "number of responses")
	out := fl.String("out", "records.warc.gz", "the WARC file to write (gzip, a member a record, when its name ends in .gz)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 0 || *n < 1 {
		fmt.Fprintf(stderr, "dedupbench records: want -n 1 or more and no arguments\n")
		return 2
	}
	if err := writeRecords(*out, *n); err != nil {
		fmt.Fprintf(stderr, "dedupbench records: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d responses\n", *out, *n)
	return 0
}

// writeRecords writes the WARC of records to path, through a temporary file
// renamed when complete.
func writeRecords(path string, n int) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := warcio.NewWriter(bw, strings.HasSuffix(path, ".gz"))
	payload := make([]byte, 4+8*8)
	copy(payload, "\x89PNG")
	for i := range n {
		for j := range 8 {
			binary.BigEndian.PutUint64(payload[4+8*j:], uint64(i))
		}
		block := append(fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n", len(payload)), payload...)
		h := &warcio.Header{Version: "WARC/1.0"}
		h.Add("WARC-Type", "response")
		h.Add("WARC-Record-ID", fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012x>", i+1))
		h.Add("WARC-Date", fmt.Sprintf("2026-01-%02dT10:%02d:%02dZ", 1+i/86400%28, i/60%60, i%60))
		h.Add("WARC-Target-URI", fmt.Sprintf("http://img%d.example.com/images/%d/picture-%d.png", i%500, i/1000, i))
		h.Add("Content-Type", "application/http; msgtype=response")
		h.Add("WARC-Payload-Digest", warcio.SHA1Digest(payload))
		if err := w.WriteRecord(h, block); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
