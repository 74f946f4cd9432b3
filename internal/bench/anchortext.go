package bench

import (
	"bytes"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"time"

	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/text/encoding/htmlindex"
)

// mainTextOptions are trafilatura's settings in datatrove's Trafilatura
// extractor as FineWeb runs it: favour precision, no comments, repeated
// segments removed, and the fallback extractors (readability, DOM distiller)
// on, trafilatura's default. Publication dates are not looked for: only
// metadata, not the text, depends on them.
func mainTextOptions(pageURL string) trafilatura.Options {
	opts := trafilatura.Options{
		Focus:           trafilatura.FavorPrecision,
		ExcludeComments: true,
		Deduplicate:     true,
		EnableFallback:  true,
		HtmlDateMode:    trafilatura.Disabled,
	}
	if u, err := url.Parse(pageURL); err == nil && u.Host != "" {
		opts.OriginalURL = u
	}
	return opts
}

// MainText is the page's main text by trafilatura (go-trafilatura, a port of
// the Python trafilatura that datatrove runs), "" when it finds none. The
// body is decoded to UTF-8 first: by the charset of contentType, else as the
// page declares (detectCharset: a BOM or <meta>, else UTF-8 when valid, else
// windows-1252).
func MainText(body []byte, contentType, pageURL string) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("trafilatura: %v", r)
		}
	}()
	res, err := trafilatura.Extract(bytes.NewReader(toUTF8(body, contentType)), mainTextOptions(pageURL))
	if err != nil {
		return "", err
	}
	return res.ContentText, nil
}

// toUTF8 decodes body by the charset of contentType or, without one, by
// detectCharset. A header naming UTF-16 for a body without a UTF-16 byte
// order mark is not believed (detectCharset decides).
func toUTF8(body []byte, contentType string) []byte {
	cs := pageCharset{}
	if _, params, err := mime.ParseMediaType(contentType); err == nil && params["charset"] != "" {
		if _, err := htmlindex.Get(params["charset"]); err == nil {
			cs = named(params["charset"], true)
		}
	}
	if cs.enc == nil || strings.HasPrefix(cs.name, "utf-16") {
		cs = detectCharset(body)
	}
	if cs.name == "utf-8" {
		return body
	}
	u, err := cs.enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return u
}

// AnchorDocs are the anchor's pages: main text and shingle set of each page,
// in label order, and the CPU time of the two stages.
type AnchorDocs struct {
	Texts []string
	Sets  [][]uint64
	// Failed counts pages trafilatura gave no text for (an error or nothing
	// found), Unsigned pages with fewer than ShingleWords words.
	Failed, Unsigned int
	// ExtractCPU is the CPU time of decoding and trafilatura, ShingleCPU of
	// normalizing and shingling (reading the WARCs is in neither).
	ExtractCPU, ShingleCPU time.Duration
}

// LoadAnchor extracts the main text and shingles of every labeled response
// in the benchmark folder dir, one page after another (so that the CPU times
// are the stages' own).
func LoadAnchor(dir string, ls []Label) (*AnchorDocs, error) {
	a := &AnchorDocs{Texts: make([]string, len(ls)), Sets: make([][]uint64, len(ls))}
	err := eachResponse(dir, ls, func(i int, body []byte, ctype string) {
		t0 := CPUTime()
		text, err := MainText(body, ctype, ls[i].URI)
		t1 := CPUTime()
		if err != nil || text == "" {
			a.Failed++
		}
		a.Texts[i] = text
		a.Sets[i] = Shingles(text, ShingleWords)
		if len(a.Sets[i]) == 0 {
			a.Unsigned++
		}
		a.ExtractCPU += t1 - t0
		a.ShingleCPU += CPUTime() - t1
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}
