package features

import (
	"strings"
	"testing"
)

// The cases are the patterns measured on the dedupbench benchmark and the corpus
// (the page each comes from is named): each fails if anchoring is removed or
// applied where it must not be.
func TestHeadlineAnchor(t *testing.T) {
	bio := `<div class="about"><p>I live. I learn. I teach. And, 140 characters on twitter is limiting. Here I share and celebrate my creativity and the creativity of others.</p></div>`
	disclaimer := `<div class="small"><h3>{small print}</h3><p>If you see an image we have not linked or given credit to, please let us know so we can give proper credit. If we have used an image that belongs to your company and you would prefer we not post it, please email us and we will gladly remove it.</p></div>`
	story := `<div class="box"><h1>Creative Food Sculptures</h1><p><a href="http://fubiz.net/">via fubiz.net</a></p><p>Repurposing food as art is creative, and the food is then eaten.</p></div>`
	menu := `<ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul>`
	tests := []struct {
		name       string
		page       string
		want, drop []string
	}{
		{"a one-sentence story after its headline wins over a sidebar bio (posterous.com)",
			`<title>Creative Food Sculptures - I geek for creativity</title><body>` + menu + bio + menu + story + menu + `</body>`,
			[]string{"sculptures", "repurposing", "eaten"}, []string{"twitter", "celebrate", "fubiz"}},
		{"... and over an image-credit disclaimer (typepad.com)",
			`<title>Creative Food Sculptures - Ritzy Bee</title><body>` + menu + disclaimer + menu + story + menu + `</body>`,
			[]string{"sculptures", "repurposing"}, []string{"credit", "gladly"}},
		{"a story's sentence may link what it names (alinanimation.blogspot.com: 0.37 of it linked)",
			`<title>Toon Cafe: Little gifts for friends</title><body>` + menu + bio + menu + `<div class="post"><h3>Little gifts for friends</h3><p>Dear all, I would love to invite you to the <a href="/t">Treehouse Heroes</a> book event at <a href="/r">The Reading Bug</a> this Saturday.</p></div>` + menu + `</body>`,
			[]string{"gifts", "treehouse", "saturday"}, []string{"twitter"}},
		{"no title naming the heading: jusText's choice stands",
			`<title>I geek for creativity</title><body>` + menu + bio + menu + story + menu + `</body>`,
			[]string{"twitter"}, []string{"repurposing"}},
		{"the site's name in the masthead matches the title too: the last headline wins",
			`<title>Creative Food Sculptures » The Curious Brain</title><body><div id="top"><h1>The Curious Brain</h1><p>We are the brain that is curious about the things of the world.</p></div>` +
				menu + bio + menu + story + menu + `</body>`,
			[]string{"sculptures", "repurposing"}, []string{"twitter", "world"}},
		{"the story's container ends the story: a comment form three levels up is not taken (earthtimes.org)",
			`<title>Creative Food Sculptures : Internet Technology</title><body><table><tr><td><div><div>` + story + `</div></div></td></tr><tr><td>` + menu +
				`<div><p>Share this article on</p><p>Have your say</p><p>Name</p><p>Email</p><p>Your comment</p><p>Enter the code that you see in the image to the left of this text</p></div></td></tr></table>` + menu + `</body>`,
			[]string{"sculptures", "repurposing"}, []string{"share", "comment"}},
		{"a byline in the headline's box, a share bar, the story in its parent: jusText's story stands (washingtonpost.com)",
			`<title>Read comments on mobile web - The Post</title><body>` + menu + `<div class="post"><div class="head"><h2>Read comments on mobile web</h2><div class="byline">Posted by Julia Beizer on March 8, 2013 at 3:23 pm</div></div><div class="share"><a href="#c">Comments</a> <a href="/t">Tweet</a> <a href="/m">More</a></div>` + storyPara + `</div>` + menu + `</body>`,
			[]string{"council", "ferry"}, nil},
		{"good text in the same column but past a run of teasers is not the story's continuation (nhl.com)",
			`<title>Creative Food Sculptures - NHL.com - News</title><body><div id="main"><div class="col">` + menu + story + strings.Repeat(menu, 20) +
				`<div class="video"><h3>Wacky celebrations</h3><p>NHL Video Community is a new experience from the NHL where fans can watch the latest and greatest videos and share them with their friends.</p></div></div></div></body>`,
			[]string{"sculptures", "repurposing"}, []string{"celebrations", "friends"}},
		{"a long copyright notice is not an article that outweighs the story (nhl.com)",
			`<title>Creative Food Sculptures - NHL.com - News</title><body>` + menu + `<div><div>` + story + `</div></div>` + menu + `<div class="legal"><p>` + strings.Repeat("NHL.com is the official web site of the National Hockey League. NHL, the NHL Shield and the word mark are registered trademarks of the National Hockey League. ", 4) +
				`© NHL 2012. All Rights Reserved.</p></div>` + menu + `</body>`,
			[]string{"sculptures", "repurposing"}, []string{"trademarks"}},
		{"long good text beyond the grandparent is an article: it stands",
			`<title>Bridge to close - The Herald</title><body>` + menu + `<div><div><div><h1>Bridge to close</h1><p>The bridge is to close, and it is said that it will be shut for long.</p></div></div></div>` +
				menu + `<div><div><div>` + storyPara + storyPara + storyPara + `</div></div></div>` + menu + `</body>`,
			[]string{"council", "ferry"}, nil},
		{"a headline with only a byline and dates after it is no story",
			`<title>Creative Food Sculptures - I geek for creativity</title><body>` + menu + bio + menu + `<div><h1>Creative Food Sculptures</h1><p>Denny McCorkle, 11 Jul 2012, 9:39am, 0 comments</p></div>` + menu + `</body>`,
			[]string{"twitter"}, nil},
		{"unclosed cells: the story's cell ends at the next cell",
			`<title>Creative Food Sculptures : Internet Technology</title><body>` + menu + bio + menu + `<table><tr><td><div><div><h1>Creative Food Sculptures</h1><p><a href="http://fubiz.net/">via fubiz.net</a></p><p>Repurposing food is art.</div></div><p>The food is then eaten.<td>` + menu + `<p>Share this on a site that you like and have your say</table>` + menu + `</body>`,
			[]string{"sculptures", "repurposing", "eaten"}, []string{"say", "twitter"}},
		{"a sidebar's heading that is part of the post's headline is not the headline (typepad.com)",
			`<title>AWS Blog: The AWS Report - John Smiley Discusses RDS</title><body><div id="wrap"><div id="main"><div id="content">` + menu + `<div class="post"><h3>The AWS Report - John Smiley Discusses RDS</h3><p>I interviewed him: watch it.</p></div>` +
				menu + `</div></div><div id="beta"><div class="side"><h2>The AWS Report</h2><ul><li><a href="/1">Patrick McBride</a></li><li><a href="/2">Stephen Elliott</a></li></ul><h2>Featured events</h2><p>This session will use real world case studies to help introduce how gaming companies can use the cloud to stay flexible, agile and ahead of the curve, and there will be a panel.</p></div></div></div>` + menu + `</body>`,
			[]string{"interviewed", "watch"}, []string{"gaming", "panel"}},
		{"a heading inside the post that is part of its headline stays a candidate",
			`<title>Creative Food Sculptures via fubiz - I geek for creativity</title><body>` + menu + bio + menu + `<div class="post"><h2>Creative Food Sculptures via fubiz</h2>` + story + `</div>` + menu + `</body>`,
			[]string{"sculptures", "repurposing", "eaten"}, []string{"twitter"}},
		{"Chinese: a short news item after its headline (news.163.com)",
			`<title>证监会要求暂停新股发行_网易新闻</title><body>` + menu + `<div class="side"><p>本站所有文章的版权归作者所有，转载的文章是为了传播更多的信息，如果有侵权请联系我们的编辑。</p></div>` + menu + `<div><h1>证监会要求暂停新股发行</h1><div class="meta"><a href="/">网易新闻</a></div><p>媒体称，新股发行被暂停，缴款的退款。</p></div>` + menu + `</body>`,
			[]string{"媒", "缴"}, []string{"版", "辑"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkMainText(t, tc.page, tc.want, tc.drop) })
	}
}

