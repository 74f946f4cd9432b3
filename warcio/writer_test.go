package warcio

import (
	"bytes"
	"errors"
	"testing"
)

// CopyRaw of a Raw that holds no bytes is an error, not a record silently
// missing from the output.
func TestCopyRawNoBytes(t *testing.T) {
	in := record(t, false, 1, textPage(1))
	recs, err := readAll(t, "one", in, false)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	tests := []struct {
		name string
		raw  *Raw
		err  error
	}{
		{"nil Raw (KeepRaw unset)", nil, ErrNoRaw},
		{"no Plain and no File", &Raw{Size: int64(len(in))}, ErrNoRaw},
		{"empty Raw", &Raw{}, ErrNoRaw},
		{"the record's Raw", recs[0].Raw, nil},
	}
	for _, gz := range []bool{false, true} {
		for _, tc := range tests {
			var out bytes.Buffer
			w := NewWriter(&out, gz)
			err := w.CopyRaw(tc.raw)
			if !errors.Is(err, tc.err) {
				t.Errorf("%s (gzip %v): got %v, want %v", tc.name, gz, err, tc.err)
			}
			if tc.err != nil && (out.Len() != 0 || w.Offset() != 0) {
				t.Errorf("%s (gzip %v): %d bytes written", tc.name, gz, out.Len())
			}
			if tc.err == nil && !gz && !bytes.Equal(out.Bytes(), in) {
				t.Errorf("%s: wrote %d bytes, the record has %d", tc.name, out.Len(), len(in))
			}
		}
	}
}
