package sitekey_test

import (
	"fmt"

	"github.com/warcdedup/warcdedup/sitekey"
)

func ExampleOf() {
	for _, h := range []string{"www.cs.berkeley.edu", "news.bbc.co.uk", "bbc.co.uk:443", "WWW.Bücher.de", "[2001:db8::1]:8080"} {
		fmt.Println(sitekey.Of(h))
	}
	// Output:
	// cs.berkeley.edu
	// bbc.co.uk
	// bbc.co.uk
	// xn--bcher-kva.de
	// 2001:db8::1
}

func ExampleFromURL() {
	fmt.Println(sitekey.FromURL("http://www.cs.berkeley.edu/index.html"))
	// Output: cs.berkeley.edu
}
