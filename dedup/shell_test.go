package dedup

import (
	"bytes"
	"fmt"
	"testing"
)

// TestAppShellDescriptions: two captures of one URL whose visible text is
// an application's shell (no running text) and whose story is in the meta
// description are one page only when the descriptions are: a news app
// re-captured with the next day's story is kept, a re-capture that differs
// in a script's nonce is a revisit.
func TestAppShellDescriptions(t *testing.T) {
	shell := func(desc, nonce string) string {
		return fmt.Sprintf(`<!doctype html><html><head><title>App News</title>
<meta name="description" content="%s"><meta property="og:description" content="%s">
<script nonce="%s">window.__boot=1</script></head><body>
<nav><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a> <a href="/science">Science</a> <a href="/opinion">Opinion</a></nav>
<div id="root">Loading</div>
<footer>We use cookies to improve your experience. Accept all cookies or manage your settings. Copyright App News Group</footer>
</body></html>`, desc, desc, nonce)
	}
	day1 := "A one-year-old boy has died in hospital after being attacked by a rottweiler in the yard of his grandparents' home, police said on Friday."
	day2 := "More than 60 players will be tested this weekend after being invited to the player combine in Fort Lauderdale, where they train in four teams."
	for _, c := range []struct {
		name      string
		a, b      string
		revisits  int
		keptWhole bool
	}{
		{"another story", shell(day1, "n1"), shell(day2, "n2"), 0, true},
		{"the same story, another nonce", shell(day1, "n1"), shell(day1, "n2"), 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := responsesWARC(t, false,
				response{id: "<urn:uuid:a>", uri: "http://app.example/article", body: c.a},
				response{id: "<urn:uuid:b>", uri: "http://app.example/article", body: c.b})
			outs, st, _ := oneMachine(t, DefaultOptions(), []string{"in.warc"}, [][]byte{in}, false)
			if r := st.Out["revisit"]; r != c.revisits {
				t.Errorf("%d revisits, want %d", r, c.revisits)
			}
			if c.keptWhole && !bytes.Equal(outs[0], in) {
				t.Error("the output is not the input")
			}
		})
	}
}
