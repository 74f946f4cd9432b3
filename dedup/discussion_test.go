package dedup

import (
	"strings"
	"testing"
)

// threadPage returns a page of an opening post and its replies, in the
// containers named "comment" that forum platforms and news sites' comment
// sections both use; a discussion page says it is one by its schema.org
// type.
func threadPage(replies int, discussion bool) string {
	post := story(7, 24, 0)
	head := ""
	if discussion {
		head = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"The thread"}</script>`
	}
	var c strings.Builder
	c.WriteString(`<section id="comments" class="comment-list">`)
	for i := range replies {
		r := story(uint64(100+i), 6, 0)
		p := r[strings.Index(r, "<p>") : strings.LastIndex(r, "</p>")+4]
		c.WriteString(`<div class="comment"><div class="comment-author"><a href="/u/1">member</a></div>` + p + `</div>`)
	}
	c.WriteString(`</section>`)
	post = strings.Replace(post, "</title></head>", "</title>"+head+"</head>", 1)
	return strings.Replace(post, "</article>", "</article>"+c.String(), 1)
}

// TestThreadRecapture: a forum thread captured again after more replies were
// written is not a near duplicate of its first capture, whose replies are
// its content: replacing it would lose the new posts. A story captured again
// after more readers' comments is one: its comments are no part of it.
func TestThreadRecapture(t *testing.T) {
	for _, tc := range []struct {
		name       string
		url        string
		discussion bool // the page's markup says it is one
		revisit    bool // the second capture becomes a revisit of the first
	}{
		{"forum thread: the replies are the content", "https://www.example.org/2026/the-thread", true, false},
		{"forum thread known by its URL", "https://forum.example/t/the-thread/42", false, false},
		{"story with comments: the comments are not", "https://news.example/2026/the-story", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages := []page{
				{id: "first", url: tc.url, body: threadPage(2, tc.discussion)},
				{id: "later", url: tc.url, body: threadPage(12, tc.discussion)},
			}
			found, st, dups := nearFoundSims(t, DefaultOptions(), pages)
			revisit := found[1] == 0 && dups[1].Kind == "duplicate" && dups[1].Action == "revisit"
			if revisit != tc.revisit || st.NearRevisits != map[bool]int{false: 0, true: 1}[tc.revisit] {
				t.Errorf("second capture a revisit: %v (%d near revisits; %+v), want %v", revisit, st.NearRevisits, dups[1], tc.revisit)
			}
		})
	}
}
