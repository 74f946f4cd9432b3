// Package features turns a stored HTTP response into the comparable features the
// near-duplicate papers define: decoded, tokenized text; Henzinger's terms; SpotSigs
// spot signatures (Theobald et al., SIGIR 2008); AF-SpotSigs punctuation and sentence
// features; Charikar simhash; Broder shingles; DDD q-grams.
//
// Feature extraction is kept apart from matching (package matcher) so that the same
// binary can run per-WARC extraction as a map task and matching as a reduce: every
// signature type here serializes compactly (Doc.AppendBinary).
//
// # One pass
//
// An Extractor decodes the body to UTF-8, runs an HTML scanner once (htmlscan.go:
// the tokens of golang.org/x/net/html's Tokenizer at twice its speed; no DOM, no
// goquery: a DOM costs 4x the allocation and goquery's Text glues neighbouring
// list items into one word), normalizes text as it arrives (NFKC,
// simple case folding, one space per run of white space) and then scans the text
// once, producing Henzinger terms and SpotSigs words side by side. Every family
// is computed from those two sequences; nothing is tokenized or hashed twice.
//
// # Words and terms
//
// A term (Henzinger, SIGIR 2006, Sec. 2) is a maximal run of letters and digits;
// a SpotSigs word is a run of terms joined by single apostrophes, hyphens or inner
// dots ("city's", "inner-west"), the definition under which both papers' worked
// examples come out exactly as printed. Chinese and Japanese have no spaces: each
// Han, kana or hangul character is one term and one word. That needs no dictionary
// (features do not change with a segmenter's version), matches AF-SpotSigs' Chinese
// antecedents, which are single characters (的 地 得 是 把 了), and is what DDD's
// character q-grams assume.
//
// # Charset
//
// Byte order mark, then the HTTP charset, then <meta> within the first 16 KiB
// (the spec's 1 KiB misses 7% of the corpus pages), then detection (valid UTF-8;
// windows-1252 for isolated high bytes; GBK, Big5, EUC-JP or Shift_JIS by decoding
// errors and kana share). A body that is valid UTF-8 is read as UTF-8 even if its
// <meta> names a legacy charset.
//
// # Which simhash finds cross-site copies
//
// A simhash over all terms of a page is dominated by the site's frame; measured on
// the corpus pairs (TestPairs), the median agreement of one wire story in two
// sites' frames (310 of 384 bits) is below that of two different stories in one
// frame (median 312, p90 330). A simhash over the page's spot-signature multi-set
// (Doc.SpotSimhash384, FamSpotSimhash; the LSH-S idea of SIGIR 2008 applied to
// simhash) separates: cross-site copies median 271 bits, different stories of one
// site median 213, p90 241. A simhash over the content words of prose sentences
// (FamTextSimhash) was measured too and separates less (cross median 270, same-site
// p90 304). Neither reaches Henzinger's 372-bit threshold on these pairs: the
// copies differ in more than the frame (edits, captions, comments).
//
// # Limits
//
// Bodies are cut at Config.MaxDocBytes (8 MiB by default) and the tokenizer's
// buffer is capped at the same size, so one hostile page cannot use unbounded
// memory; AF-SpotSigs sentence shingles are limited to sentences of at most 256
// words and grams of at most 31 words.
package features
