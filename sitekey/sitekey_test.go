package sitekey

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		host, want string
	}{
		// Henzinger, SIGIR 2006, Sec. 2: the paper's own example.
		{"www.cs.berkeley.edu", "cs.berkeley.edu"},
		{"cs.berkeley.edu", "berkeley.edu"},
		// At most one dot: the host is its own site.
		{"example.com", "example.com"},
		{"localhost", "localhost"},
		{"www.example.com", "example.com"},
		{"www2.example.com", "example.com"},
		// Public suffix guard: never co.uk.
		{"bbc.co.uk", "bbc.co.uk"},
		{"www.bbc.co.uk", "bbc.co.uk"},
		{"news.bbc.co.uk", "bbc.co.uk"},
		{"a.news.bbc.co.uk", "news.bbc.co.uk"},
		{"www.smh.com.au", "smh.com.au"},
		{"co.uk", "co.uk"},
		// Private section of the list: each blog is its own site.
		{"alice.blogspot.com", "alice.blogspot.com"},
		{"bob.blogspot.com", "bob.blogspot.com"},
		{"www.alice.blogspot.com", "alice.blogspot.com"},
		// Case, port, trailing dot, userinfo.
		{"WWW.Example.COM", "example.com"},
		{"www.example.com:8080", "example.com"},
		{"www.example.com.", "example.com"},
		{"news.bbc.co.uk.:443", "bbc.co.uk"},
		{"user:pw@www.example.com:80", "example.com"},
		{"  www.example.com  ", "example.com"},
		// IP literals are their own site.
		{"192.168.1.20", "192.168.1.20"},
		{"192.168.1.20:8080", "192.168.1.20"},
		{"[2001:DB8::1]:443", "2001:db8::1"},
		{"2001:db8::1", "2001:db8::1"},
		{"[2001:db8:0:0:0:0:0:1]", "2001:db8::1"},
		{"[fe80::1%eth0]", "fe80::1"},
		{"::ffff:10.0.0.1", "10.0.0.1"},
		// IDNs: Unicode and punycode forms give the same key.
		{"www.bücher.de", "xn--bcher-kva.de"},
		{"www.xn--bcher-kva.de", "xn--bcher-kva.de"},
		// Full-width and ideographic full stops separate labels (UTS #46),
		// trailing ones too.
		{"www．example。com．", "example.com"},
		{"．", ""},
		{"WWW.BÜCHER.DE", "xn--bcher-kva.de"},
		{"news.例え.jp", "xn--r8jz45g.jp"},
		{"news.xn--r8jz45g.jp", "xn--r8jz45g.jp"},
		// Odd but real host names.
		{"my_host.example.com", "example.com"},
		{"", ""},
		{":80", ""},
		{"[::1", ""},
	}
	for _, tt := range tests {
		if got := Of(tt.host); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

func TestFromURL(t *testing.T) {
	tests := []struct {
		url, want string
	}{
		{"http://www.cs.berkeley.edu/index.html", "cs.berkeley.edu"},
		{"https://news.bbc.co.uk:443/2/hi/uk_news/123.stm", "bbc.co.uk"},
		{"HTTP://WWW.BBC.CO.UK/news", "bbc.co.uk"},
		{"http://[2001:db8::1]:8080/x", "2001:db8::1"},
		{"www.example.com/a/b", "example.com"},
		{"/relative/path", ""},
		{"", ""},
		{"http://", ""},
	}
	for _, tt := range tests {
		if got := FromURL(tt.url); got != tt.want {
			t.Errorf("FromURL(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

// FuzzOf checks that Of never panics, is idempotent (a key is its own key's key up to
// the Henzinger step, which may climb once more) and never returns a bare public suffix
// for a registrable input.
func FuzzOf(f *testing.F) {
	for _, s := range []string{"www.cs.berkeley.edu", "bbc.co.uk", "[::1]:80", "bücher.de", "a..b", ".", "x:y:z", "1.2.3.4:5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		k := Of(host)
		if k != strings.ToLower(k) && isASCII(k) {
			t.Fatalf("Of(%q) = %q is not lower case", host, k)
		}
		if strings.HasSuffix(k, ".") {
			t.Fatalf("Of(%q) = %q ends in a dot", host, k)
		}
		// The key of a key is the key or one level up, never longer. Only for
		// ASCII keys: a host that is not a valid IDN is kept as given.
		if k2 := Of(k); isASCII(k) && len(k2) > len(k) {
			t.Fatalf("Of(Of(%q)) = %q longer than %q", host, k2, k)
		}
	})
}
