// Package sitekey maps a host name to the "site" that near-duplicate detection uses
// to tell same-site pairs (shared templates, boilerplate) from cross-site pairs.
//
// Henzinger (SIGIR 2006, Sec. 2 and 4) found that both shingling and simhash fail on
// same-site pairs and work across sites, and defined the site of a page as its host
// if the host has at most one dot, otherwise the host minus everything up to and
// including the first dot: www.cs.berkeley.edu -> cs.berkeley.edu.
//
// Taken literally that rule turns bbc.co.uk into co.uk and makes every British
// newspaper one site. Of therefore never returns less than the registrable domain
// (eTLD+1) from the public suffix list, private section included, so that
// news.bbc.co.uk and www.bbc.co.uk are both bbc.co.uk and two blogspot.com blogs are
// two sites. Hosts are compared in one form: lower case, no port, no trailing dot,
// IDNs in ASCII (punycode), IP literals in canonical form.
package sitekey

import (
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// idnaProfile maps Unicode host names to their ASCII (punycode) form the way a
// browser resolves them (UTS #46, non-transitional), so that bücher.de and
// xn--bcher-kva.de are one site. It is lenient about characters such as '_'
// that real crawls contain: a failure falls back to the lower-cased input.
var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))

// Of returns the site key of host (a host name, an IP literal, or either with a
// ":port"). It implements Henzinger's site rule (SIGIR 2006, Sec. 2) with a public
// suffix guard (see the package documentation). An empty or unparsable host gives "".
//
// www variants: www.example.com and example.com are both example.com, and
// www.bbc.co.uk and bbc.co.uk are both bbc.co.uk, because the rule drops the first
// label only above the registrable domain. Deeper hosts keep the paper's behaviour:
// www.cs.berkeley.edu is cs.berkeley.edu but cs.berkeley.edu is berkeley.edu.
func Of(host string) string {
	h := normalize(host)
	if h == "" {
		return ""
	}
	if a, err := netip.ParseAddr(h); err == nil {
		// An IP address is its own site: there is no hierarchy to climb.
		return a.Unmap().WithZone("").String()
	}
	first := strings.IndexByte(h, '.')
	if first < 0 || strings.IndexByte(h[first+1:], '.') < 0 {
		return h // at most one dot: the host is its own site
	}
	key := h[first+1:]
	reg, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		// h is itself a public suffix (co.uk, github.io): nothing registrable to
		// fall back to, so the whole host is the site.
		return h
	}
	if len(key) < len(reg) {
		// The rule cut into the public suffix (bbc.co.uk -> co.uk): keep eTLD+1.
		return reg
	}
	return key
}

// FromURL returns the site key (see Of) of the host of rawURL, or "" if rawURL has
// no host. A URL without a scheme ("example.com/a") is read as if it had one.
func FromURL(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err == nil && u.Host == "" && u.Scheme == "" && !strings.HasPrefix(rawURL, "/") {
		u, err = url.Parse("http://" + strings.TrimSpace(rawURL))
	}
	if err != nil || u.Host == "" {
		return ""
	}
	return Of(u.Host)
}

// normalize strips userinfo, port, brackets and the trailing dot, lower-cases and
// converts IDNs to ASCII. It returns "" for an empty host.
func normalize(host string) string {
	h := strings.TrimSpace(host)
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	switch {
	case strings.HasPrefix(h, "["):
		// [v6] or [v6]:port
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return ""
		}
		h = h[1:end]
	case strings.Count(h, ":") == 1:
		h = h[:strings.IndexByte(h, ':')]
	}
	if i := strings.IndexByte(h, '%'); i >= 0 && strings.Contains(h, ":") {
		h = h[:i] // IPv6 zone: a link-local detail, not part of the site
	}
	h = strings.TrimRight(h, ".")
	if h == "" {
		return ""
	}
	if isASCII(h) {
		return strings.ToLower(h)
	}
	// Lower-case first: the mapping step does not cover every upper-case letter
	// (found by FuzzOf with U+04C0), and the key must not depend on case.
	h = strings.ToLower(h)
	if a, err := idnaProfile.ToASCII(h); err == nil && a != "" {
		// UTS #46 maps the full-width and ideographic full stops (U+FF0E,
		// U+3002, U+FF61) to "." as label separators, so a trailing one is
		// a trailing dot only now (found by FuzzOf with "．").
		return strings.ToLower(strings.TrimRight(a, "."))
	}
	return h
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
