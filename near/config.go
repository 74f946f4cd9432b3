package near

import "fmt"

// Method says how near duplicates are found.
type Method uint8

const (
	// MethodSpotSigs routes pages by length and relation: SpotSigs for long pages,
	// AF-SpotSigs for short ones, same-site and cross-site thresholds.
	MethodSpotSigs Method = iota
	// MethodHenzinger is Henzinger's combined B+C (see henzinger.go).
	MethodHenzinger
)

// ParseMethod reads a method's name: spotsigs or henzinger.
func ParseMethod(s string) (Method, bool) {
	switch s {
	case "spotsigs":
		return MethodSpotSigs, true
	case "henzinger":
		return MethodHenzinger, true
	}
	return 0, false
}

// Config is how pages are analysed and decided.
type Config struct {
	// Method says how near duplicates are found.
	Method Method
	// ShortSpots is SizeSpotSigs' cut: a page with fewer spot signatures has
	// little core content and is compared by AF-SpotSigs (0: off).
	ShortSpots int
	// SameSiteTau is the SpotSigs Jaccard at which a page is a near duplicate of
	// a kept page of the same site; ShortTau the same for short pages, compared
	// by AF-SpotSigs; CrossSiteTau the SpotSigs Jaccard for a kept page of
	// another site, where frames share nothing and all overlap is content.
	SameSiteTau, ShortTau, CrossSiteTau float64
	// FrameFilter judges pairs without the signatures that occur in many of a
	// site's kept pages (see Index.isFrame).
	FrameFilter bool
	// BigramsBelow: a page with main text but fewer spot signatures than this
	// is compared by the word bigrams of its main text, at BigramsTau, with
	// earlier captures of the same URL and with pages of other sites (0: off),
	// when SpotSigs finds nothing. Pages with fewer than 3 spot signatures
	// (mainTextMinSpots) have no other way to be found. The default is well
	// above that, so that a short story whose copies fall on both sides of the
	// bound is in the bigram index on both sides: a Japanese story, whose spot
	// signatures are the few chance Chinese antecedents, had 2 in one frame and
	// 4 in another; short blog posts of the benchmark had 4 in their own frame
	// and 9 in a syndicated one. Measured on the benchmark (P/R/F1), a bound of
	// 6 against 16: seed 20260304 0.9941/0.9486/0.9708 against
	// 0.9941/0.9526/0.9730 (cross-site recall 0.9148 to 0.9248), seed
	// 20261123 0.9923/0.9295/0.9599 against 0.9923/0.9303/0.9603; 24 found
	// nothing more; wcxb's decisions did not change.
	BigramsBelow int
	BigramsTau   float64
	// CrossBigramsTau is the bigrams' Jaccard for a kept page of another
	// site, when the smaller page's bigrams are mostly (crossBigramsHeld) in
	// the larger's. A short story's main text in another site's frame takes
	// some of that frame with it (a poll beside the post, a byline, a line
	// of related links) or leaves a line of its own out, and a few words
	// more or less are a large part of a short text's bigrams: "Yesterday's
	// over" (dragnet), 30 bigrams on its own blog, 62 with a sports site's
	// poll, 0.48. Measured on the dedupbench benchmark (P/R/F1) at 0.4
	// against 0.7: seed 20260304 F1 0.9845 to 0.9866 (cross-site recall
	// 0.9474 to 0.9599), seed 20261123 0.9779 to 0.9787 (0.9409 to 0.9455),
	// the scaled set (-scale 17) 10,968 to 10,974 found, all with no false
	// pair more; the corpus's 3.6 million cross-site pairs
	// (TestCrossSiteFalsePositives), the real pairs and wcxb gave the same
	// decisions.
	CrossBigramsTau float64
	// MinEvidence: a near duplicate of a page of another site replaces the
	// page only if the two share at least this many distinct content
	// signatures (spot signatures, or word bigrams for pages found by them);
	// with fewer, Match says the page is to be kept and why (0: no minimum).
	// See weakEvidence.
	MinEvidence int
	// OtherURLTau: a near duplicate of a page of the same site at another
	// URL replaces the page only at this similarity or more; under it, Match
	// says the page is to be kept and why (see weakEvidence). At or under
	// SameSiteTau it has no effect.
	OtherURLTau float64
	// OwnText: a near duplicate of a page of the same site replaces the page
	// only if fewer than this many of the page's content signatures (or
	// under 1/ownTextShare of them, if that is more, up to ownTextMost times
	// this many) are not in the kept page; with more, Match says the page is
	// to be kept and why (0: off).
	// See weakEvidence.
	OwnText int
	// MainText takes spot signatures from the blocks of a page that read as
	// running text only (features.Config.MainText).
	MainText bool
}

