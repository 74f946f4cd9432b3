package cdxj

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexBudget: Index with a budget that spills every line or two
// writes the bytes it writes with all lines held (the golden files), and
// leaves no run behind.
func TestIndexBudget(t *testing.T) {
	for _, gz := range []bool{false, true} {
		name := "small.warc"
		if gz {
			name += ".gz"
		}
		want, err := os.ReadFile(filepath.Join("testdata", name+".cdxj"))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(want, []byte("\n")) < 4 {
			t.Fatalf("%s: the golden index has too few lines to sort", name)
		}
		dir := t.TempDir()
		var got bytes.Buffer
		if err := IndexWith(strings.NewReader(testWARC(gz)), name, &got, Options{TempDir: dir, SortBudget: 200}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: Index with runs wrote\n%s\nthe golden index\n%s", name, got.Bytes(), want)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Errorf("%s: files left: %v", name, left)
		}
	}
}
