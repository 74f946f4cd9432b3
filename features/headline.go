package features

import "bytes"

// Headline anchoring. jusText judges each block by itself and its neighbours,
// so a story of one or two sentences, too short and too plain to read as
// running text, loses to whatever prose the frame has: a blogger's bio in the
// sidebar, an image-credit disclaimer, a comment form's run of labels. What
// does mark such a story is its headline: the page's <title> names it, a
// heading element repeats it, and the story follows the heading inside the
// same container. boilerpipe's ArticleExtractor anchors its content on the
// block that matches the title in the same way (Kohlschütter et al., WSDM
// 2010: DocumentTitleMatchClassifier, ExpandTitleToContentFilter), and
// Readability looks for a story's text in the parent and grandparent of where
// it starts. Measured on the dedupbench benchmark's syndicated copies (a story's
// gold text put into another site's frame), short stories had main-text
// precision 0.71 against 0.94 for long ones before this.

// Container elements whose nesting bounds a headline's region. A block records
// how deep in them its text is, and how shallow the nesting went since the
// text before it (block.depth, block.low): the region of a container at depth
// L is the run of blocks whose nesting never went shallower than L.
const (
	ctNone uint8 = iota
	ctBox        // div, section, article and the like: closed explicitly
	ctTable
	ctRow  // tr: closed by the next row or the table's end
	ctCell // td, th: closed by the next cell, row or the table's end
	ctList
	ctItem // li: closed by the next item or the list's end
)

func containerKind(name []byte) uint8 {
	switch string(name) {
	case "div", "section", "article", "main", "header", "footer", "nav", "aside", "blockquote",
		"form", "center", "figure", "fieldset", "details", "dl":
		return ctBox
	case "table":
		return ctTable
	case "tr":
		return ctRow
	case "td", "th":
		return ctCell
	case "ul", "ol", "menu", "dir":
		return ctList
	case "li":
		return ctItem
	}
	return ctNone
}

// maxNest bounds the container stack; deeper elements are counted, not kept.
const maxNest = 128

// nest is the stack of open container elements, with HTML's implied end tags
// for rows, cells and list items, which real pages leave out as often as not.
type nest struct {
	kind [maxNest]uint8
	n    int // open containers, some of them perhaps beyond kind's length
	low  int // the shallowest n since the last text
	// chrome is the chrome depth (blockState.chrome) before each open
	// container's start tag; ended, the least of those of the containers
	// popped by the last tag, or -1 (see nestTag).
	chrome [maxNest]int32
	ended  int32
}

func (s *nest) top() uint8 {
	if s.n == 0 || s.n > maxNest {
		return ctNone
	}
	return s.kind[s.n-1]
}

func (s *nest) pop() {
	s.n--
	s.low = min(s.low, s.n)
	if s.n < maxNest && (s.ended < 0 || s.chrome[s.n] < s.ended) {
		s.ended = s.chrome[s.n]
	}
}

// open pushes a container, first closing what its start tag implies.
func (s *nest) open(k uint8) {
	switch k {
	case ctCell:
		for t := s.top(); t == ctCell; t = s.top() {
			s.pop()
		}
	case ctRow:
		for t := s.top(); t == ctCell || t == ctRow; t = s.top() {
			s.pop()
		}
	case ctItem:
		for s.top() == ctItem {
			s.pop()
		}
	}
	if s.n < maxNest {
		s.kind[s.n] = k
	}
	s.n++
}

// close pops up to and including the innermost open container of kind k; an
// end tag with no such container open is ignored, as browsers do. A table or
// list end closes the rows, cells and items left open in it.
func (s *nest) close(k uint8) {
	if s.n > maxNest {
		s.pop() // beyond what is kept: trust the page
		return
	}
	for i := s.n - 1; i >= 0; i-- {
		if s.kind[i] == k {
			for s.n > i {
				s.pop()
			}
			return
		}
		if (k == ctCell || k == ctRow) && s.kind[i] == ctTable || k == ctItem && s.kind[i] == ctList {
			return // not in this table or list
		}
	}
}

