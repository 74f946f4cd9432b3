package review

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/warcdedup/warcdedup/warcio"
)

// maxBody bounds the payload bytes read from a record for its text.
const maxBody = 4 << 20

// skipTags hold no text a reader sees as the page's content: code, forms and
// the page's furniture.
var skipTags = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "svg": true,
	"head": true, "nav": true, "header": true, "footer": true, "aside": true,
	"form": true, "select": true, "button": true, "iframe": true, "object": true,
	"canvas": true, "math": true, "textarea": true,
}

// blockTags end a block of text.
var blockTags = map[string]bool{
	"p": true, "div": true, "br": true, "li": true, "ul": true, "ol": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"tr": true, "td": true, "th": true, "table": true, "section": true,
	"article": true, "main": true, "blockquote": true, "pre": true, "dd": true,
	"dt": true, "dl": true, "figcaption": true, "figure": true, "hr": true,
	"body": true, "html": true, "title": true, "address": true,
}

// VisibleText returns a page's main text, a block a line: the text a browser
// shows, without scripts, styles, forms and the page's furniture (nav,
// header, footer, aside), and without blocks that are mostly link text
// (menus, link lists). body is the decoded entity body, contentType its
// Content-Type (it names the charset; "" lets the page's <meta> or a guess
// decide). It is a minimal extraction of its own, not what package features
// computes signatures from: features does not export its main-text blocks.
func VisibleText(body []byte, contentType string) string {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		r = bytes.NewReader(body)
	}
	z := html.NewTokenizer(r)
	var out strings.Builder
	var block strings.Builder
	linked, total := 0, 0
	skip, link := 0, 0
	flush := func() {
		t := strings.Join(strings.Fields(block.String()), " ")
		block.Reset()
		if t != "" && (linked*2 <= total || total == 0) {
			out.WriteString(t)
			out.WriteByte('\n')
		}
		linked, total = 0, 0
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			flush()
			return strings.TrimRight(out.String(), "\n")
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if skipTags[tag] {
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
				continue
			}
			if tag == "a" {
				if tt == html.StartTagToken {
					link++
				} else if tt == html.EndTagToken && link > 0 {
					link--
				}
			}
			if blockTags[tag] {
				flush()
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			t := z.Text()
			n := len(bytes.Fields(t))
			total += n
			if link > 0 {
				linked += n
			}
			block.Write(t)
			block.WriteByte(' ')
		}
	}
}

// WARCTexts reads the visible texts (VisibleText) of the response records
// with the given IDs from WARC files, cut to maxText bytes each (0: no cut),
// and returns them as a Options.Texts function. A path that is a directory
// stands for the files in it. A file that does not exist is looked for by its
// base name among the other paths' directories (a report names its inputs as
// they were given, relative to where warcdedup ran); one still missing is
// skipped, and so is a record not found. Reading stops once every record has
// been found. The error is the first file that could not be read.
func WARCTexts(paths []string, ids []string, maxText int) (func(recordID string) (string, bool), error) {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	texts := map[string]string{}
	lookup := func(id string) (string, bool) {
		t, ok := texts[id]
		return t, ok
	}
	files := expand(paths)
	for _, f := range files {
		if len(texts) == len(want) {
			break
		}
		if err := readTexts(f, want, texts, maxText); err != nil {
			return lookup, err
		}
	}
	return lookup, nil
}

// Files returns the files WARCTexts reads for paths: those a caller must
// not write over while the texts are read.
func Files(paths []string) []string { return expand(paths) }

// Missing returns the paths that WARCTexts finds neither where they point
// nor by base name in the other paths' directories: their records' texts
// are not shown.
func Missing(paths []string) []string {
	found := map[string]bool{}
	for _, f := range expand(paths) {
		found[filepath.Base(f)] = true
	}
	var missing []string
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil && !found[filepath.Base(p)] {
			missing = append(missing, p)
		}
	}
	return missing
}

// expand turns paths into a list of files: directories give the files in
// them, missing files are looked for by base name in the directories of the
// others; each file appears once.
func expand(paths []string) []string {
	var dirs []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		} else if err == nil {
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	var files []string
	seen := map[string]bool{}
	add := func(f string) {
		if abs, err := filepath.Abs(f); err == nil {
			if seen[abs] {
				return
			}
			seen[abs] = true
		}
		files = append(files, f)
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			ents, _ := os.ReadDir(p)
			for _, e := range ents {
				if e.Type().IsRegular() && isWARCName(e.Name()) {
					add(filepath.Join(p, e.Name()))
				}
			}
		case err == nil:
			add(p)
		default:
			for _, d := range dirs {
				c := filepath.Join(d, filepath.Base(p))
				if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
					add(c)
					break
				}
			}
		}
	}
	return files
}

func isWARCName(n string) bool {
	n = strings.ToLower(n)
	return strings.HasSuffix(n, ".warc") || strings.HasSuffix(n, ".warc.gz") ||
		strings.HasSuffix(n, ".arc") || strings.HasSuffix(n, ".arc.gz")
}

// readTexts reads the texts of the wanted records of one file into texts.
func readTexts(file string, want map[string]bool, texts map[string]string, maxText int) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	r := warcio.NewReader(f, file)
	r.Lenient = true
	for len(texts) < len(want) {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		id := rec.ID()
		if !want[id] || !strings.EqualFold(rec.Type(), "response") {
			continue
		}
		if _, done := texts[id]; done {
			continue
		}
		p, err := warcio.ReadPayload(r, func(*warcio.HTTPResponse) int { return maxBody })
		if err != nil {
			continue // not an HTTP response: no page text
		}
		body, _ := p.Decode(maxBody)
		t, _ := truncate(VisibleText(body, p.HTTP.Get("Content-Type")), maxText)
		texts[id] = t
	}
	return nil
}
