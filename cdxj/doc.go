// Package cdxj writes the CDXJ index of a WARC or ARC file, the index that
// replay tools (pywb, ReplayWeb.page, jwarc) read to find a capture by URL and
// time: one line per capture, "urlkey timestamp {json}", sorted.
//
// It follows pywb's indexer (pywb/indexer/archiveindexer.py and
// cdxindexer.py, as wb-manager runs it: CDXJ, sorted, POST bodies appended):
//
//   - urlkey is the SURT of WARC-Target-URI by the rules of the surt Python
//     package that pywb uses (see [SURT]); timestamp is the 14 digits of
//     WARC-Date (of the ARC header's date for ARC records).
//   - The JSON object holds, in this order and only when not empty:
//     "metadata" (WARC-Json-Metadata), "url", "mime", "mime-detected"
//     (WARC-Identified-Payload-Type), "status", "digest", "length", "offset",
//     "method", "requestBody", "filename". Numbers are strings, the JSON is
//     written as Python's json.dumps writes it (", " and ": " separators,
//     non-ASCII escaped).
//   - Indexed: response, revisit, resource, metadata, conversion and
//     continuation records with a WARC-Target-URI. Not indexed: warcinfo and
//     request records, records whose Content-Type is application/warc-fields,
//     metadata records of type text/anvl (Heritrix 1), ARC filedesc records.
//   - mime is "warc/revisit" for a revisit; for a response with an HTTP
//     message the HTTP Content-Type up to ';' or ' ' ("unk" without one); for
//     other records (and responses to non-HTTP URIs, such as dns:) the record's
//     Content-Type.
//   - status is the HTTP status of response records only (pywb's convention;
//     "200" for a response without an HTTP message); revisits have none.
//   - digest is WARC-Payload-Digest without its "sha1:" prefix; when a
//     record other than a revisit has none, the SHA-1 of its payload is
//     computed, as pywb does.
//   - length and offset address the record in the file: its gzip member in a
//     .warc.gz with one member per record.
//   - A POST or PUT request next to its response (same URL, joined by
//     WARC-Concurrent-To) adds "__wb_method=POST&<body as query>" to the URL
//     the key is made from, and the "method" and "requestBody" fields.
//
// Lines are sorted bytewise, as LC_ALL=C sort sorts them, in bounded memory
// (internal/linesort: sorted runs in a temporary directory, merged), as
// sort(1) sorts a file larger than its buffer.
//
// The package is checked line for line against warcio.js's cdx-index (see
// compare_test.go), which follows the same conventions with a few known
// differences listed there.
package cdxj
