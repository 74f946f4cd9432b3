package features

import (
	"slices"
	"strings"
	"testing"
)

// paperSpotConfig is the setting of both worked examples: antecedents {a, an, the,
// is}, spot distance 1, chain length 2.
func paperSpotConfig() Config {
	c := DefaultConfig()
	c.Antecedents = []string{"a", "an", "the", "is"}
	c.SpotDistance, c.SpotChain = 1, 2
	return c
}

// TestSpotSigsPaperExamples checks the two worked examples of PAPERS.md against
// exactly the printed sets. The papers print the SIGIR example lower-cased and the
// Milton example with "Milton" capitalized; we case-fold all text, so the expected
// sets are compared lower-cased.
func TestSpotSigsPaperExamples(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{
			name: "SIGIR 2008 Sec. 3",
			text: "At a rally to kick off a weeklong campaign for the South Carolina primary, Obama tried to set the record straight from an attack circulating widely on the Internet that is designed to play into prejudices against Muslims and fears of terrorism.",
			want: []string{"a:rally:kick", "a:weeklong:campaign", "the:south:carolina", "the:record:straight", "an:attack:circulating", "the:internet:designed", "is:designed:play"},
		},
		{
			name: "AF-SpotSigs Sec. 2 (typographic apostrophe)",
			text: "In a street in Milton, in the city\u2019s inner-west, one woman wept as she toured her waterlogged home.",
			want: []string{"a:street:Milton", "the:city's:inner-west"},
		},
		{
			name: "AF-SpotSigs Sec. 2 (ASCII apostrophe)",
			text: "In a street in Milton, in the city's inner-west, one woman wept as she toured her waterlogged home.",
			want: []string{"a:street:Milton", "the:city's:inner-west"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SpotSignatures(tt.text, paperSpotConfig())
			if err != nil {
				t.Fatal(err)
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.ToLower(w)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

// TestQGramPaperExample is DDD's example (Sec. 3): "A rose is a flower" with
// q=3, white space and punctuation removed.
func TestQGramPaperExample(t *testing.T) {
	got := QGramStrings("A rose is a flower", 3)
	want := []string{"Aro", "ros", "ose", "sei", "eis", "isa", "saf", "afl", "flo", "low", "owe", "wer"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := QGramStrings("A rose, is... a flower!", 3); !slices.Equal(got, want) {
		t.Errorf("punctuation not removed: %q", got)
	}
}
