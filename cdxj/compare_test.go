package cdxj

// The independent check: warcio.js's "warcio cdx-index --format cdxj"
// (webrecorder/warcio.js, the indexer of ReplayWeb.page) indexes real WARC
// files of the shared folder and every line is compared with Index's.
//
// warcio.js is found through $WARCDEDUP_WARCIO_JS, the directory in which
// "npm install warcio" was run (it holds node_modules/warcio); .ci/run installs
// it there. Without node or that directory the test skips and says so.
//
// warcio.js follows pywb's CDXJ conventions with known differences, which are
// the only things normalized before comparing (see normalizeJS):
//
//   - It does not sort its lines: lines are matched by offset.
//   - Its JSON has no spaces and keeps non-ASCII characters; both sides are
//     parsed as JSON and compared field by field.
//   - Its key is a simpler SURT (utils.ts getSurt: the URL lowercased and
//     parsed by the WHATWG URL parser, "www" dropped, query arguments sorted as
//     whole strings): no trailing slash removal, no session-id removal, no
//     percent-escape normalization. Both keys are compared after knownSURT,
//     which undoes only those differences.
//   - It gives revisits the HTTP status of their stored head; pywb gives status
//     to response records only.
//   - It writes no "mime-detected" (WARC-Identified-Payload-Type).
//   - It writes no digest when a record has no WARC-Payload-Digest; pywb
//     computes the payload's SHA-1.
//   - A response with no Content-Type has no mime; pywb writes "unk".

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

// WarcioJSEnv names the directory holding node_modules/warcio.
const WarcioJSEnv = "WARCDEDUP_WARCIO_JS"

func warcioJS(t *testing.T) (node, cli string) {
	t.Helper()
	dir := os.Getenv(WarcioJSEnv)
	if dir == "" {
		t.Skipf("$%s not set (the directory where \"npm install warcio\" ran): comparison with warcio.js skipped", WarcioJSEnv)
	}
	cli = filepath.Join(dir, "node_modules", "warcio", "dist", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Skipf("warcio.js not installed in $%s=%s (%v): comparison skipped", WarcioJSEnv, dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: comparison with warcio.js skipped")
	}
	return node, cli
}

// cdxjLine is one parsed line.
type cdxjLine struct {
	key, ts string
	fields  map[string]string
}

func parseCDXJ(t *testing.T, out []byte) []cdxjLine {
	t.Helper()
	var ls []cdxjLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		l := sc.Text()
		if l == "" {
			continue
		}
		m := reLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is no CDXJ line", l)
		}
		key, ts, js := m[1], m[2], m[3]
		var raw map[string]any
		if err := json.Unmarshal([]byte(js), &raw); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		f := map[string]string{}
		for k, v := range raw {
			f[k] = fmt.Sprint(v)
		}
		ls = append(ls, cdxjLine{key, ts, f})
	}
	return ls
}

// reLine splits a line: the key may hold spaces (a file: URL), the timestamp
// may be empty (warcio.js on a record without WARC-Date).
var reLine = regexp.MustCompile(`^(.*) ([0-9]*) (\{.*\})$`)

// compareFile indexes path with both and returns the differences.
func compareFile(t *testing.T, node, cli, path string) (n int, diffs []string, err error) {
	var ours bytes.Buffer
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Index(f, filepath.Base(path), &ours); err != nil {
		return 0, nil, fmt.Errorf("cdxj: %v", err)
	}
	cmd := exec.Command(node, cli, "cdx-index", "--format", "cdxj", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	theirs, err := cmd.Output()
	if err != nil {
		return 0, nil, fmt.Errorf("warcio.js: %v: %s", err, firstLine(stderr.String()))
	}
	a, b := parseCDXJ(t, ours.Bytes()), parseCDXJ(t, theirs)
	byOffset := map[string]cdxjLine{}
	for _, l := range b {
		if l.key == "undefined" || l.fields["mime"] == "text/anvl" {
			continue // no WARC-Target-URI, or a Heritrix 1 metadata record: pywb writes no line
		}
		byOffset[l.fields["offset"]] = normalizeJS(l)
	}
	for _, l := range a {
		o := l.fields["offset"]
		js, ok := byOffset[o]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("offset %s: only in cdxj: %s %s %v", o, l.key, l.ts, l.fields))
			continue
		}
		delete(byOffset, o)
		l = normalizeOurs(l, js)
		if d := diffLine(l, js); d != "" {
			diffs = append(diffs, "offset "+o+": "+d)
		}
	}
	for o, l := range byOffset {
		diffs = append(diffs, fmt.Sprintf("offset %s: only in warcio.js: %s %s %v", o, l.key, l.ts, l.fields))
	}
	sort.Strings(diffs)
	return len(a), diffs, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "Error") {
			return l
		}
	}
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// normalizeJS undoes the known warcio.js differences on its side.
func normalizeJS(l cdxjLine) cdxjLine {
	if m, ok := l.fields["mime"]; ok {
		// warcio.js writes a non-HTTP record's Content-Type whole; pywb cuts it
		// at ';' or ' '.
		l.fields["mime"] = reMimeSplit.Split(m, 2)[0]
	}
	if l.fields["mime"] == "warc/revisit" {
		delete(l.fields, "status") // pywb: status for response records only
	}
	if u := l.fields["url"]; !isHTTPURL(u) {
		// warcio.js keys other schemes by the URL itself and parses any
		// response's block as HTTP; pywb makes a SURT and parses HTTP for
		// http(s) URLs only.
		l.key = ""
		delete(l.fields, "mime")
		delete(l.fields, "status")
	}
	l.key = knownSURT(l.key)
	return l
}

