package features

import (
	"encoding/binary"
	"math/bits"
)

// Feature hashing. Every feature (a term, a spot signature, a shingle) becomes a
// 64-bit value. Signatures are serialized and compared across runs and machines, so
// the hash is fixed: no per-process seed (hash/maphash cannot be given a fixed
// seed), and it must mix well. FNV-1, common in Go simhash libraries, changes
// mostly low bits when the last byte changes, which biases simhash bit agreement
// between words that share a prefix; TestHashAvalanche checks that one changed
// byte flips about half of the 64 bits here.
//
// The construction is a multiply-xor ("mum") loop in the style of wyhash followed
// by the murmur3 64-bit finalizer. Changing any constant changes every stored
// signature: bump docVersion in docsig.go if you do.

const (
	k0 = 0xa0761d6478bd642f
	k1 = 0xe7037ed1a0b428db
	k2 = 0x8ebc6af09c88c6e3
	k3 = 0x589965cc75374cc3
)

func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// fmix is the murmur3 64-bit finalizer: a bijection in which every input bit
// affects every output bit.
func fmix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Mix is fmix for other packages: the murmur3 64-bit finalizer, a bijection
// in which every input bit affects every output bit.
func Mix(h uint64) uint64 { return fmix(h) }

// Hash64 is the feature hash of b under a family seed (0 for terms and words;
// other seeds keep feature families apart). It is deterministic across runs,
// machines and Go versions.
func Hash64(b []byte, seed uint64) uint64 {
	h := seed ^ k0 ^ uint64(len(b))*k1
	for len(b) >= 16 {
		h = mum(binary.LittleEndian.Uint64(b)^k1, binary.LittleEndian.Uint64(b[8:])^h)
		b = b[16:]
	}
	if len(b) >= 8 {
		h = mum(binary.LittleEndian.Uint64(b)^k2, h^k3)
		b = b[8:]
	}
	if len(b) > 0 {
		var t uint64
		for i, c := range b {
			t |= uint64(c) << (8 * uint(i))
		}
		h = mum(t^k3, h^k2)
	}
	return fmix(h)
}

// combine folds the next element x into an ordered sequence hash h:
// combine(combine(s, a), b) differs from combine(combine(s, b), a). Spot chains,
// sentences and shingles are hashed from their words' hashes this way, without
// building their strings.
func combine(h, x uint64) uint64 {
	return fmix(mum(h^k1, x^k2) + x)
}

// Family seeds: the same words give different keys in different feature families,
// which matters where families are merged into one bag (AF-SpotSigs).
const (
	seedTerm     = 0
	seedSpot     = 0x5370_6f74_5369_6773 // "SpotSigs"
	seedPunct    = 0x5075_6e63_7475_6174
	seedSentence = 0x5365_6e74_656e_6365
	seedSentGram = 0x5365_6e74_4772_616d
	seedBigram   = 0x4269_6772_616d_7321
	seedShingle  = 0x5368_696e_676c_6573
	seedQGram    = 0x5147_7261_6d73_0000
)
