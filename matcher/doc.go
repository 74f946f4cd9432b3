// Package matcher holds the near-duplicate search algorithms: an exact
// SpotSigs matcher and simhash indexes with a pigeonhole guarantee. Which
// pages are compared, at which threshold, and what a match means is decided
// in package near, which uses the SpotSigs matcher for every relation (same
// site and cross-site, on main-text signatures less both sites' frames) and
// Simhash384 only for Henzinger's combined method.
//
// # SpotSigs
//
// SpotSigs is the matcher of Theobald, Siddharth and Paepcke, "SpotSigs:
// Robust and Efficient Near Duplicate Detection in Large Web Collections"
// (SIGIR 2008), Sec. 4: pages are multi-sets of spot signatures
// (features.Bag) compared by multi-set Jaccard; the collection is partitioned
// by multi-set length so that only pages of similar length meet (Sec. 4.2),
// and within a partition inverted lists sorted by length are traversed from
// the query's rarest signature on, with the delta1/delta2 break and continue
// conditions of Algorithm 1 (Sec. 4.3), and one more exact filter: candidates
// are verified after the traversal, once counts over a few further lists show
// they can still reach tau. The matcher is exact: it returns
// precisely the pairs with Jaccard >= tau, which the tests check against brute
// force. Thresholds are exact fractions (0.8 is 4/5), so a pair at exactly tau,
// like the paper's worked example at 12/15, is always a match.
//
// The modes are those of the earlier Stanford technical report on SpotSigs
// (same authors; "the Stanford report" in comments), Sec. 3.3 and 4:
//   - incremental matching (Sec. 3.3.3): SpotSigs.Observe matches a page
//     against the pages kept so far and indexes it only if it matched none;
//   - First Guess and Best Guess (Sec. 3.3.1): which match to report;
//   - full matching (Sec. 3.3.2): AllPairs gives the near-duplicate graph and
//     Clusters its components, represented by their earliest page;
//   - seeded matching (Sec. 3.3.4): SpotSigs.WriteTo and ReadSpotSigs save and
//     load an index to start a run from;
//   - the BestSim = min(Nx,Ny)/max(Nx,Ny) pruning (Sec. 4, Performance
//     Considerations) is the length window every query starts from.
//
// Memory: a SpotSigs index keeps about 10 bytes a signature in all (measured
// on 1,439 real pages of 78 signatures: 760 bytes a page, of which the
// arena of keys 4.3 a signature, the hash table 4.7, posting lists 0.5 and
// per-document arrays 17 bytes a page; 10.7-11.7 a signature on synthetic
// pages of 151 signatures, whose shared signatures make longer lists). Keys
// take 4 bytes only while all fit in 32 bits: callers fold their bags with
// Fold32 (a false collision between two signatures has probability 2^-32);
// with 64-bit keys the arena is 8 bytes a signature.
//
// Loading: a seeded run adds the pages kept by earlier runs one by one with
// no query between them. Add then leaves the postings to batches sorted by
// key hash, made at the next query or every 2^22 signatures, and the
// ordering of list tails to the next query (see SpotSigs), with the same
// answers to every query. On synthetic pages shaped as index/scale_test.go's
// (40-160 signatures a page from a Zipf vocabulary of 2^24, folded; 87.6
// distinct), an index of 100k pages loads at 151k pages/s and one of 1M at
// 121k, the first query included (1.5 s at 1M), against 39k and 37k when each
// Add made its postings and merged tails as they came due and the arena was
// one slice; 11.7 and 11.0 bytes a signature by capacities (11.9 and 11.5
// before), 12.4 and 10.9 of heap (13.1 and 11.7); the machine is shared, and
// rates vary by a tenth from run to run:
//
//	go test -run X -bench AddMany -benchtime 1x ./matcher/
//
// Loading 1M such pages into a Deduper
// (WARCDEDUP_SCALE_PAGES=1000000 go test ./index -run IndexScale -v) took
// 10.4 s instead of 35.0, with 1,072 bytes of heap a page instead of 1,147.
// What is left of the matcher's share is mostly memory traffic: each key of
// a batch reads its list where it lies, and the batch is sorted.
//
// Sites holds one SpotSigs index per site key, created on first use, for the
// caller's same-site routing.
//
// # Simhash
//
// Simhash64 and Simhash384 store Charikar simhash fingerprints and return
// every stored fingerprint within Hamming distance k of a query. Henzinger
// (SIGIR 2006) uses b = 384 bits and calls pages similar when t = 372 bits
// agree (k = 12), finding candidates with 12 pieces of 32 bits (Sec. 3.3),
// which, as the paper says, only guarantees pairs with at most 11 differing bits. Here k+1 pieces are
// used (13 for k = 12; Manku, Jain and Das Sarma, WWW 2007, for 64 bits), so
// the index is exact. Pieces only select when they are wide: for radii whose
// pieces would be under 10 bits the index scans all fingerprints (still exact,
// about 12 ns a 384-bit fingerprint). That is the case for the radius a
// frame-independent spot-signature simhash needs between cross-site copies
// (features measured a median of 113 differing bits of 384), so such a
// cross-site index is linear in its size, which is why package near finds
// cross-site pairs with the exact SpotSigs matcher instead.
//
// Nothing in this package logs or prints, and no type is safe for concurrent
// use: the caller makes its matching decisions in input order anyway.
package matcher