func isHTTPURL(u string) bool {
	u = strings.ToLower(u)
	return strings.HasPrefix(u, "http:") || strings.HasPrefix(u, "https:")
}

// normalizeOurs drops what pywb writes and warcio.js never does.
func normalizeOurs(l, js cdxjLine) cdxjLine {
	delete(l.fields, "mime-detected")
	if d := l.fields["digest"]; strings.Contains(d, ":") {
		// pywb strips only "sha1:"; warcio.js strips any algorithm's name.
		_, l.fields["digest"], _ = strings.Cut(d, ":")
	}
	if _, ok := js.fields["digest"]; !ok {
		delete(l.fields, "digest") // computed by pywb's rule when the record has none
	}
	if _, ok := js.fields["mime"]; !ok && l.fields["mime"] == "unk" {
		delete(l.fields, "mime")
	}
	if !isHTTPURL(l.fields["url"]) {
		l.key = ""
		delete(l.fields, "mime")
		delete(l.fields, "status")
	}
	l.key = knownSURT(l.key)
	return l
}

// knownSURT erases the known differences of the two SURT rules from a key,
// applied alike to both: the trailing slash of the path that only the surt
// package drops, and percent-escapes, which the surt package decodes (then
// escapes only bytes outside printable ASCII, '#' and '%') and warcio.js keeps
// as the WHATWG URL parser leaves them; query arguments are sorted again after
// that decoding.
func knownSURT(key string) string {
	path, query, hasQuery := strings.Cut(key, "?")
	if i := strings.Index(path, ")/"); i >= 0 && len(path) > i+2 {
		path = strings.TrimSuffix(path, "/")
	}
	path = strings.ToLower(string(escapeOnce(unescapeRepeatedly([]byte(path)))))
	if !hasQuery {
		return path
	}
	query = strings.ToLower(string(escapeOnce(unescapeRepeatedly([]byte(query)))))
	args := strings.Split(query, "&")
	sort.Strings(args)
	return path + "?" + strings.Join(args, "&")
}

func diffLine(a, b cdxjLine) string {
	var d []string
	if a.key != b.key {
		d = append(d, fmt.Sprintf("key %q, warcio.js %q", a.key, b.key))
	}
	if a.ts != b.ts {
		d = append(d, fmt.Sprintf("timestamp %q, warcio.js %q", a.ts, b.ts))
	}
	names := map[string]bool{}
	for k := range a.fields {
		names[k] = true
	}
	for k := range b.fields {
		names[k] = true
	}
	var keys []string
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if a.fields[k] != b.fields[k] {
			d = append(d, fmt.Sprintf("%s %q, warcio.js %q", k, a.fields[k], b.fields[k]))
		}
	}
	return strings.Join(d, "; ")
}

