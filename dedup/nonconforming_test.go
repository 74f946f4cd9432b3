package dedup

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// TestNonconformingTold: Options.Nonconforming is told what became of each
// nonconforming record, copied as it is or replaced by a revisit record,
// and the Stats count those replaced apart, in a run and in Judge; Map,
// which decides nothing, does not tell it.
func TestNonconformingTold(t *testing.T) {
	big := strings.Repeat("<p>the same story</p>\n", 100)
	// WARC-Warcinfo-ID may not repeat: the record departs from the
	// standard, and is read and deduplicated as any other.
	bad := []warcio.Field{{Name: "WARC-Warcinfo-ID", Value: "<urn:uuid:i>"}, {Name: "WARC-Warcinfo-ID", Value: "<urn:uuid:j>"}}
	for _, tc := range []struct {
		name     string
		bad      []int // the records that depart from the standard
		told     string
		replaced int
	}{
		{"duplicate", []int{1}, "<urn:uuid:1> true", 1},
		{"kept", []int{0}, "<urn:uuid:0> false", 0},
		{"not 200", []int{2}, "<urn:uuid:2> false", 0},
		{"all", []int{0, 1, 2}, "<urn:uuid:0> false, <urn:uuid:1> true, <urn:uuid:2> false", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := []rec{
				{typ: "response", uri: "http://a.example/1", status: "200 OK", body: big},        // kept
				{typ: "response", uri: "http://a.example/2", status: "200 OK", body: big},        // replaced
				{typ: "response", uri: "http://a.example/3", status: "404 Not Found", body: big}, // copied
			}
			for _, i := range tc.bad {
				recs[i].extra = bad
			}
			in := build(t, recs)
			var told []string
			opts := DefaultOptions()
			opts.Nonconforming = func(file string, r *warcio.Record, ps []warcio.Problem, replaced bool) {
				told = append(told, fmt.Sprintf("%s %v", r.ID(), replaced))
			}
			d := New(opts)
			var out bytes.Buffer
			if err := d.Run(bytes.NewReader(in), "in", &out, false); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(told, ", "); got != tc.told {
				t.Errorf("told %q, want %q", got, tc.told)
			}
			if s := d.Stats; s.Nonconforming != len(tc.bad) || s.NonconformingReplaced != tc.replaced || s.Revisits != 1 {
				t.Errorf("%d nonconforming, %d of them replaced, %d revisits; want %d, %d, 1",
					s.Nonconforming, s.NonconformingReplaced, s.Revisits, len(tc.bad), tc.replaced)
			}
			if rs := readBack(t, out.Bytes()); len(rs) != 3 || rs[1].Type() != "revisit" {
				t.Fatal("the second record is not a revisit")
			}

			told = nil
			outs, st, _ := throughStages(t, opts, []string{"in"}, [][]byte{in}, false)
			if len(told) != 0 {
				t.Errorf("the steps told %v: Map decides nothing, and Apply writes what Judge decided", told)
			}
			if st.Nonconforming != len(tc.bad) || st.NonconformingReplaced != tc.replaced {
				t.Errorf("Judge: %d nonconforming, %d of them replaced; want %d, %d", st.Nonconforming, st.NonconformingReplaced, len(tc.bad), tc.replaced)
			}
			if !bytes.Equal(outs[0], out.Bytes()) {
				t.Error("the steps' output differs from the run's")
			}
		})
	}
}
