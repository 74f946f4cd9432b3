package features

import "bytes"

// Shop pages. Two items of one shop, or two categories of its catalogue, are
// different things whose pages differ in a few words (a size, a price, the
// items listed) that a template repeats around them: on WCXB's pages two
// tumbler sizes of one shop share 0.78 of their main text's signatures, and
// two sofa categories all of them. A page that says it is a product or a
// catalogue, in the schema.org types of its JSON-LD (Product, Offer,
// ProductGroup, ItemList, CollectionPage, OfferCatalog, the types Google's
// product and carousel rich results read) or in Open Graph's og:type
// ("product", "product.group", "product.item"), is marked, so that the
// decision can hold it to a stricter rule than an article. So does a page
// with a shop's button: an element whose whole text is "Add to cart" (bag,
// basket, trolley). "Buy now" is not one: sites put it in their frame, for a
// subscription or a book, around every story (measured on the benchmark: it
// held five true pairs back). Measured on the corpus: 88 of wcxb's 106
// product pages, 39 of its 109 collections and 16 of its 126 listings are
// shop pages so, and 6 of the 3,500 pages of the news datasets.

// shopTypes are the schema.org types that make a page a shop page.
var shopTypes = [][]byte{[]byte(`"Product"`), []byte(`"Offer"`), []byte(`"AggregateOffer"`),
	[]byte(`"ProductGroup"`), []byte(`"ItemList"`), []byte(`"CollectionPage"`), []byte(`"OfferCatalog"`)}

// shopJSONLD says whether a JSON-LD script names a shop type as an @type.
func shopJSONLD(b []byte) bool { return jsonLDType(b, shopTypes) }

// jsonLDType says whether a JSON-LD script names one of types (quoted) as
// an @type. It reads the text, not the JSON: a type is a quoted string
// after "@type", alone or in an array.
func jsonLDType(b []byte, types [][]byte) bool {
	for {
		i := bytes.Index(b, []byte(`"@type"`))
		if i < 0 {
			return false
		}
		b = b[i+len(`"@type"`):]
		v := bytes.TrimLeft(b, " \t\r\n:[")
		for _, t := range types {
			if bytes.HasPrefix(v, t) {
				return true
			}
		}
	}
}

// scriptIsJSONLD says whether a script start tag's type is JSON-LD.
func scriptIsJSONLD(z tokenSource) bool {
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == "type" {
			return bytes.EqualFold(bytes.TrimSpace(v), []byte("application/ld+json"))
		}
	}
	return false
}

// metaKind reads a meta tag: shop says it is Open Graph's og:type of a
// product, discussion that it names a forum platform as the page's
// generator (discussionGenerator).
func metaKind(z tokenSource) (shop, discussion bool) {
	og, product, generator := false, false, false
	var content []byte
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "property", "name":
			og = og || bytes.EqualFold(v, []byte("og:type"))
			generator = generator || bytes.EqualFold(v, []byte("generator"))
		case "content":
			product = len(v) >= 7 && bytes.EqualFold(v[:7], []byte("product"))
			content = v
		}
	}
	return og && product, generator && discussionGenerator(content)
}

// shopButtons are the texts of a shop's buttons (lower case).
var shopButtons = [...]string{"add to cart", "add to bag", "add to basket", "add to trolley"}

// shopButton says whether a text node is a shop's button label: the whole
// text, white space aside, and nothing else; a sentence that speaks of a
// cart is not one.
func shopButton(t []byte) bool {
	if len(t) > 64 {
		return false
	}
	t = bytes.TrimSpace(t)
	for _, b := range shopButtons {
		if len(t) == len(b) && bytes.EqualFold(t, []byte(b)) {
			return true
		}
	}
	return false
}
