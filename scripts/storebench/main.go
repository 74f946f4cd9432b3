// Command storebench compares the index's segment files with embedded
// stores (go.etcd.io/bbolt, cockroachdb/pebble) on what a run does with an
// index: write a run's kept records once, and load them all, in order, at
// the start of the next run. It is a module of its own so that the tool
// does not depend on the stores it was compared with.
//
//	cd scripts/storebench && go run . -n 1000000
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble"
	"go.etcd.io/bbolt"

	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/internal/synth"
)

// records makes n kept records shaped as index/scale_test.go's.
func records(n int) []*index.Record {
	var out []*index.Record
	for r := range synth.Records(n, 1) {
		out = append(out, r)
	}
	return out
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func main() {
	n := flag.Int("n", 100000, "records")
	flag.Parse()
	recs := records(*n)
	// The entries as the segment writes them, for the stores' values.
	vals := make([][]byte, len(recs))
	for i, r := range recs {
		b, err := index.AppendRecord(nil, r)
		if err != nil {
			panic(err)
		}
		vals[i] = b
	}
	root, _ := os.MkdirTemp("", "storebench")
	defer os.RemoveAll(root)
	report := func(name string, write, load time.Duration, dir string, got int) {
		fmt.Printf("%-9s %9d records  write %6.2f s  load %6.2f s (%8.0f records/s)  %6.0f bytes a record on disk\n",
			name, got, write.Seconds(), load.Seconds(), float64(got)/load.Seconds(), float64(dirSize(dir))/float64(*n))
	}

	// Segments.
	dir := filepath.Join(root, "segments")
	t0 := time.Now()
	ix, err := index.Open(dir, "bench")
	must(err)
	w, err := ix.NewWriter(nil)
	must(err)
	for _, r := range recs {
		must(w.Add(r))
	}
	must(w.Commit())
	ix.Close()
	write := time.Since(t0)
	t0 = time.Now()
	ix, err = index.Open(dir, "bench")
	must(err)
	got := 0
	must(ix.Load(func(*index.Record) error { got++; return nil }))
	ix.Close()
	report("segments", write, time.Since(t0), dir, got)

	// bbolt: one bucket, keys in run order, a transaction per 10,000.
	dir = filepath.Join(root, "bbolt")
	os.MkdirAll(dir, 0o755)
	t0 = time.Now()
	db, err := bbolt.Open(filepath.Join(dir, "index.db"), 0o644, nil)
	must(err)
	for i := 0; i < len(vals); i += 10000 {
		must(db.Update(func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("records"))
			if err != nil {
				return err
			}
			b.FillPercent = 1
			for j := i; j < min(i+10000, len(vals)); j++ {
				var k [8]byte
				binary.BigEndian.PutUint64(k[:], uint64(j))
				if err := b.Put(k[:], vals[j]); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	must(db.Close())
	write = time.Since(t0)
	t0 = time.Now()
	db, err = bbolt.Open(filepath.Join(dir, "index.db"), 0o644, &bbolt.Options{ReadOnly: true})
	must(err)
	got = 0
	must(db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("records")).ForEach(func(_, v []byte) error {
			if _, err := index.DecodeRecord(v); err != nil {
				return err
			}
			got++
			return nil
		})
	}))
	db.Close()
	report("bbolt", write, time.Since(t0), dir, got)

	// pebble: keys in run order, a synced batch per 10,000.
	dir = filepath.Join(root, "pebble")
	t0 = time.Now()
	pdb, err := pebble.Open(dir, &pebble.Options{})
	must(err)
	for i := 0; i < len(vals); i += 10000 {
		bt := pdb.NewBatch()
		for j := i; j < min(i+10000, len(vals)); j++ {
			var k [8]byte
			binary.BigEndian.PutUint64(k[:], uint64(j))
			must(bt.Set(k[:], vals[j], nil))
		}
		must(bt.Commit(pebble.Sync))
	}
	must(pdb.Close())
	write = time.Since(t0)
	t0 = time.Now()
	pdb, err = pebble.Open(dir, &pebble.Options{ReadOnly: true})
	must(err)
	it, err := pdb.NewIter(nil)
	must(err)
	got = 0
	for it.First(); it.Valid(); it.Next() {
		if _, err := index.DecodeRecord(it.Value()); err != nil {
			panic(err)
		}
		got++
	}
	must(it.Close())
	must(pdb.Close())
	report("pebble", write, time.Since(t0), dir, got)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
