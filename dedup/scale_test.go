package dedup

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/features"
)

// relabel makes f a record of copy k of its crawl: another record ID,
// digest, host and site, and spot signatures and bigrams in a signature
// space of the copy's own (each key XORed with a mask of k). Copies of a
// crawl have its sizes, sites and duplicates, and no duplicate in another
// copy: a crawl k times as large, for measuring the reduce step.
func relabel(f *Fact, k int) {
	if k == 0 {
		return
	}
	tag := "#" + strconv.Itoa(k)
	f.id += tag
	if f.cls != clsEligible {
		return
	}
	f.digest += tag
	f.computed += tag
	f.sha256[0] ^= byte(k)
	f.sha256[1] ^= byte(k >> 8)
	f.uri = strings.Replace(f.uri, "://", "://c"+strconv.Itoa(k)+".", 1)
	if p := f.page; p != nil {
		p.Site = "c" + strconv.Itoa(k) + "." + p.Site
		p.URL ^= uint64(k) * 0x9e3779b97f4a7c15
		mask := uint64(uint32(k) * 0x85ebca6b)
		for _, b := range []features.Bag{p.Spots, p.AF, p.Bigrams} {
			for i := range b {
				b[i].Key ^= mask
			}
			slices.SortFunc(b, func(x, y features.Entry) int { return cmp.Compare(x.Key, y.Key) })
		}
	}
}

// TestJudgeScale measures the reduce step's memory and time per page on a
// crawl made of copies of a real one (relabel): WARCDEDUP_SCALE_FACTS names
// the sorted output of `warcdedup map` over a crawl, WARCDEDUP_SCALE_COPIES
// how many copies to judge (default 1). It logs the heap after each copy;
// WARCDEDUP_SCALE_HEAPPROFILE names a file for a heap profile at the end.
func TestJudgeScale(t *testing.T) {
	path := os.Getenv("WARCDEDUP_SCALE_FACTS")
	if path == "" {
		t.Skip("WARCDEDUP_SCALE_FACTS is not set: no scale measurement (see docs/scale.md)")
	}
	copies := 1
	if c, err := strconv.Atoi(os.Getenv("WARCDEDUP_SCALE_COPIES")); err == nil && c > 0 {
		copies = c
	}
	opts := DefaultOptions()
	opts.TempDir = t.TempDir()
	d := New(opts)
	defer d.Close()
	var buf []byte
	pages, records := 0, 0
	start := time.Now()
	var cpu time.Duration
	for k := range copies {
		in, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		name := ""
		for sc.Scan() {
			key, val, _ := strings.Cut(sc.Text(), "\t")
			buf, err = base64.StdEncoding.AppendDecode(buf[:0], []byte(val))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(key, ":") {
				p, _, _ := strings.Cut(string(buf), "\x00")
				name = p + "#" + strconv.Itoa(k)
				continue
			}
			var f Fact
			if err := f.UnmarshalBinary(buf); err != nil {
				t.Fatal(err)
			}
			relabel(&f, k)
			if f.page != nil {
				pages++
			}
			records++
			t0 := time.Now()
			if _, err := d.Judge(name, &f); err != nil {
				t.Fatal(err)
			}
			cpu += time.Since(t0)
		}
		in.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		t.Logf("copy %d: %d records, %d pages; heap in use %.1f MB (%.0f bytes a page), peak RSS %s; judging %.1f µs a record, %.1f s in all",
			k+1, records, pages, float64(ms.HeapInuse)/1e6, float64(ms.HeapInuse)/float64(pages), peakRSS(),
			float64(cpu.Microseconds())/float64(records), time.Since(start).Seconds())
	}
	if hp := os.Getenv("WARCDEDUP_SCALE_HEAPPROFILE"); hp != "" {
		f, err := os.Create(hp)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	st := d.Stats
	t.Logf("%d exact and %d near revisits (%d same-site, %d cross-site)", st.Revisits, st.NearRevisits, st.NearSameSite, st.NearCrossSite)
}

// peakRSS is the process's peak resident set (VmHWM), as Linux reports it.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
