package index

import (
	"strings"
	"testing"
)

func TestReadCDX(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Record // URI, Date, Digest, ID, File, Offset
		err      bool
	}{
		{"wget", ` CDX a b a m s k r M V g u
http://x.org/ 20240102030405 http://x.org/ text/html 200 MCABROTFXMRYMD3MFHT6TMSJYTF2JMFU - - 845 c1.warc.gz <urn:uuid:16bc2740-417a-402d-ac51-1ac946553c77>
http://x.org/robots.txt 20240102030405 http://x.org/robots.txt text/html 404 EYLOBZUVJB7A6T6F3XAYYV647FOOLBI2 - - 1875 c1.warc.gz <urn:uuid:14ed78ba-32a9-4e32-8949-2e233de6e03e>
`, []Record{{URI: "http://x.org/", Date: "2024-01-02T03:04:05Z", Digest: "sha1:MCABROTFXMRYMD3MFHT6TMSJYTF2JMFU",
			ID: "<urn:uuid:16bc2740-417a-402d-ac51-1ac946553c77>", File: "c1.warc.gz", Offset: 845}}, false},
		{"pywb cdxj, a revisit skipped", `org,x)/ 20240102030405 {"url": "http://x.org/", "mime": "text/html", "status": "200", "digest": "sha1:AAAA", "length": "900", "offset": "12", "filename": "a.warc.gz"}
org,x)/ 20240103030405 {"url": "http://x.org/", "mime": "warc/revisit", "status": "200", "digest": "sha1:AAAA", "offset": "999", "filename": "b.warc.gz"}
`, []Record{{URI: "http://x.org/", Date: "2024-01-02T03:04:05Z", Digest: "sha1:AAAA", File: "a.warc.gz", Offset: 12}}, false},
		{"a 17-digit timestamp (milliseconds, as Heritrix's logs)", `org,x)/ 20240102030405678 {"url": "http://x.org/", "status": "200", "digest": "sha1:AAAA"}
`, []Record{{URI: "http://x.org/", Date: "2024-01-02T03:04:05Z", Digest: "sha1:AAAA"}}, false},
		{"no legend", "http://x.org/ 20240102030405 x\n", nil, true},
		{"wrong field count", " CDX a b k\nhttp://x.org/ 2024\n", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []Record
			err := ReadCDX(strings.NewReader(tc.in), "test.cdx", func(r *Record) error { got = append(got, *r); return nil })
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d records, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.URI != w.URI || g.Date != w.Date || g.Digest != w.Digest || g.Computed != w.Digest || g.ID != w.ID ||
					g.File != w.File || g.Offset != w.Offset || !g.Bare || g.Page != nil {
					t.Errorf("record %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func FuzzReadCDX(f *testing.F) {
	f.Add(" CDX a b a m s k r M V g u\nhttp://x.org/ 20240102030405 http://x.org/ text/html 200 MCAB - - 845 c1.warc.gz <urn:uuid:1>\n")
	f.Add(`org,x)/ 2024 {"url": "http://x.org/", "status": 200, "digest": "AAAA"}`)
	f.Fuzz(func(t *testing.T, in string) {
		ReadCDX(strings.NewReader(in), "fuzz.cdx", func(r *Record) error {
			if r.URI == "" || r.Date == "" || !strings.Contains(r.Digest, ":") {
				t.Fatalf("incomplete record %+v", r)
			}
			return nil
		})
	})
}