// nestTag follows container elements for start (open) and end tags.
//
// A container that closes also closes the form controls and other chrome
// elements left open inside it, as HTML's parser pops every element above
// the one an end tag closes (HTML Living Standard, 13.2.6.4.7, "any other
// end tag"): a button or label without its end tag (a product page's 56
// buttons and 53 end tags) otherwise made the rest of the page chrome. The
// chrome depth is restored to what it was before the container opened;
// chrome0 is that depth before this start tag's own element was counted.
// So do the regions (unlikely, consent, content, main) of elements inside
// it: a sidebar's div left open made the rest of a page furniture.
func (e *Extractor) nestTag(name []byte, open bool, chrome0 int) {
	k := containerKind(name)
	if k == ctNone {
		return
	}
	s := &e.bs.nest
	s.ended = -1
	if open {
		s.open(k)
	} else {
		s.close(k)
	}
	if s.ended >= 0 {
		e.bs.chrome = min(e.bs.chrome, int(s.ended))
		chrome0 = min(chrome0, int(s.ended))
		// A region whose element was inside a popped container ends too.
		bs := &e.bs
		for _, r := range [...]*region{&bs.roleMain, &bs.outRole, &bs.consent, &bs.unlikely, &bs.furnIn, &bs.positive, &bs.body} {
			if r.on && s.n <= r.nest {
				r.on = false
				e.cut()
			}
		}
	}
	if open && s.n <= maxNest {
		s.chrome[s.n-1] = int32(chrome0)
	}
}

// anchorMinBytes is the shortest heading taken as a headline: shorter ones
// ("News", "Home", 新闻) are section names, whatever the title says.
const anchorMinBytes = 8

// anchorWiden is how many containers above the headline's own its region may
// take in when the headline's container holds too little text (Readability
// looks at a candidate's parent and grandparent).
const anchorWiden = 2

// headlines appends to dst the blocks that repeat the page's title: heading
// elements outside chrome whose text is in the <title>, at least
// anchorMinBytes long and of two words or more.
func (e *Extractor) headlines(bs []block, dst []int) []int {
	var title []byte
	for i := range bs {
		if bs[i].title {
			title = trimText(e.text[bs[i].start:bs[i].end])
			break
		}
	}
	if len(title) < anchorMinBytes {
		return dst
	}
	for i := range bs {
		b := &bs[i]
		if !b.heading || b.title || b.chrome {
			continue
		}
		h := trimText(e.text[b.start:b.end])
		if len(h) < anchorMinBytes || e.bstat[i].words < 2 || !bytes.Contains(title, h) {
			continue
		}
		dst = append(dst, i)
	}
	return dst
}

// trimText drops white space and punctuation at both ends of normalized text.
func trimText(t []byte) []byte {
	return bytes.TrimFunc(t, func(r rune) bool { return class(r) == 0 })
}

// anchored finds the story that follows a headline: the blocks after it in
// its container (or, when they hold too few words, its parent's or
// grandparent's) that read as prose and are not furniture, link lists or
// headings. With the headline they must hold fallbackMinWords words. Of
// several headlines the last one with a story wins: a site's name in its
// masthead matches the title too, and comes first; a side box's heading
// that an earlier headline contains does not count (sideHeadline). It
// returns the headline, the end of its story's container and the end of
// its grandparent's, as block indexes, or h = -1.
func (e *Extractor) anchored(bs []block, st []blockStat) (h, end, outer int) {
	e.idx = e.headlines(bs, e.idx[:0])
	for k := len(e.idx) - 1; k >= 0; k-- {
		a := e.idx[k]
		if e.sideHeadline(bs, st, k) {
			continue
		}
		if end, outer = storyAfter(bs, st, a); end >= 0 {
			return a, end, outer
		}
	}
	return -1, 0, 0
}

// storyAfter finds the story after headline a (see anchored): the end of
// its container and of its grandparent's, or end = -1 when none holds
// fallbackMinWords words of prose.
func storyAfter(bs []block, st []blockStat, a int) (end, outer int) {
	d := bs[a].depth
	end = -1
	for level := d; level >= max(d-anchorWiden, 0); level-- {
		words := st[a].words
		story := false
		j := a + 1
		for ; j < len(bs) && bs[j].low >= level; j++ {
			if storyBlock(&bs[j], st[j]) {
				words += st[j].words
				story = true
			}
		}
		if end < 0 && story && words >= fallbackMinWords {
			end = j // the smallest container with enough words holds the story
		}
		outer = j
	}
	return end, outer
}

