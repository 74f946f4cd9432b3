package features

import (
	"errors"
	"fmt"
)

// Family selects feature families to compute. One Extract call computes every
// selected family from a single tokenization of the page; families that share an
// intermediate (terms, words) share it.
type Family uint32

const (
	// FamSpotSigs: spot signatures a(d,c) as a multi-set (Theobald et al., SIGIR 2008, Sec. 3).
	FamSpotSigs Family = 1 << iota
	// FamSimhash: Charikar simhash over all Henzinger terms with frequencies,
	// 384 bits (Henzinger, SIGIR 2006, Alg. C) and 64 bits (Manku et al., WWW 2007).
	FamSimhash
	// FamSpotSimhash: simhash over the spot-signature multi-set instead of all
	// terms, frame-independent (the LSH-S idea of SIGIR 2008, Sec. 5, applied to simhash).
	FamSpotSimhash
	// FamAF: AF-SpotSigs features (spots, punctuation, sentence, sentence
	// shingles; AF-SpotSigs paper, Sec. 4).
	FamAF
	// FamShingles: Broder's shingling, Henzinger's Alg. B (SIGIR 2006, Sec. 2).
	FamShingles
	// FamQGrams: DDD character q-grams (DDD paper, Sec. 3).
	FamQGrams
	// FamTextSimhash: simhash over the content words of prose sentences only
	// (see Extractor.proseKeys), another frame-independent simhash.
	FamTextSimhash
)

// DefaultMaxDocBytes is the default cap on the body bytes looked at: the first 8 MiB
// of a page. Real article pages are under 1 MiB (the largest corpus page is 2.4 MiB,
// mostly script); the cap bounds time and memory on hostile or binary input.
const DefaultMaxDocBytes = 8 << 20

// Config chooses the families to compute and their parameters. Use DefaultConfig
// and change fields; NewExtractor validates.
type Config struct {
	Families Family

	// Antecedents are the SpotSigs spot words a (SIGIR 2008, Sec. 3). They are
	// also stopwords: a chain skips them.
	Antecedents []string
	// Stopwords are skipped when building a chain (SIGIR 2008, Sec. 3).
	Stopwords []string
	// SpotDistance d and SpotChain c give a(d,c): the d-th, 2d-th, ... c·d-th
	// non-stopword after the antecedent.
	SpotDistance, SpotChain int
	// SpotSteps, if set, replaces d and c by explicit steps between chain words:
	// the Stanford report's multi-chain a(m,n) is SpotSteps = []int{m, n} (the m-th
	// and the (m+n)-th word); a(d,c) is c copies of d. At most 8 steps.
	SpotSteps []int
	// MinSpots is the number of spot signatures (multi-set size) below which a
	// page is not SpotSigs-comparable (Doc.SpotComparable false): with very few
	// signatures the Jaccard is a coin toss (AF-SpotSigs paper, Sec. 1: F1 0.62 on
	// short pages).
	MinSpots int

	// AFAntecedents are the extra antecedents of AF-SpotSigs' stopword feature
	// (AF-SpotSigs paper, Fig. 2), used in addition to Antecedents.
	AFAntecedents []string
	// AFMaxGram caps the n-gram size of sentence shingles. The paper takes all
	// 1..n-1 grams of an n-word sentence, quadratic in n; 0 means the paper's n-1,
	// capped at 32 words to bound the cost on run-on "sentences".
	AFMaxGram int

	// BigramsBelow, if positive, makes Extract compute Doc.Bigrams for pages
	// with fewer spot signatures than this: the word bigrams of the text
	// SpotSigs read (the main text with MainText). A short story has too few
	// spot signatures for a Jaccard to mean anything (one sentence has one or
	// two), but every pair of adjacent words is evidence; the AF-SpotSigs
	// paper's answer to short pages is likewise more features, not fewer.
	BigramsBelow int
	// WholeBigrams, with MainText, makes Extract compute Doc.Bigrams for a
	// page where no block reads as running text too: the word bigrams of
	// all its text. Such a page (a forum's index, a catalogue, a blog's
	// front page of teasers) has nothing else to be compared by, and its
	// re-captures, which differ in a timestamp or a promotion, were never
	// found; the caller compares them with captures of the page's own URL
	// only, since its text is mostly its site's frame.
	WholeBigrams bool

	// ProseMinWords is the number of words (stopwords included) a sentence needs
	// to count as prose for FamTextSimhash.
	ProseMinWords int

	// MainText computes the spot-based families (SpotSigs, spot simhash,
	// AF-SpotSigs, text simhash) from the blocks of the page that read as running
	// text only (see content.go); a page where no block does keeps all its words.
	// Henzinger's families (simhash, shingles) and q-grams always see the whole page.
	MainText bool

	// ShingleK is the shingle length k of Alg. B (Henzinger: 8).
	ShingleK int
	// QGram is DDD's q (DDD paper: q=4 worked best).
	QGram int

	// MaxDocBytes caps the body bytes processed (0: DefaultMaxDocBytes).
	MaxDocBytes int
}

