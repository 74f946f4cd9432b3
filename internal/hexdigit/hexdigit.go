// Package hexdigit reads one hexadecimal digit, as the WARC reader's chunk
// sizes and the SURT canonicalizer's percent-escapes need it, without the
// allocation of strconv for a byte.
package hexdigit

// Value is the value of the hexadecimal digit c, either case, and whether c
// is one.
func Value(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
