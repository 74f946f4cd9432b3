package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/unicode/norm"

	"github.com/warcdedup/warcdedup/warcio"
)

func nfc(words []string) []string {
	if words == nil {
		return nil
	}
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = norm.NFC.String(w)
	}
	return out
}

var (
	storyBridge = []string{
		"The city council voted on Monday evening to close the old river bridge for at least eight months, after engineers found cracks in two of the supporting piers during a routine inspection in the spring.",
		"Drivers will be sent along the ring road, which the transport department expects to carry about twelve thousand more vehicles a day while the work goes on. Buses on the three routes that cross the bridge will be diverted as well.",
		"The mayor said the repairs were long overdue and that the council had set aside money for them two years ago, but that the contract had been delayed by a dispute over the design of the new deck.",
		"Shop owners on both sides of the river said they feared losing customers during the closure and asked the council to put up signs telling visitors that their businesses remain open.",
	}
	storyFrog = []string{
		"A team of biologists working in the cloud forest has described a new species of frog that is smaller than a fingernail and lives in the leaf litter on the forest floor.",
		"The researchers first heard its call, a high whistle repeated every few seconds, and needed three nights of searching with head torches before they found a single adult among the wet leaves.",
		"Its skin is brown with two thin orange stripes, which the team says helps it to hide from birds and spiders. The females lay only two eggs at a time, which hatch directly into tiny frogs.",
		"The scientists warn that the forest where it lives is being cleared for pasture and that the frog may already be endangered, although nobody yet knows how many of them there are.",
	}
	storyZh = []string{
		"市政府周一宣布，将从下个月起对老城区的三条主要道路进行为期半年的改造，改造期间部分公交线路将临时调整，市民出行需要提前规划路线。",
		"交通部门负责人表示，这次改造的重点是更换地下排水管道和重新铺设路面，以解决每年雨季积水严重的问题，预计工程总投资约为两亿元。",
		"沿街的商户对工程表示理解，但也希望政府能够加快施工进度，并在施工期间设置明显的指示牌，方便顾客找到店铺的入口。",
		"据了解，工程完工后，这三条道路将增加非机动车道和绿化带，步行环境也会得到明显改善，附近居民对此普遍表示欢迎。",
	}
)