// TestNest checks the container stack's depth after each step, with HTML's
// implied end tags for cells, rows and list items and stray end tags ignored.
func TestNest(t *testing.T) {
	tests := []struct {
		name  string
		steps []string // "+tag" opens, "-tag" closes
		depth []int    // after each step
	}{
		{"boxes", []string{"+div", "+section", "-section", "-div"}, []int{1, 2, 1, 0}},
		{"unclosed cells and rows", []string{"+table", "+tr", "+td", "+td", "+tr", "+td", "-table"}, []int{1, 2, 3, 3, 2, 3, 0}},
		{"unclosed items", []string{"+ul", "+li", "+li", "+ul", "+li", "-ul", "-ul"}, []int{1, 2, 2, 3, 4, 2, 0}},
		{"a stray end tag is ignored", []string{"+div", "-table", "-td", "-div", "-div"}, []int{1, 1, 1, 0, 0}},
		{"a cell's end does not leave its table", []string{"+td", "+table", "-td", "-table"}, []int{1, 2, 2, 1}},
		{"an end tag closes what is open inside", []string{"+div", "+div", "+p", "+span", "-div", "-div"}, []int{1, 2, 2, 2, 1, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e Extractor
			for i, s := range tc.steps {
				e.nestTag([]byte(s[1:]), s[0] == '+', 0)
				if e.bs.nest.n != tc.depth[i] {
					t.Fatalf("after %v: depth %d, want %d", tc.steps[:i+1], e.bs.nest.n, tc.depth[i])
				}
			}
		})
	}
	var s nest
	for range maxNest + 10 {
		s.open(ctBox)
	}
	for range maxNest + 10 {
		s.close(ctBox)
	}
	if s.n != 0 || s.low != 0 {
		t.Errorf("beyond maxNest: depth %d low %d after as many closes as opens", s.n, s.low)
	}
}

