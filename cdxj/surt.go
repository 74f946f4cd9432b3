package cdxj

import (
	"bytes"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/warcdedup/warcdedup/internal/hexdigit"
	"golang.org/x/net/idna"
)

// SURT returns the index key of url as pywb computes it with the surt package
// (surt.surt with its defaults: DefaultIAURLCanonicalizer, no scheme, no
// trailing comma). That is the Google canonicalization (fragment dropped,
// percent-escapes decoded repeatedly and then only bytes outside printable
// ASCII, '#' and '%' escaped again, dot segments and repeated slashes of the
// path removed, numeric IPv4 hosts normalized, non-ASCII hosts in IDNA form)
// followed by the Internet Archive one (host lowercased and a leading
// "www", "www2"... label dropped, user and password dropped, default port
// dropped, path and query lowercased, session ids dropped, a trailing slash
// dropped unless the path is "/", an empty query dropped, query arguments
// sorted), written with the host labels reversed and joined by commas before
// ")": "http://www.Example.com/a/?b=1&a=2" gives "com,example)/a?a=2&b=1".
//
// An empty url gives "-", and one starting with "filedesc" is returned as it
// is, as the surt package does. Where the surt package would raise an exception
// (a port that is no number or out of range), pywb stops indexing; SURT drops
// the port instead.
func SURT(url string) string {
	if url == "" {
		return "-"
	}
	if strings.HasPrefix(url, "filedesc") {
		return url
	}
	h := parseHandyURL([]byte(url))
	googleCanonicalize(h)
	iaCanonicalize(h)
	return string(h.surtKey())
}

// handyURL is the surt package's handyurl: the parts of a URL as bytes, nil
// for an absent part.
type handyURL struct {
	scheme, host, path, query, hash []byte
	port                            int // 0: none
}

