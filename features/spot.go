package features

import (
	"fmt"
	"strings"
)

func errorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}

// spotChains calls emit for every spot signature of e.words whose antecedent has
// one of the flags in anteMask. It implements SpotSigs' a(d,c) (Theobald et al.,
// SIGIR 2008, Sec. 3) generalized to arbitrary steps (the Stanford report's
// multi-chain a(m,n), Sec. 3.1): the chain takes the steps[0]-th non-stopword after
// the antecedent, then the steps[1]-th after that, and so on. Stopwords, including
// antecedents, are skipped and not counted; punctuation marks are not words. A
// chain that runs into the end of the document is kept if it found at least one
// word ("cut off ... if at least one non-stopword is found", Sec. 3). chain holds
// word indexes and is reused between calls.
//
// The chain is found through the list of content-word positions, so the cost is
// linear in the words: a first version scanned forward from every antecedent and
// was quadratic on text made only of stopwords ("the a the a ...", found by a
// pathological-input test: 8 MiB did not finish in ten minutes).
func (e *Extractor) spotChains(anteMask uint8, emit func(ante int, chain []int)) {
	ws := e.words
	content := e.content[:0]
	for j := range ws {
		if ws[j].flags&(flagStop|flagMark) == 0 {
			content = append(content, int32(j))
		}
	}
	e.content = content
	var buf [maxChain]int
	p := 0 // content[p] is the first content word after the current position
	for i := range ws {
		if ws[i].flags&anteMask == 0 || ws[i].flags&flagMark != 0 {
			continue
		}
		for p < len(content) && int(content[p]) <= i {
			p++
		}
		chain := buf[:0]
		pos := p - 1
		for _, step := range e.steps {
			pos += step
			if pos >= len(content) {
				break // cut at the end of the document
			}
			chain = append(chain, int(content[pos]))
		}
		if len(chain) > 0 {
			emit(i, chain)
		}
	}
}

// spotKeys appends the hashes of the spot signatures (antecedents with flags in
// anteMask) to keys. A signature's hash chains the antecedent's and the chain
// words' hashes in order (combine), standing in for a hash of the string
// "ante:w1:w2" without building it.
func (e *Extractor) spotKeys(keys []uint64, anteMask uint8) []uint64 {
	ws := e.words
	e.spotChains(anteMask, func(ante int, chain []int) {
		h := combine(seedSpot, ws[ante].hash)
		for _, j := range chain {
			h = combine(h, ws[j].hash)
		}
		keys = append(keys, h)
	})
	return keys
}

// SpotSignatures returns the spot signatures of a plain text (not HTML) under cfg
// as strings "antecedent:word1:word2...", in document order with repeats. It is
// the readable twin of Doc.Spots for tests and debugging (SIGIR 2008, Sec. 3); the
// text is normalized and case-folded like page text.
func SpotSignatures(text string, cfg Config) ([]string, error) {
	cfg.Families |= FamSpotSigs
	e, err := NewExtractor(cfg)
	if err != nil {
		return nil, err
	}
	e.text = e.text[:0]
	e.appendText([]byte(text))
	e.scan()
	var out []string
	var sb strings.Builder
	e.spotChains(flagAnte, func(ante int, chain []int) {
		sb.Reset()
		w := e.words[ante]
		sb.Write(e.text[w.start:w.end])
		for _, j := range chain {
			sb.WriteByte(':')
			sb.Write(e.text[e.words[j].start:e.words[j].end])
		}
		out = append(out, sb.String())
	})
	return out, nil
}