// TestTerminate: readers' comments after a "Comments" mark are not the story
// (boilerpipe's terminating blocks), once the story has minStoryWords words.
func TestTerminate(t *testing.T) {
	menu := `<ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul>`
	story := storyPara + `<p>The mayor said that the cost of the work would be met by the city and that the ferry would be free to use for all of the residents while the bridge is closed.</p>`
	comment := `<p>I have used that ferry for years and it is always late, so I do not think that it will be able to take all of the traffic from the bridge.</p>`
	tests := []struct {
		name       string
		page       string
		want, drop []string
	}{
		{"comments after a Comments heading are dropped (econbrowser.com)",
			`<body>` + menu + story + `<h3>Comments</h3>` + comment + menu + `</body>`,
			[]string{"council", "mayor"}, []string{"always", "late"}},
		{"... after a count of comments",
			`<body>` + menu + story + `<div>12 comments</div>` + comment + menu + `</body>`,
			[]string{"council", "mayor"}, []string{"always", "late"}},
		{"... after the Chinese mark",
			`<body>` + menu + `<p>媒体称，新股发行被要求暂停。证监会邮件要求，已经缴款的退款，今晚七点前需将公告发给交易所。原披露的预计发行时间表将进行调整，网上申购资金下周解冻。</p><h3>网友评论</h3><p>这样的做法对于投资者来说是不公平的，我们希望证监会能够给出一个更加合理的解释。</p>` + menu + `</body>`,
			[]string{"媒", "冻"}, []string{"投", "释"}},
		{"a comments link above the story ends nothing",
			`<body>` + menu + `<div class="share"><a href="#c">3 comments</a></div>` + story + menu + `</body>`,
			[]string{"council", "mayor"}, []string{"home", "sport"}},
		{"a mark inside a block does not end the story (news.bbc.co.uk's Have Your Say)",
			`<body>` + menu + story + `<p>Send us your suggestions for Have Your Say debates</p>` + comment + menu + `</body>`,
			[]string{"council", "always"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkMainText(t, tc.page, tc.want, tc.drop) })
	}
}

// checkMainText checks that the main text of page holds every string of want
// and none of drop.
func checkMainText(t *testing.T, page string, want, drop []string) {
	t.Helper()
	got, _ := mainTextWords(t, page)
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%q dropped; kept %q", w, got)
		}
	}
	for _, w := range drop {
		if strings.Contains(got, w) {
			t.Errorf("%q kept; kept %q", w, got)
		}
	}
}
