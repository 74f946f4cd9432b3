package cdxj

import (
	"bytes"
	"strings"
	"testing"
)

// Cases from the surt package's tests (tests/test_surt.py, test_surt and the
// parametrized cases with default options), which come from Internet Archive's
// WaybackURLKeyMakerTest.java.
var surtCases = []struct{ in, want string }{
	{"", "-"},
	{"filedesc:foo.arc.gz", "filedesc:foo.arc.gz"},
	{"filedesc:/foo.arc.gz", "filedesc:/foo.arc.gz"},
	{"filedesc://foo.arc.gz", "filedesc://foo.arc.gz"},
	{"warcinfo:foo.warc.gz", "warcinfo:foo.warc.gz"},
	{"dns:alexa.com", "dns:alexa.com"},
	{"dns:archive.org", "dns:archive.org"},
	{"http://www.archive.org/", "org,archive)/"},
	{"http://archive.org/", "org,archive)/"},
	{"http://archive.org/goo/", "org,archive)/goo"},
	{"http://archive.org/goo/?", "org,archive)/goo"},
	{"http://archive.org/goo/?b&a", "org,archive)/goo?a&b"},
	{"http://archive.org/goo/?a=2&b&a=1", "org,archive)/goo?a=1&a=2&b"},
	{"http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221", "org,archive)/index.php?action=profile;u=4221"},
	{"whois://whois.isoc.org.il/shaveh.co.il", "il,org,isoc,whois)/shaveh.co.il"},
	{"http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2",
		"com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2"},
	{"mailto:foo@example.com", "mailto:foo@example.com"},
	{"http://www.example.com/", "com,example)/"},
	{"ftp://www.example.com/", "com,example)/"},
	{"http://example.com/app?item=Wroc%C5%82aw", "com,example)/app?item=wroc%c5%82aw"},
	{"http://192.168.1.254/info/", "254,1,168,192)/info"},
	// Further rules of the Google and IA canonicalizers.
	{"http://WWW2.Example.COM:80/A/./b/../C//d.html#frag", "com,example)/a/c/d.html"},
	{"https://example.com:443/", "com,example)/"},
	{"https://example.com:8443/x", "com,example:8443)/x"},
	{"http://user:pass@example.com/", "com,example)/"},
	{"http://3279880203/blah", "11,0,127,195)/blah"},
	{"http://example.com/%2541", "com,example)/a"},
	{"http://example.com/a b", "com,example)/a%20b"},
	{"http://bücher.example/", "example,xn--bcher-kva)/"},
	{"http:////www.vikings.com", "com,vikings)/"},
	{"http://https://order.1and1.com", "com,1and1,order)/"},
	{"example.com/path", "com,example)/path"},
	{"http://example.com/?a=1&a", "com,example)/?a&a=1"},
	{"http://example.com/x?jsessionid=0123456789abcdefghijklmnopqrstuv", "com,example)/x"},
}

func TestSURT(t *testing.T) {
	for _, c := range surtCases {
		if got := SURT(c.in); got != c.want {
			t.Errorf("SURT(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzSURT(f *testing.F) {
	for _, c := range surtCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, u string) {
		k := SURT(u)
		if k == "" {
			t.Fatalf("SURT(%q) is empty", u)
		}
		if strings.HasPrefix(u, "filedesc") {
			return
		}
		// A key is one token of a CDXJ line: no line break, and no space
		// unless the URL had one (a space survives only inside filedesc).
		if strings.ContainsAny(k, "\r\n\t ") {
			t.Fatalf("SURT(%q) = %q holds white space", u, k)
		}
		if again := SURT("http://" + strings.TrimPrefix(k, "http://")); again == "" {
			t.Fatalf("SURT of a key is empty")
		}
	})
}

func FuzzIndex(f *testing.F) {
	f.Add([]byte(testWARC(false)))
	f.Add([]byte(testWARC(true)))
	f.Add([]byte("WARC/1.0\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var out bytes.Buffer
		IndexWith(bytes.NewReader(b), "f.warc", &out, Options{Lenient: true})
		Index(bytes.NewReader(b), "f.warc", &out)
	})
}
