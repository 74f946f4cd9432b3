package review

import (
	"strings"
	"unicode/utf8"
)

// opKind is what a diff op does to the words of the first text.
type opKind uint8

const (
	opEqual opKind = iota
	opDel          // a word of a only
	opIns          // a word of b only
)

// op is one word of the diff: a[i] for opEqual and opDel, b[j] for opIns.
type op struct {
	kind opKind
	i, j int
}

// maxEdit bounds the edit distance the diff looks for: beyond it the unequal
// middle of the two texts is shown as wholly replaced. Texts are cut to a few
// KB first, so this bounds neither in practice; it keeps the diff's memory
// (about maxEdit² words) small for two unrelated texts.
const maxEdit = 1200

// words splits a text into words at white space.
func words(s string) []string { return strings.Fields(s) }

// diffWords returns the word-level diff of a and b (Myers, "An O(ND)
// Difference Algorithm and Its Variations", 1986), after taking off their
// common prefix and suffix.
func diffWords(a, b []string) []op {
	// Intern the words, so the inner loop compares ints.
	ids := map[string]int32{}
	intern := func(ws []string) []int32 {
		out := make([]int32, len(ws))
		for k, w := range ws {
			id, ok := ids[w]
			if !ok {
				id = int32(len(ids))
				ids[w] = id
			}
			out[k] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	ops := make([]op, 0, len(a)+len(b)-pre-suf)
	for k := 0; k < pre; k++ {
		ops = append(ops, op{opEqual, k, k})
	}
	ops = append(ops, myers(x[pre:len(x)-suf], y[pre:len(y)-suf], pre, pre)...)
	for k := 0; k < suf; k++ {
		ops = append(ops, op{opEqual, len(a) - suf + k, len(b) - suf + k})
	}
	return ops
}

// myers diffs a and b, whose indexes are offset by ai and bi in the ops.
func myers(a, b []int32, ai, bi int) []op {
	n, m := len(a), len(b)
	replaced := func() []op {
		ops := make([]op, 0, n+m)
		for k := range n {
			ops = append(ops, op{opDel, ai + k, bi})
		}
		for k := range m {
			ops = append(ops, op{opIns, ai + n, bi + k})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return replaced()
	}
	limit := min(n+m, maxEdit)
	off := limit + 1
	v := make([]int, 2*limit+3)
	// trace[d] is v over diagonals -d-1..d+1 when step d starts.
	var trace [][]int
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return replaced()
	}
	// Walk back from (n, m) through the snapshots.
	rev := make([]op, 0, n+m)
	x, y := n, m
	for d := found; d >= 0; d-- {
		snap := trace[d]
		at := func(k int) int { return snap[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		if d == 0 {
			px, py = 0, 0
		}
		for x > px && y > py {
			x--
			y--
			rev = append(rev, op{opEqual, ai + x, bi + y})
		}
		if d > 0 {
			if x == px {
				y--
				rev = append(rev, op{opIns, ai + x, bi + y})
			} else {
				x--
				rev = append(rev, op{opDel, ai + x, bi + y})
			}
		}
	}
	for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
		rev[l], rev[r] = rev[r], rev[l]
	}
	return rev
}

// truncate cuts s to at most max bytes, at a word boundary when there is one,
// and says whether it cut.
func truncate(s string, max int) (string, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexAny(s[:cut], " \n\t"); sp > max/2 {
		cut = sp
	}
	return s[:cut], true
}
