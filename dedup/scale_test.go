package dedup

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/binary"
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

// TestShuffleComposition says what the map output that
// WARCDEDUP_PARTITION_FACTS names is made of, per HTML page that carries a
// near-duplicate page: the line (key and base64 value), the binary Fact, and
// in it the page's form (near.Page.AppendBinary: its signatures) and the
// record's other facts. docs/scale.md gives the figures.
func TestShuffleComposition(t *testing.T) {
	path := os.Getenv("WARCDEDUP_PARTITION_FACTS")
	if path == "" {
		t.Skip("WARCDEDUP_PARTITION_FACTS is not set: no shuffle measurement")
	}
	var pages, line, fact, form, spots, spotBytes, id, uri, date, digest, entity int
	str := func(s string) int { return len(binary.AppendUvarint(nil, uint64(len(s)))) + len(s) }
	for _, kf := range readKeyedFacts(t, path) {
		f := kf.f
		if f.page == nil {
			continue
		}
		b, err := f.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.page.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		line += len(kf.key) + 1 + base64.StdEncoding.EncodedLen(len(b)) + 1
		fact += len(b)
		form += len(p)
		spots += len(f.page.Spots)
		// The spot signatures as near.Page.AppendBinary writes them:
		// deltas of the sorted keys, a count only when it is not 1.
		var prev uint64
		for _, e := range f.page.Spots {
			spotBytes += len(binary.AppendUvarint(nil, (e.Key-prev)<<1))
			if e.N != 1 {
				spotBytes += len(binary.AppendUvarint(nil, uint64(e.N)))
			}
			prev = e.Key
		}
		// Each field as AppendBinary writes it: compact or as a string.
		idLen, dateLen, digestLen := str(f.id), str(f.date), str(f.digest)
		if _, ok := uuidID(f.id); ok {
			idLen = 16
		}
		if s, ok := dateSeconds(f.date); ok {
			dateLen = len(binary.AppendVarint(nil, s))
		}
		if _, ok := sha1Bytes(f.digest); ok {
			digestLen = 20
		}
		id, date, digest = id+idLen, date+dateLen, digest+digestLen
		uri, entity = uri+str(f.uri), entity+str(f.entity)
	}
	if pages == 0 {
		t.Fatal("no page in the map output")
	}
	per := func(n int) float64 { return float64(n) / float64(pages) }
	t.Logf("%d pages: a line %.0f bytes, its Fact %.0f bytes of binary: the page's form %.0f (%.1f spot signatures in %.0f bytes), the rest %.0f (as written: record ID %.0f, target URI %.0f, date %.0f, payload digest %.0f, entity fields %.0f, SHA-256 32)",
		pages, per(line), per(fact), per(form), per(spots), per(spotBytes), per(fact-form), per(id), per(uri), per(date), per(digest), per(entity))
}
