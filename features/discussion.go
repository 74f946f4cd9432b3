package features

import (
	"bytes"
	"strings"
)

// Discussion pages. A forum thread's replies are its content: a thread is
// its posts, and two captures of it differ by the replies written between
// them. Readability's unlikely-candidate words name comment sections
// ("comment", "replies", "community", "remark"), which on a news page hold
// readers' comments, no part of the story and different on each copy of
// it; forum platforms use the same words for the posts of a thread
// (Vanilla's <div class="Comment">, vBulletin's <section id="comments">).
// A page that says it is a discussion keeps the text of containers named
// so, unless another furniture name is on them too.
//
// A page says so by its schema.org type (DiscussionForumPosting or QAPage,
// as JSON-LD or microdata), as Google asks forums to mark their threads,
// by naming a forum platform as its generator, or by its URL
// (discussionURL). Measured on the corpus: 74 of wcxb's 152 forum pages
// say so by their markup, one of its 126 listings, one page of dragnet's
// 1,381 and none of the other datasets' 2,119; the URL says so of 50 more
// forum pages, 13 other wcxb pages and 15 of the news datasets'. Word F1
// of wcxb's forum pages 0.7821 without the rule, 0.7905 by the markup
// (a Rick Steves forum thread 0.147 to 0.967), 0.8036 with the URL too;
// the other datasets and page types the same. A
// thread captured again with ten new replies was a revisit of its first
// capture at similarity 1.0 without it (dedup's TestThreadRecapture).

// commentNames are the unlikely-candidate words that name a discussion's
// posts as well as a story's comments (see above).
var commentNames = newWordSet("comment", "replies", "community", "remark")

// commentOnly says whether class and id values (read by containerNames
// into m) name furniture by a comment word alone: no content word, no
// other furniture word.
func commentOnly(m uint16) bool {
	return m&nameOK == 0 && m&nameUnlikely == 0 && m&nameComment != 0
}

// discussionTypes are the schema.org types of a discussion page.
var discussionTypes = [][]byte{[]byte(`"DiscussionForumPosting"`), []byte(`"QAPage"`)}

// discussionJSONLD says whether a JSON-LD script names a discussion type
// as an @type.
func discussionJSONLD(b []byte) bool { return jsonLDType(b, discussionTypes) }

// discussionItemtype says whether a microdata itemtype is a discussion
// type's ("https://schema.org/DiscussionForumPosting").
func discussionItemtype(v []byte) bool {
	for _, t := range discussionTypes {
		if bytes.HasSuffix(bytes.TrimSpace(v), t[1:len(t)-1]) {
			return true
		}
	}
	return false
}

// forumGenerators are the forum platforms a meta generator names (lower
// case prefixes of its content: "vBulletin 4.2.5", "Discourse 3.2").
var forumGenerators = [...]string{"vbulletin", "xenforo", "phpbb", "discourse", "vanilla", "invision",
	"mybb", "smf", "simple machines", "nodebb", "flarum"}

// discussionGenerator says whether a meta generator's content names a
// forum platform.
func discussionGenerator(v []byte) bool {
	v = bytes.TrimSpace(v)
	for _, g := range forumGenerators {
		if len(v) >= len(g) && bytes.EqualFold(v[:len(g)], []byte(g)) {
			return true
		}
	}
	return false
}

// discussionPaths are the URL conventions of forum platforms: phpBB's
// viewtopic.php, vBulletin's showthread.php, XenForo's /threads/,
// Discourse's /t/, Vanilla's /discussion/, Invision's and bbPress's
// /topic/ and showtopic, Steam's /discussions/.
var discussionPaths = [...]string{"viewtopic.php", "showthread.php", "showtopic", "/thread/", "/threads/",
	"/t/", "/topic/", "/discussion/", "/discussions/"}

// discussionURL says whether a page's URL names a forum ("forum" in its
// host or path) or a forum platform's thread. It is weaker evidence than
// the page's markup, and meant to be: a page taken for a discussion
// keeps its comment sections: text of its own, which sets a capture apart
// from others more often than it joins them (figures above; the corpus's
// same-frame and cross-site pairs are decided as before).
func discussionURL(u string) bool {
	u = strings.ToLower(u)
	if strings.Contains(u, "forum") {
		return true
	}
	for _, p := range discussionPaths {
		if strings.Contains(u, p) {
			return true
		}
	}
	return false
}
