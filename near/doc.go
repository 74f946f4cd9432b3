// Package near decides whether a page is a near duplicate of a page kept
// before it, and whether the evidence is strong enough to replace it.
//
// A Page is what the decision needs of a captured HTML page: its site key
// (Henzinger, SIGIR 2006, Sec. 2), a hash of its canonical URL, the spot
// signatures of its main text (SpotSigs, SIGIR 2008, Sec. 2), AF-SpotSigs
// features for short pages (AF-SpotSigs paper, Sec. 4), word bigrams for
// pages with too few spot signatures, and a reference to its record. An
// Analyzer makes Pages from HTML; a Page has a compact, versioned binary
// form (AppendBinary, UnmarshalBinary), so that pages can be written down by
// one run or task and matched by another.
//
// An Index holds kept pages. Match finds the kept page a new page
// duplicates: by the exact SpotSigs matcher (package matcher) at the
// threshold of the pair's relation (same site or cross-site), on what is
// frame for neither site (frame signatures are learnt from the kept pages
// themselves, per site and across sites), with containment as a weaker
// finding; it then says whether the pair is strong enough to replace the new
// page, or only to annotate it, and why. Add keeps a page; Withdraw forgets
// the pages added since a mark. The pipeline (package dedup) reads records
// and writes revisits; every rule of the decision is here.
package near