var (
	reMultipleProtocols = regexp.MustCompile(`^(https?://)+`)
	reHasProtocol       = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+\-.]*:`)
	// The surt package's variant of the RFC 2396 Appendix B expression.
	reRFC2396 = regexp.MustCompile(`^(([a-zA-Z][a-zA-Z0-9+.-]*):)?((//([^/?#]*))?([^?#]*)(\?([^#]*))?)?(#(.*))?$`)
)

// orNil is Python's "x or None" for bytes.
func orNil(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// pyStrip is Python's bytes.strip(): ASCII whitespace at both ends.
func pyStrip(b []byte) []byte {
	return bytes.Trim(b, " \t\n\r\x0b\x0c")
}

func parseHandyURL(url []byte) *handyURL {
	// Tab, CR and LF are removed everywhere; a space only at the ends.
	url = removeBytes(pyStrip(url), "\n\r\t")
	if len(url) > 0 && !reHasProtocol.Match(url) {
		url = append([]byte("http://"), url...)
	}
	if m := reMultipleProtocols.FindSubmatchIndex(url); m != nil {
		// Keep the last repetition, as Python's m.group(1) does.
		last := url[m[2]:m[3]]
		url = append(append([]byte{}, last...), url[m[1]:]...)
	}
	m := reRFC2396.FindSubmatchIndex(url)
	group := func(i int) []byte {
		if m == nil || m[2*i] < 0 {
			return nil
		}
		return url[m[2*i]:m[2*i+1]]
	}
	h := &handyURL{
		scheme: orNil(group(2)),
		query:  orNil(group(8)),
		hash:   orNil(group(10)),
	}
	netloc := bytes.TrimRight(group(5), ":")
	hostname, port := hostInfo(netloc)
	if port != nil {
		if p, err := strconv.Atoi(string(port)); err == nil && p >= 0 && p <= 65535 && isDigits(port) {
			h.port = p
		}
	}
	if len(hostname) > 0 {
		h.host = bytes.ToLower(hostname)
	}
	h.path = orNil(group(6))
	if bytes.HasPrefix(h.scheme, []byte("http")) && h.host == nil && h.path != nil {
		// "http:////www.example.com": the host is in the path.
		p := bytes.TrimLeft(h.path, "/")
		host, rest, _ := bytes.Cut(p, []byte("/"))
		h.host = host
		h.path = append([]byte("/"), rest...)
	}
	return h
}

func removeBytes(b []byte, cut string) []byte {
	out := b[:0:0]
	for _, c := range b {
		if strings.IndexByte(cut, c) < 0 {
			out = append(out, c)
		}
	}
	return out
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// hostInfo is Python's SplitResult._hostinfo: user info dropped, a bracketed
// IPv6 address kept without brackets, the port after the first colon.
func hostInfo(netloc []byte) (host, port []byte) {
	if i := bytes.LastIndexByte(netloc, '@'); i >= 0 {
		netloc = netloc[i+1:]
	}
	if _, bracketed, ok := bytes.Cut(netloc, []byte("[")); ok {
		host, rest, _ := bytes.Cut(bracketed, []byte("]"))
		_, port, _ = bytes.Cut(rest, []byte(":"))
		return host, orNil(port)
	}
	host, port, _ = bytes.Cut(netloc, []byte(":"))
	return host, orNil(port)
}

// googleCanonicalize is the surt package's GoogleURLCanonicalizer.
func googleCanonicalize(h *handyURL) {
	h.hash = nil
	if h.query != nil {
		h.query = escapeOnce(unescapeRepeatedly(h.query))
	}
	if len(h.host) > 0 {
		host := unescapeRepeatedly(h.host)
		if !isASCII(host) {
			if a, err := idnaProfile.ToASCII(strings.ToValidUTF8(string(host), "")); err == nil {
				host = []byte(a)
			}
		}
		host = bytes.ReplaceAll(host, []byte(".."), []byte(".")) // one pass, as Python's replace
		host = bytes.Trim(host, ".")
		if ip := attemptIPFormats(host); ip != nil {
			host = ip
		} else {
			host = escapeOnce(asciiLower(host))
		}
		h.host = host
	}
	path := unescapeRepeatedly(h.path)
	if len(h.host) > 0 {
		path = normalizePath(path)
	}
	h.path = escapeOnce(path)
}

// idnaProfile approximates Python's "idna" codec (IDNA 2003 with nameprep):
// lowercasing and compatibility mapping, transitional processing (ß gives ss).
var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(true), idna.StrictDomainName(false), idna.BidiRule())

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// asciiLower is Python's bytes.lower(): ASCII letters only.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func normalizePath(path []byte) []byte {
	if len(path) == 0 {
		return []byte("/")
	}
	parts := bytes.Split(path, []byte("/"))[1:]
	var kept [][]byte
	for _, p := range parts {
		switch string(p) {
		case ".":
		case "..":
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			} else {
				kept = append(kept, p)
			}
		default:
			kept = append(kept, p)
		}
	}
	out := []byte("/")
	if n := len(kept); n > 0 {
		for _, p := range kept[:n-1] {
			if len(p) > 0 {
				out = append(append(out, p...), '/')
			}
		}
		out = append(out, kept[n-1]...)
	}
	return out
}

var (
	reOctalIP   = regexp.MustCompile(`^(0[0-7]*)(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$`)
	reDecimalIP = regexp.MustCompile(`^([1-9][0-9]*)(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$`)
)

// attemptIPFormats turns a numeric host into a dotted IPv4 address. The surt
// package asks the system resolver (gethostbyname), which reads the forms
// inet_aton accepts; that is done here without a resolver.
func attemptIPFormats(host []byte) []byte {
	if len(host) == 0 {
		return nil
	}
	if isDigits(host) {
		// int(host) & 0xffffffff: the number modulo 2^32.
		var v uint32
		for _, c := range host {
			v = v*10 + uint32(c-'0')
		}
		return []byte(ipv4(v).String())
	}
	if reDecimalIP.Match(host) || reOctalIP.Match(host) {
		if a, ok := inetAton(string(host)); ok {
			return []byte(a.String())
		}
	}
	return nil
}

func ipv4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// inetAton parses the IPv4 forms of inet_aton: one to four parts, each
// decimal, octal (leading 0) or hexadecimal (0x), the last filling the
// remaining bytes.
func inetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, p = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil && !(p == "" && base == 16) {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var v uint64
	n := len(vals)
	for i, x := range vals[:n-1] {
		if x > 255 {
			return netip.Addr{}, false
		}
		v |= x << (8 * (3 - i))
	}
	if vals[n-1] >= 1<<(8*(5-n)) {
		return netip.Addr{}, false
	}
	v |= vals[n-1]
	return ipv4(uint32(v)), true
}