// DefaultConfig is the configuration of the command line tool.
func DefaultConfig() Config {
	return Config{Method: MethodSpotSigs, SameSiteTau: 0.65, ShortTau: 0.85, CrossSiteTau: 0.25,
		FrameFilter: true, MainText: true, BigramsBelow: defaultBigramsBelow, BigramsTau: 0.7, CrossBigramsTau: 0.4, MinEvidence: 3, OtherURLTau: 0.75, OwnText: defaultOwnText}
}

// Check says what is wrong with a configuration, if anything.
func (c Config) Check() error {
	for _, t := range []struct {
		name string
		v    float64
	}{{"same-site threshold", c.SameSiteTau}, {"cross-site threshold", c.CrossSiteTau},
		{"short-page threshold", c.ShortTau}, {"bigram threshold", c.BigramsTau},
		{"cross-site bigram threshold", c.CrossBigramsTau}} {
		if !(t.v > 0 && t.v <= 1) {
			return fmt.Errorf("near: %s %v: want a value in (0, 1]", t.name, t.v)
		}
	}
	if c.OtherURLTau < 0 || c.OtherURLTau > 1 {
		return fmt.Errorf("near: other-URL threshold %v: want a value in [0, 1]", c.OtherURLTau)
	}
	if c.ShortSpots < 0 || c.BigramsBelow < 0 || c.MinEvidence < 0 || c.OwnText < 0 {
		return fmt.Errorf("near: negative count in configuration")
	}
	if c.Method > MethodHenzinger {
		return fmt.Errorf("near: unknown method %d", c.Method)
	}
	return nil
}

// defaultBigramsBelow is Config.BigramsBelow's default.
const defaultBigramsBelow = 16

// mainTextMinSpots is features.Config.MinSpots with MainText. Signatures of
// the running text alone are frame-free, so fewer of them are evidence: a
// short story's 3 or 4 signatures in a re-capture are all equal (measured on
// the dedupbench benchmark: MinSpots 3 instead of 5 found 8% more re-capture
// pairs and lowered precision by 0.2%).
const mainTextMinSpots = 3

// crossBigramsHeld is the share of the smaller page's bigrams that must be
// in the larger's for a pair of two sites to be judged at CrossBigramsTau
// rather than BigramsTau: one text with some of a frame, not two texts
// that share a sentence. Every pair the benchmark's seeds and scaled set
// gain at 0.4 has 0.70 or more (11 pairs, 7 of them 0.9 and more).
const crossBigramsHeld = 0.7

// crossBigramsMin is the fewest bigrams a pair judged at CrossBigramsTau
// shares: a sentence's worth. A phrase of a dozen words that two short
// pages share is too little to tell a copy from a quotation: two
// different stories of the benchmark's scaled set that open with one
// headline's 13 words matched at 0.41 (12 bigrams of 14).
const crossBigramsMin = 2 * minBigrams

// minBigrams is the fewest main-text word bigrams a page needs to be
// compared by them: a sentence of eight words or so.
const minBigrams = 8

// minAFFeatures is the fewest AF-SpotSigs features a short page needs to be
// compared at all: below it, a page is a menu or an error message.
const minAFFeatures = 20
