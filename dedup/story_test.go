package dedup

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// story returns an HTML page holding a made-up news story of n sentences,
// the same for the same seed: words of the story's own vocabulary around
// English stopwords, so that the page has main text and spot signatures
// (SpotSigs' antecedents are articles and forms of be, have and do). edits
// sentences, from the end, are replaced by others (a re-capture or a copy
// with a changed paragraph).
func story(seed uint64, n, edits int) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	syl := []string{"ka", "lo", "mi", "ren", "tas", "vo", "pel", "dun", "sor", "bi", "gra", "nu", "fel", "zi", "mar", "tol"}
	word := func(r *rand.Rand) string {
		k := 2 + r.IntN(2)
		var b strings.Builder
		for range k {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		return b.String()
	}
	frames := []string{"the %s of the %s said that a %s was %s in the %s %s.",
		"a %s had been %s by the %s, and the %s is %s to the %s.",
		"the %s %s was %s after the %s did %s the %s.",
		"an %s has %s the %s, said the %s of the %s %s."}
	sentence := func(r *rand.Rand) string {
		f := frames[r.IntN(len(frames))]
		args := make([]any, strings.Count(f, "%s"))
		for i := range args {
			args[i] = word(r)
		}
		s := fmt.Sprintf(f, args...)
		return strings.ToUpper(s[:1]) + s[1:]
	}
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>The " + word(rng) + " report</title></head><body>")
	b.WriteString("<nav><a href=/>Home</a> <a href=/news>News</a> <a href=/sport>Sport</a></nav><article><h1>The " + word(rng) + " of the " + word(rng) + "</h1>")
	editRng := rand.New(rand.NewPCG(seed, 99))
	for i := range n {
		if i%4 == 0 {
			b.WriteString("<p>")
		}
		s := sentence(rng)
		if i >= n-edits {
			s = sentence(editRng)
		}
		b.WriteString(s + " ")
		if i%4 == 3 || i == n-1 {
			b.WriteString("</p>\n")
		}
	}
	b.WriteString("</article><footer>Copyright the example news company</footer></body></html>")
	return b.String()
}

// TestStoryPages: the made-up stories are what the pipeline tests need: a
// story and its copy with one sentence in forty changed are near duplicates,
// two stories are not.
func TestStoryPages(t *testing.T) {
	in := responsesWARC(t, false,
		response{id: "<urn:uuid:s1>", uri: "http://news.example/a", body: story(1, 40, 0)},
		response{id: "<urn:uuid:s2>", uri: "http://news.example/b", body: story(2, 40, 0)},
		response{id: "<urn:uuid:s3>", uri: "http://copy.example/a", body: story(1, 40, 1)})
	for _, m := range []Method{MethodSpotSigs, MethodHenzinger} {
		opts := DefaultOptions()
		opts.Method = m
		d := New(opts)
		var out strings.Builder
		if err := d.Run(strings.NewReader(string(in)), "in", &out, false); err != nil {
			t.Fatal(err)
		}
		got := readBack(t, []byte(out.String()))
		if d.Stats.NearRevisits != 1 || got[2].Type() != "revisit" || got[2].Header.Get("WARC-Refers-To") != "<urn:uuid:s1>" {
			t.Errorf("method %d: %+v", m, d.Stats)
		}
	}
}
