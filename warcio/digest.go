package warcio

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

// blockDigest checks a block against a labelled digest "algorithm:value" as WARC
// writers produce them: base32 (Heritrix, wget, warcio) or hex (some others).
type blockDigest struct {
	h    hash.Hash
	want []byte
}

func (d *blockDigest) reset() { d.h, d.want = nil, nil }

func (d *blockDigest) start(v string) error {
	algo, val, ok := strings.Cut(v, ":")
	if !ok {
		return fmt.Errorf("no algorithm label")
	}
	var h hash.Hash
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(algo)), "-", "") {
	case "sha1":
		h = sha1.New()
	case "sha256":
		h = sha256.New()
	case "md5":
		h = md5.New()
	default:
		return nil // an algorithm we do not know is not checked, not an error
	}
	val = strings.TrimSpace(val)
	want, err := decodeDigest(val, h.Size())
	if err != nil {
		return err
	}
	d.h, d.want = h, want
	return nil
}

func decodeDigest(val string, size int) ([]byte, error) {
	if len(val) == 2*size {
		if b, err := hex.DecodeString(val); err == nil {
			return b, nil
		}
	}
	v := strings.ToUpper(strings.TrimRight(val, "="))
	if b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(v); err == nil && len(b) == size {
		return b, nil
	}
	// Base64 is rare but valid (JHOVE's conformance set has md5 digests in it).
	if b, err := base64.StdEncoding.DecodeString(val); err == nil && len(b) == size {
		return b, nil
	}
	return nil, fmt.Errorf("not base32, hex or base64 of a %d-byte digest", size)
}

func (d *blockDigest) ok() bool { return bytes.Equal(d.h.Sum(nil), d.want) }

func (d *blockDigest) got() string {
	return base32.StdEncoding.EncodeToString(d.h.Sum(nil))
}
