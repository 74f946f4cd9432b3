// Package features turns a stored HTTP response into the comparable features the
// near-duplicate papers define: decoded, tokenized text; Henzinger's terms; SpotSigs
// spot signatures (Theobald et al., SIGIR 2008); AF-SpotSigs punctuation and sentence
// features; Charikar simhash; Broder shingles; DDD q-grams.
//
// Feature extraction is kept apart from matching (package matcher) so that the same
// binary can run per-WARC extraction as a map task and matching as a reduce: every
// signature type here serializes compactly.
package features
