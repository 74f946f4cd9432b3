package features

// wordSet finds any of a fixed set of ASCII substrings in a byte string in
// one pass: the class and id names of every container element of every page
// are tested against dozens of words (unlikelyName, consentName), and a
// bytes.Contains for each word cost a tenth of the page analysis. The words
// are grouped by their first byte, so that a position is compared with the
// few words that can start there.
type wordSet struct {
	first [256][]string
	min   int // length of the shortest word
}

// newWordSet makes the set of words (non-empty).
func newWordSet(words ...string) *wordSet {
	s := &wordSet{min: 1 << 30}
	for _, w := range words {
		if w == "" {
			panic("features: empty word in a wordSet")
		}
		s.first[w[0]] = append(s.first[w[0]], w)
		s.min = min(s.min, len(w))
	}
	return s
}

// in says whether b holds any of the words.
func (s *wordSet) in(b []byte) bool {
	for i := 0; i+s.min <= len(b); i++ {
		for _, w := range s.first[b[i]] {
			if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
				return true
			}
		}
	}
	return false
}