// DefaultAntecedents are SpotSigs' best-F1 antecedents (SIGIR 2008, Sec. 6.1,
// Fig. 6: articles and the flexions of be, can, will, have, do) plus "said", which
// lifted precision on news (Stanford report, Sec. 3.3.7), plus the Chinese
// antecedents of AF-SpotSigs Fig. 2 (的 地 得 是 把 了) so that Chinese pages get
// spot signatures too; they never occur in English text, so they cost nothing there.
var DefaultAntecedents = []string{
	"a", "an", "the",
	"be", "am", "is", "are", "was", "were", "been", "being",
	"can", "could", "cannot",
	"will", "would", "won't",
	"have", "has", "had", "having",
	"do", "does", "did", "done", "doing", "don't", "doesn't", "didn't",
	"said",
	"的", "地", "得", "是", "把", "了",
}

// ChineseAntecedents are the stopword markers of AF-SpotSigs (Fig. 2).
var ChineseAntecedents = []string{"的", "地", "得", "是", "把", "了"}

// DefaultStopwords is a short list of English function words (a subset of the
// SMART list the SpotSigs paper mentions) and the most frequent Chinese function
// characters. Chains skip them so that a signature is made of content words.
var DefaultStopwords = []string{
	"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are",
	"as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
	"can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from",
	"further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him",
	"himself", "his", "how", "i", "if", "in", "into", "is", "it", "it's", "its", "itself", "just", "me",
	"more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
	"other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some",
	"such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
	"they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we",
	"were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
	"you", "your", "yours", "yourself", "yourselves", "said", "says", "s", "t",
	"的", "地", "得", "是", "把", "了", "在", "和", "与", "也", "着", "就", "都", "而", "及", "被", "之", "其", "或",
	// Japanese particles and auxiliaries, written in hiragana, which Chinese
	// never uses: without them a Japanese paragraph has no stopwords, reads
	// as a menu to the main-text classifier, and its chains run through
	// grammar instead of content words.
	"の", "は", "を", "に", "が", "で", "と", "も", "へ", "た", "て", "な", "し", "か",
}

// DefaultConfig returns the production configuration: SpotSigs for same-site
// pairs and simhash (full-page and spot-based) for cross-site candidates, the
// split Henzinger recommends (SIGIR 2006, Sec. 5). Spot parameters are SpotSigs'
// best settings (SIGIR 2008, Sec. 6.1): distance 2, chain 3.
func DefaultConfig() Config {
	return Config{
		Families:      FamSpotSigs | FamSimhash | FamSpotSimhash,
		Antecedents:   DefaultAntecedents,
		Stopwords:     DefaultStopwords,
		SpotDistance:  2,
		SpotChain:     3,
		MinSpots:      5,
		AFAntecedents: ChineseAntecedents,
		ProseMinWords: 6,
		ShingleK:      8,
		QGram:         4,
		MaxDocBytes:   DefaultMaxDocBytes,
	}
}

// ErrConfig is wrapped by every error NewExtractor returns for a bad Config.
var ErrConfig = errors.New("features: invalid config")

// steps returns the chain steps of c (see SpotSteps).
func (c *Config) steps() ([]int, error) {
	if len(c.SpotSteps) > 0 {
		if len(c.SpotSteps) > maxChain {
			return nil, fmt.Errorf("%w: %d spot steps, at most %d", ErrConfig, len(c.SpotSteps), maxChain)
		}
		for _, s := range c.SpotSteps {
			if s < 1 {
				return nil, fmt.Errorf("%w: spot step %d < 1", ErrConfig, s)
			}
		}
		return c.SpotSteps, nil
	}
	if c.SpotDistance < 1 || c.SpotChain < 1 || c.SpotChain > maxChain {
		return nil, fmt.Errorf("%w: spot distance %d, chain %d (want d >= 1, 1 <= c <= %d)", ErrConfig, c.SpotDistance, c.SpotChain, maxChain)
	}
	s := make([]int, c.SpotChain)
	for i := range s {
		s[i] = c.SpotDistance
	}
	return s, nil
}

const maxChain = 8