// storyPage puts a story's paragraphs into a page of a site: its navigation,
// a sidebar of links, a footer.
func storyPage(site, title string, story []string, nav []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>%s - %s</title></head><body>", title, site)
	b.WriteString("<header><nav><ul>")
	for _, n := range nav {
		fmt.Fprintf(&b, "<li><a href=\"/%s\">%s</a></li>", strings.ToLower(n), n)
	}
	b.WriteString("</ul></nav></header><main><article>")
	fmt.Fprintf(&b, "<h1>%s</h1>", title)
	for _, p := range story {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	b.WriteString("</article></main><aside><h3>Most read</h3><ul>")
	for i, n := range nav {
		fmt.Fprintf(&b, "<li><a href=\"/story/%d\">%s: the latest from %s</a></li>", i, n, site)
	}
	fmt.Fprintf(&b, "</ul></aside><footer><p>Copyright %s. All rights reserved. Privacy policy. Terms of use. Contact us.</p></footer></body></html>", site)
	return b.String()
}

// TestAnchorEndToEnd writes a small labelled WARC (one story in two sites'
// frames, another story in the first site's frame, a Chinese story in GBK and
// in UTF-8 on two sites) and runs the anchor over it: main text, shingles,
// MinHash-LSH, scored by EvaluatePairs.
func TestAnchorEndToEnd(t *testing.T) {
	navA := []string{"Home", "World", "Business", "Sport", "Weather", "Opinion"}
	navB := []string{"News", "Local", "Politics", "Culture", "Travel", "Jobs", "Cars"}
	navZ := []string{"首页", "新闻", "财经", "体育", "娱乐"}
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(strings.Replace(storyPage("新闻网", "老城区道路改造", storyZh, navZ), "utf-8", "gbk", 1))
	if err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		uri, ctype, body, cluster string
	}{
		{"http://www.daily-a.example/news/bridge", "text/html; charset=utf-8", storyPage("Daily A", "Bridge to close", storyBridge, navA), "bridge"},
		{"http://www.courier-b.example/local/2024/bridge-closure", "text/html", storyPage("Courier B", "Bridge to close for repairs", storyBridge, navB), "bridge"},
		{"http://www.daily-a.example/science/frog", "text/html; charset=utf-8", storyPage("Daily A", "Tiny frog found", storyFrog, navA), "frog"},
		{"http://news.zh-c.example/a/1.html", "text/html; charset=gbk", gbk, "zh"},
		{"http://www.zh-d.example/roads.html", "text/html; charset=utf-8", storyPage("城市日报", "老城区道路改造", storyZh, navZ), "zh"},
	}
	dir := t.TempDir()
	name := "e2e.warc.gz"
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w := warcio.NewWriter(bw, true)
	var ls []Label
	when := crawlStart
	for i, p := range pages {
		id := recordID(9, "e2e", i)
		if err := writeResponse(w, id, p.uri, when, p.ctype, []byte(p.body)); err != nil {
			t.Fatal(err)
		}
		ls = append(ls, Label{RecordID: id, URI: p.uri, File: name, Index: i, Cluster: p.cluster, Site: strings.SplitN(p.uri, "/", 4)[2]})
		when = when.Add(time.Second)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	a, err := LoadAnchor(dir, ls)
	if err != nil {
		t.Fatal(err)
	}
	if a.Failed != 0 || a.Unsigned != 0 {
		t.Errorf("%d pages without text, %d unsigned", a.Failed, a.Unsigned)
	}
	// The main text is the story: no navigation, sidebar or footer.
	for i, text := range a.Texts {
		for _, frame := range []string{"Opinion", "Most read", "All rights reserved", "the latest from", "娱乐"} {
			if strings.Contains(text, frame) {
				t.Errorf("page %d: main text holds the frame's %q:\n%s", i, frame, text)
			}
		}
	}
	if !strings.Contains(a.Texts[3], "地下排水管道") {
		t.Errorf("the GBK page was not decoded: %q", a.Texts[3])
	}
	if j := SetJaccard(a.Sets[0], a.Sets[1]); j < 0.8 {
		t.Errorf("one story in two frames: jaccard %.3f", j)
	}
	if j := SetJaccard(a.Sets[3], a.Sets[4]); j < 0.8 {
		t.Errorf("one Chinese story in two frames and charsets: jaccard %.3f", j)
	}
	rs, err := Compare(ls, nil, AnchorMethods(a.Sets))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if !r.Operating {
			continue
		}
		if c := *r.Score.Pairs[GroupAll]; c != (Counts{TP: 2}) {
			t.Errorf("%s at %v: %+v, want the 2 true pairs only", r.Method, r.Threshold, c)
		}
	}
	if a.ExtractCPU <= 0 {
		t.Errorf("extraction CPU time %v", a.ExtractCPU)
	}
}

func TestToUTF8(t *testing.T) {
	gbk, _ := simplifiedchinese.GBK.NewEncoder().String("<p>北京</p>")
	tests := []struct {
		name, body, ctype, want string
	}{
		{"header charset", gbk, "text/html; charset=gb2312", "<p>北京</p>"},
		{"meta charset", `<meta charset="gbk">` + gbk, "text/html", `<meta charset="gbk"><p>北京</p>`},
		{"valid UTF-8", "<p>北京</p>", "", "<p>北京</p>"},
		{"latin-1 without a declaration", "caf\xe9", "text/html", "café"},
		{"UTF-16 named for ASCII bytes", "<p>x</p>", "text/html; charset=utf-16", "<p>x</p>"},
	}
	for _, tt := range tests {
		if got := string(toUTF8([]byte(tt.body), tt.ctype)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
