package dedup

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"testing"
)

// TestRefStore: references come back as they were stored, by number and by
// digest; the temporary file leaves no name behind in its directory.
func TestRefStore(t *testing.T) {
	dir := t.TempDir()
	s := newRefStore(dir)
	var want []ref
	for i := range 1000 {
		r := ref{id: fmt.Sprintf("<urn:uuid:%d>", i), uri: fmt.Sprintf("http://example.com/%d?q=%s", i, string(make([]byte, i%300))),
			date: "2026-11-23T12:00:00Z", digest: fmt.Sprintf("sha1:%032d", i), computed: fmt.Sprintf("sha1:%032d", i+1),
			sha256: sha256.Sum256([]byte{byte(i), byte(i >> 8)})}
		if i%7 == 0 {
			r.uri = "" // empty fields round-trip too
		}
		n, err := s.add(r)
		if err != nil {
			t.Fatal(err)
		}
		if int(n) != i {
			t.Fatalf("number %d, want %d", n, i)
		}
		want = append(want, r)
		if i%97 == 0 { // reads between writes
			if got, err := s.get(n); err != nil || got != r {
				t.Fatalf("get(%d) = %+v, %v", n, got, err)
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the temporary file has a name in %s: %v", dir, ents)
	}
	for i, r := range want {
		got, ok, err := s.lookup(r.digest)
		if err != nil || !ok || got != r {
			t.Fatalf("lookup %d: %+v %v %v", i, got, ok, err)
		}
	}
	if _, ok, err := s.lookup("sha1:unknown"); ok || err != nil {
		t.Errorf("unknown digest found: %v %v", ok, err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
}

// TestRefStoreUnwritableDir: a store that cannot make its file says so,
// naming what failed, and keeps saying so.
func TestRefStoreUnwritableDir(t *testing.T) {
	s := newRefStore("/nonexistent/dir")
	_, err1 := s.add(ref{digest: "x"})
	_, err2 := s.add(ref{digest: "y"})
	if !errors.Is(err1, errRefStore) || !errors.Is(err2, errRefStore) || !errors.Is(err1, os.ErrNotExist) {
		t.Fatalf("errors %v, %v", err1, err2)
	}
}

// TestRefStoreClosed: after close the store refuses to add or read, rather
// than read a reference's offset in a file that is gone.
func TestRefStoreClosed(t *testing.T) {
	s := newRefStore(t.TempDir())
	n, err := s.add(ref{id: "<urn:uuid:a>", digest: "sha1:A"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.get(n); !errors.Is(err, errRefStore) {
		t.Errorf("get after close: %v, want an error of the store", err)
	}
	if _, err := s.add(ref{id: "<urn:uuid:b>", digest: "sha1:B"}); !errors.Is(err, errRefStore) {
		t.Errorf("add after close: %v, want an error of the store", err)
	}
	if err := s.close(); err != nil {
		t.Errorf("a second close: %v", err)
	}
}
