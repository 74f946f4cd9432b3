// Package warcio reads and writes WARC files (ISO 28500: WARC/0.17, 0.18, 1.0, 1.1)
// and the older ARC format, and parses the HTTP messages stored in their records.
//
// # Reading
//
// A [Reader] is shaped like archive/tar: [NewReader] takes any io.Reader, [Reader.Next]
// returns the next record's header and io.EOF at the end, the Reader itself is the
// io.Reader of the current record's block, and Next drains what the caller did not
// read. An error, once hit, is returned again (sticky) unless the Reader is lenient.
//
// Compressed input is detected by its magic bytes. A .warc.gz is normally one gzip
// member per record; whole-file gzip and members holding several records are read
// too. Every record carries the exact byte offset at which it starts: the offset of
// its gzip member in the file when it starts a member (what CDX indexes need) and its
// offset in the decompressed stream.
//
// # Byte-exact pass-through
//
// With [Reader.KeepRaw] the Reader keeps the exact bytes each record had in the input:
// its decompressed bytes always, and its original gzip member when the record was
// alone in one. A [Writer] writes those bytes back unchanged, so a record that a tool
// does not mean to change comes out as it went in, down to header case, order,
// repeated and folded fields and the member's compressed bytes.
//
// # Damaged input
//
// Real crawls hold truncated gzip members, junk between records and blocks shorter
// than their Content-Length. A strict Reader stops with a [*ParseError] naming the
// file, the byte offset, the record ID when known, and a sentinel error. A lenient
// Reader instead returns the damaged bytes as a record of kind [KindDamaged], so a
// caller can carry them to its output unchanged and count them: nothing is lost
// silently either way.
//
// # Failures that are not damage
//
// An error from the input's io.Reader (EIO, a network filesystem gone away) and a
// record whose bytes cannot be kept (the temporary directory missing or full) say
// nothing about the file. Both stop every Reader, lenient or not, with a
// [*ParseError] wrapping [ErrRead] (and the input's error) or [ErrSpool]: taking
// them for damage and carrying on would drop records from a run that succeeds.
package warcio