// sharedWARCs lists the WARC and ARC files of the shared folder.
func sharedWARCs(t *testing.T) []string {
	root := testshared.WARCs(t)
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n := d.Name()
		if strings.Contains(n, ".warc") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// excluded are the shared files where the two indexers are known to disagree,
// by path prefix inside the shared warcs folder, with the reason.
var excluded = map[string]string{
	"webrecorder+pywb/sample_archive/warcs/missing-status-text.warc":                                                 "warcio.js reads no status from a status line without reason phrase; pywb reads 302",
	"ukwa+webarchive-discovery/warc-indexer/src/test/resources/truncated_datetime.warc":                              "WARC-Date without seconds: pywb's timestamp reads it as 20190815010200, warcio.js cuts 12 digits",
	"webrecorder+pywb/sample_archive/warcs/example-extra.warc":                                                       "a request with method GETX: warcio.js adds __wb_post_data= to the key, pywb only __wb_method; and records end in LF LF (see books.toscrape.warc)",
	"webrecorder+pywb/sample_archive/warcs/example.warc":                                                             "a record's block is longer than its Content-Length: warcdedup's reader stops at the bytes left (pywb stops as well)",
	"ukwa+webarchive-discovery/warc-indexer/src/test/resources/IAH-20080430204825-00000-blackbook-truncated.warc.gz": "one WARC/0.17 response where warcio.js reads no HTTP head (see example.warc.gz)",
	"richardlehane+webarchive/examples/jhove/valid/valid-warcfile-upper-lower-case.warc":                             "WARC field names and values in upper case (DNS:WWW.ARCHIVE.ORG): the two read record boundaries differently; not investigated further",
	"richardlehane+webarchive/examples/jhove/valid/valid-warcfile-fields-continuation.warc":                          "a WARC header field folded over two lines (valid): warcio.js writes no line for the record",
	"webrecorder+warcio/test/data/example-trunc.warc":                                                                "truncated record: warcdedup's reader stops there",
	"webrecorder+warcio/test/data/example-wrong-chunks.warc.gz":                                                      "several records share a gzip member (see good.warc.gz.open)",
	"webrecorder+warcio/test/data/example-bad":                                                                       "several records share gzip members (see good.warc.gz.open)",
	"ukwa+webarchive-discovery/warc-indexer/src/test/resources/IAH-20080430204825-00000-blackbook-truncated.warc":    "WARC/0.17 responses where warcio.js reads no HTTP head (see example.warc.gz); in the plain file a record that does not end in CR LF CR LF moves warcio.js's offsets by 11 bytes",
	"richardlehane+webarchive/examples/jhove/invalid/":                                                               "deliberately malformed conformance files (missing Content-Length, bad version lines, bad digests): each reader stops or recovers in its own way",
	"internetarchive+gowarc/testdata/warcs/corrupted-":                                                               "damaged gzip member: cdxj stops there as pywb does (Options.Lenient skips it)",
	"chatnoir-eu+chatnoir-resiliparse/tests/data/clipped.warc.gz":                                                    "truncated gzip member: cdxj stops there as pywb does",
	"internetarchive+gowarc/testdata/warcs/good.warc.gz.open":                                                        "several records share gzip members: no offset addresses them, and the two give different ones",
	"internetarchive+gowarc/testdata/warcs/skip-non-open.warc.gz":                                                    "several records share gzip members: no offset addresses them, and the two give different ones",
	"N0taN3rd+node-warc/test/files/books.toscrape.warc":                                                              "records end in LF LF, not CR LF CR LF: cdxj's length of a record in an uncompressed file leaves out 4 bytes only after CR LF CR LF, so it is 2 bytes longer",
	"archivesunleashed+aut/src/test/resources/warc/example.warc.gz":                                                  "14 of 299 lines: warcio.js reads no HTTP head in some WARC/0.17 responses (mime becomes the record's Content-Type, no status) although the head is well formed (e.g. offset 1274027, robots.txt, text/plain 200)",
	"iipc+webarchive-commons/src/test/resources/org/archive/resource/html/link-extraction-test.warc":                 "a record's Content-Length disagrees with its bytes: the two readers find different record boundaries after it",
}

func excludedReason(rel string) string {
	for p, why := range excluded {
		rel := filepath.ToSlash(rel)
		if rel == p || (strings.HasPrefix(rel, p) && !strings.HasSuffix(p, ".warc")) {
			return why
		}
	}
	return ""
}

// TestCompareWarcioJS indexes every WARC file of the shared folder with Index
// and with warcio.js and fails on any difference in a file not excluded.
func TestCompareWarcioJS(t *testing.T) {
	node, cli := warcioJS(t)
	root := testshared.WARCs(t)
	agree, lines := 0, 0
	for _, p := range sharedWARCs(t) {
		rel, _ := filepath.Rel(root, p)
		if strings.HasSuffix(p, ".lz4") {
			continue // LZ4 frames: neither reads them
		}
		n, diffs, err := compareFile(t, node, cli, p)
		why := excludedReason(rel)
		switch {
		case err == nil && len(diffs) == 0:
			agree++
			lines += n
			if why != "" && !strings.Contains(why, "conformance files") {
				t.Errorf("%s: excluded (%s) but agrees now: remove it from the list", rel, why)
			}
		case why != "":
			t.Logf("%s: excluded: %s", rel, why)
		case err != nil:
			t.Errorf("%s: %v", rel, err)
		default:
			t.Errorf("%s: %d lines, %d differ from warcio.js", rel, n, len(diffs))
			for i, d := range diffs {
				if i == 5 {
					break
				}
				t.Logf("    %s", d)
			}
		}
	}
	t.Logf("%d files agree with warcio.js line for line (%d lines)", agree, lines)
}
