package warcio

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite warcio/testdata from the recipes in testdata_test.go")

// testdataRecipes makes the files of testdata/: small broken and edge-case WARC
// and ARC files, each built by this package's Writer and then cut or edited the
// way real files are. TestTestdataRecipes checks the files against them, and
// with -update writes them.
var testdataRecipes = map[string]func(t testing.TB) []byte{
	// A crawler killed while writing: the second of two members is cut in half.
	"truncated-member.warc.gz": func(t testing.TB) []byte {
		m2 := record(t, true, 2, textPage(2))
		return cat(record(t, true, 1, textPage(1)), m2[:len(m2)/2])
	},
	// The file ends 50 bytes before the second record's block does.
	"truncated-block.warc": func(t testing.TB) []byte {
		r2 := record(t, false, 2, textPage(2))
		return cat(record(t, false, 1, textPage(1)), r2[:len(r2)-50])
	},
	"bad-content-length.warc": func(t testing.TB) []byte {
		b := textPage(2)
		r2 := bytes.Replace(record(t, false, 2, b), []byte("Content-Length: "+strconv.Itoa(len(b))),
			[]byte("Content-Length: "+strconv.Itoa(len(b))+"x"), 1)
		return cat(record(t, false, 1, textPage(1)), r2, record(t, false, 3, textPage(3)))
	},
	// The blank line that ends the second record's header is missing, so the
	// header runs on into the HTTP status line.
	"no-blank-line.warc": func(t testing.TB) []byte {
		r2 := bytes.Replace(record(t, false, 2, textPage(2)), []byte("\r\n\r\n"), []byte("\r\n"), 1)
		return cat(record(t, false, 1, textPage(1)), r2, record(t, false, 3, textPage(3)))
	},
	"junk-between-records.warc": func(t testing.TB) []byte {
		return cat(record(t, false, 1, textPage(1)), []byte("<html>not a record</html>\r\n"),
			record(t, false, 2, textPage(2)))
	},
	// The second record's block goes on in the next member (real files do this).
	"spanning-members.warc.gz": func(t testing.TB) []byte {
		r1, r2, r3 := record(t, false, 1, textPage(1)), record(t, false, 2, textPage(2)), record(t, false, 3, textPage(3))
		cut := len(r1) + len(r2) - 20
		plain := cat(r1, r2, r3)
		return gzipMembers(t, plain[:cut], plain[cut:])
	},
	// Each record's trailer in a member of its own: all four newlines, or the
	// last two.
	"crlf-member.warc.gz": func(t testing.TB) []byte {
		r1, r2 := record(t, false, 1, textPage(1)), record(t, false, 2, textPage(2))
		return gzipMembers(t, r1[:len(r1)-4], r1[len(r1)-4:], r2[:len(r2)-2], r2[len(r2)-2:])
	},
	// An empty member between records and one at the end (as .open files end).
	"empty-member.warc.gz": func(t testing.TB) []byte {
		return gzipMembers(t, record(t, false, 1, textPage(1)), nil, record(t, false, 2, textPage(2)), nil)
	},
	// A header of 1.2 MB (it compresses to about 2 KB), past the 1 MiB limit.
	"header-too-long.warc.gz": func(t testing.TB) []byte {
		h := testHeader(2)
		for range 20000 {
			h.Add("X-Padding", strings.Repeat("p", 50))
		}
		var long bytes.Buffer
		if err := NewWriter(&long, true).WriteRecord(h, textPage(2)); err != nil {
			t.Fatal(err)
		}
		return cat(record(t, true, 1, textPage(1)), long.Bytes(), record(t, true, 3, textPage(3)))
	},
	// The second record's block was changed after its digest was computed.
	"bad-digest.warc": func(t testing.TB) []byte {
		r2 := bytes.Replace(record(t, false, 2, textPage(2)), []byte("page 2"), []byte("page X"), 1)
		return cat(record(t, false, 1, textPage(1)), r2, record(t, false, 3, textPage(3)))
	},
	// gzip file.warc: one member holding every record.
	"whole-file.warc.gz": func(t testing.TB) []byte {
		return gzipMembers(t, cat(record(t, false, 1, textPage(1)), record(t, false, 2, textPage(2)),
			record(t, false, 3, textPage(3))))
	},
	// An ARC (version 1) file: the filedesc record, then two captures, each
	// header line "URL IP date type length" and records apart by a newline.
	"example.arc": func(t testing.TB) []byte {
		desc := "1 0 warcio tests\nURL IP-address Archive-date Content-type Archive-length\n"
		var b bytes.Buffer
		fmt.Fprintf(&b, "filedesc://example.arc 0.0.0.0 20260101000000 text/plain %d\n%s\n", len(desc), desc)
		for i := 1; i <= 2; i++ {
			body := textPage(i)
			fmt.Fprintf(&b, "http://a.example/%d 192.0.2.1 20260101000000 text/html %d\n%s\n", i, len(body), body)
		}
		return b.Bytes()
	},
	// Headers whose lines end in LF alone (wget and ClueWeb09 write them).
	"lf-only.warc": func(t testing.TB) []byte {
		var b bytes.Buffer
		for i := 1; i <= 2; i++ {
			body := textPage(i)
			fmt.Fprintf(&b, "WARC/1.0\nWARC-Type: response\nWARC-Record-ID: %s\nWARC-Date: 2026-01-01T00:00:00Z\n"+
				"WARC-Target-URI: http://a.example/%d\nContent-Type: application/http; msgtype=response\n"+
				"Content-Length: %d\n\n%s\n\n", testID(i), i, len(body), body)
		}
		return b.Bytes()
	},
}

// record returns record n with the given block as the Writer writes it.
func record(t testing.TB, gz bool, n int, block []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := NewWriter(&b, gz).WriteRecord(testHeader(n), block); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestTestdataRecipes checks that each file of testdata/ is what its recipe makes
// (go test -run TestTestdataRecipes -update rewrites them), so that the files
// and the descriptions above cannot drift apart.
func TestTestdataRecipes(t *testing.T) {
	for name, recipe := range testdataRecipes {
		path := filepath.Join("testdata", name)
		want := recipe(t)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its recipe (%d bytes, recipe makes %d): run go test -run TestTestdataRecipes -update", path, len(got), len(want))
		}
	}
}