// sideHeadline says whether the k-th headline (e.idx[k]) is a side box's
// heading that a headline before it contains, out of that headline's
// region: a blog's sidebar that lists a series ("The AWS Report") after the
// post whose headline names one episode of it ("The AWS Report - John
// Smiley Discusses RDS Provisioned IOPS"). A heading inside the longer
// headline's region is the story's own section heading and stays a
// candidate.
func (e *Extractor) sideHeadline(bs []block, st []blockStat, k int) bool {
	a := e.idx[k]
	h := trimText(e.text[bs[a].start:bs[a].end])
	for _, b := range e.idx[:k] {
		o := trimText(e.text[bs[b].start:bs[b].end])
		if len(o) <= len(h) || !bytes.Contains(o, h) {
			continue
		}
		if end, outer := storyAfter(bs, st, b); end >= 0 && a >= outer {
			return true
		}
	}
	return false
}

// storyLinkDensity is the most link text a block of a headline's story may
// have: Readability's limit for blocks that hold a paragraph's worth of words.
// A blog post's sentence links the event and the shop it names (measured on
// alinanimation.blogspot.com: 0.37), more than jusText's 0.2 allows.
const storyLinkDensity = 0.5

// storyBlock says whether a block after a headline is part of its story: it
// reads as prose (jusText's low stopword density, so not a byline, a date or
// a list of tags) and is not furniture, a heading or mostly link text.
func storyBlock(b *block, s blockStat) bool {
	return s.words > 0 && !b.heading && !b.furniture(true) &&
		float64(b.link) <= storyLinkDensity*float64(b.end-b.start) && prose(s)
}

// prose says whether words with these counts read as running text:
// jusText's low stopword density, Chinese by its own measure.
func prose(s blockStat) bool {
	if 2*s.cjk > s.words {
		return float64(s.stops+s.marks) >= stopLowCJK*float64(s.words)
	}
	return float64(s.stops) >= stopLow*float64(s.words)
}

func (s *blockStat) add(o blockStat) {
	s.words += o.words
	s.stops += o.stops
	s.cjk += o.cjk
	s.marks += o.marks
}

// anchorMaxGood is the most good text jusText may have found elsewhere for
// the story after a headline to take its place: Readability's charThreshold,
// below which it does not trust what it found. A long article is more than
// that, wherever its headline stands.
const anchorMaxGood = retryMinText

// anchorGap is the most text between the end of a headline's story and
// good text after it for that text to be the story's continuation: a share
// bar or a byline box ("comments | tweet | more") closes before the body
// starts (measured on washingtonpost.com), while a column of teasers or
// videos beside the story is far longer (nhl.com).
const anchorGap = lengthHigh

// anchor applies headline anchoring to the classes jusText gave (good is
// whether it found any good block). jusText's choice stands when its good
// text is in the headline's story or continues it (within anchorGap bytes
// after it, in the grandparent container), or when that text is long enough
// to be an article of its own (anchorMaxGood). Otherwise the headline and its
// story are the main text. It reports whether it changed cls.
func (e *Extractor) anchor(bs []block, st []blockStat, cls []uint8, good bool) bool {
	h, end, outer := e.anchored(bs, st)
	e.headlined, e.headline = h >= 0, h
	if h < 0 {
		return false
	}
	if good {
		gap := 0
		for i := h + 1; i < outer; i++ {
			if cls[i] == clsGood {
				if i < end || gap <= anchorGap {
					return false // jusText found the story, or its continuation
				}
				break
			}
			if i >= end && st[i].words > 0 {
				gap += int(bs[i].end - bs[i].start)
			}
		}
		n := 0
		for i, c := range cls {
			if c == clsGood && !legalNotice(e.text[bs[i].start:bs[i].end]) {
				n += int(bs[i].end - bs[i].start)
			}
		}
		if n >= anchorMaxGood {
			return false
		}
	}
	clear(cls)
	cls[h] = clsGood
	for j := h + 1; j < end; j++ {
		if storyBlock(&bs[j], st[j]) {
			cls[j] = clsGood
		}
	}
	return true
}

// legalNotice says whether a block is a site's copyright or trademark notice,
// which reads as prose, often at length (nhl.com's is 212 words), but is no
// article: it does not count as one against a headline's story. The markers
// are those an article's prose does not use: a copyright sign or "all rights
// reserved".
func legalNotice(t []byte) bool {
	return bytes.Contains(t, []byte("all rights reserved")) || bytes.Contains(t, []byte("©"))
}