// escapeOnce is Python's quote_from_bytes with the surt package's safe set:
// everything but bytes up to the space, '#', '%' and bytes from 0x7f is kept.
func escapeOnce(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	const hex = "0123456789ABCDEF"
	var out []byte
	for _, c := range b {
		if c <= 0x20 || c >= 0x7f || c == '#' || c == '%' {
			out = append(out, '%', hex[c>>4], hex[c&15])
		} else {
			out = append(out, c)
		}
	}
	return out
}

// unquote is Python's unquote_to_bytes: each valid %XX becomes its byte.
func unquote(b []byte) []byte {
	if bytes.IndexByte(b, '%') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) {
			hi, ok1 := hexdigit.Value(b[i+1])
			lo, ok2 := hexdigit.Value(b[i+2])
			if ok1 && ok2 {
				out = append(out, hi<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

func unescapeRepeatedly(b []byte) []byte {
	if b == nil {
		return nil
	}
	for {
		un := unquote(b)
		if bytes.Equal(un, b) {
			return b
		}
		b = un
	}
}

var (
	reWWWDigits      = regexp.MustCompile(`^www\d*\.`)
	rePathSessionIDs = []*regexp.Regexp{
		regexp.MustCompile(`(?is)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$`),
		regexp.MustCompile(`(?is)^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$`),
	}
	reQuerySessionIDs = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$`),
	}
)

// iaCanonicalize is the surt package's IAURLCanonicalizer with its defaults.
func iaCanonicalize(h *handyURL) {
	if len(h.host) > 0 {
		h.host = asciiLower(h.host)
		if !bytes.Equal(h.scheme, []byte("dns")) {
			if m := reWWWDigits.FindIndex(h.host); m != nil {
				h.host = h.host[m[1]:]
			}
		}
	}
	if h.scheme != nil {
		def := 0
		switch string(asciiLower(h.scheme)) {
		case "http":
			def = 80
		case "https":
			def = 443
		}
		if h.port == def {
			h.port = 0
		}
	}
	if path := h.path; len(path) > 0 {
		path = asciiLower(path)
		for _, re := range rePathSessionIDs {
			if m := re.FindSubmatch(path); m != nil {
				path = append(append([]byte{}, m[1]...), m[3]...)
			}
		}
		if len(path) > 1 && path[len(path)-1] == '/' {
			path = path[:len(path)-1]
		}
		h.path = path
	}
	if len(h.query) > 0 {
		q := h.query
		for _, re := range reQuerySessionIDs {
			if m := re.FindSubmatch(q); m != nil {
				q = append(append([]byte{}, m[1]...), m[2]...)
			}
		}
		q = alphaReorderQuery(asciiLower(q))
		h.query = orNil(q)
	}
}

// alphaReorderQuery sorts the arguments of a query as the surt package does:
// as (name, value) pairs split at the first '=', an argument without '='
// before one with the same name and a value.
func alphaReorderQuery(q []byte) []byte {
	if len(q) <= 1 {
		return q
	}
	type arg struct {
		name, value string
		hasValue    bool
	}
	var args []arg
	for _, a := range strings.Split(string(q), "&") {
		n, v, ok := strings.Cut(a, "=")
		args = append(args, arg{n, v, ok})
	}
	sort.SliceStable(args, func(i, j int) bool {
		a, b := args[i], args[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if a.hasValue != b.hasValue {
			return !a.hasValue
		}
		return a.value < b.value
	})
	var out []byte
	for i, a := range args {
		if i > 0 {
			out = append(out, '&')
		}
		out = append(out, a.name...)
		if a.hasValue {
			out = append(append(out, '='), a.value...)
		}
	}
	return out
}

// surtKey is handyurl.geturl_bytes(surt=True, with_scheme=False).
func (h *handyURL) surtKey() []byte {
	var s []byte
	if len(h.host) == 0 {
		s = append(append(s, h.scheme...), ':')
	} else {
		parts := bytes.Split(h.host, []byte("."))
		for i := len(parts) - 1; i >= 0; i-- {
			s = append(s, parts[i]...)
			if i > 0 {
				s = append(s, ',')
			}
		}
		if h.port != 0 {
			s = append(s, ':')
			s = strconv.AppendInt(s, int64(h.port), 10)
		}
		s = append(s, ')')
	}
	if len(h.path) > 0 {
		s = append(s, h.path...)
	} else if h.query != nil || h.hash != nil {
		s = append(s, '/')
	}
	if h.query != nil {
		s = append(append(s, '?'), h.query...)
	}
	return s
}
