package features_test

import (
	"fmt"

	"github.com/warcdedup/warcdedup/features"
)

// The worked example of SpotSigs (SIGIR 2008, Sec. 3): antecedents {a, an, the,
// is}, spot distance 1, chain length 2.
func ExampleSpotSignatures() {
	cfg := features.DefaultConfig()
	cfg.Antecedents = []string{"a", "an", "the", "is"}
	cfg.SpotDistance, cfg.SpotChain = 1, 2
	sigs, _ := features.SpotSignatures("At a rally to kick off a weeklong campaign for the South Carolina primary, "+
		"Obama tried to set the record straight from an attack circulating widely on the Internet "+
		"that is designed to play into prejudices against Muslims and fears of terrorism.", cfg)
	for _, s := range sigs {
		fmt.Println(s)
	}
	// Output:
	// a:rally:kick
	// a:weeklong:campaign
	// the:south:carolina
	// the:record:straight
	// an:attack:circulating
	// the:internet:designed
	// is:designed:play
}

func ExampleExtractor_Extract() {
	e, err := features.NewExtractor(features.DefaultConfig())
	if err != nil {
		panic(err)
	}
	page := []byte(`<html><body><ul><li>Home</li><li>News</li></ul>
<p>The council has approved the new budget, and the mayor said the vote was a clear signal.</p></body></html>`)
	d := e.Extract(page, "text/html; charset=utf-8", "http://www.example.com/news/1.html")
	fmt.Println(string(e.Text()))
	fmt.Println(d.Charset, d.Terms, d.Words, d.Spots.Len(), d.SpotComparable)
	// Output:
	// home news the council has approved the new budget, and the mayor said the vote was a clear signal.
	// utf-8 19 19 8 true
}
