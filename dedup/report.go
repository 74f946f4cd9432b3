package dedup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/warcdedup/warcdedup/internal/linesort"
	"github.com/warcdedup/warcdedup/internal/tempfile"
	"github.com/warcdedup/warcdedup/sitekey"
)

// Duplicate is one line of the curators' report: a record that was found to
// duplicate an earlier, kept one.
type Duplicate struct {
	Kind       string  `json:"kind"` // "duplicate" or "containment"
	File       string  `json:"file"`
	URI        string  `json:"uri"`
	Date       string  `json:"date"`
	RecordID   string  `json:"record_id"`
	KeptURI    string  `json:"kept_uri"`
	KeptDate   string  `json:"kept_date"`
	KeptID     string  `json:"kept_id"`
	Method     string  `json:"method"`     // "exact", "spotsigs", "af-spotsigs", "simhash"
	Similarity float64 `json:"similarity"` // 1 for exact duplicates
	Relation   string  `json:"relation"`   // "same-site" or "cross-site"
	Action     string  `json:"action"`     // "revisit", "annotate", "keep" (weak evidence, default mode), or "report" (a containment, default mode)
	// Why a near duplicate was kept rather than replaced although the mode
	// replaces: "weak-evidence: N shared content signatures" (see
	// Options.MinEvidence).
	Reason string `json:"reason,omitempty"`
	// For kind "containment" lines: "contains" (the record holds the kept
	// record's text) or "contained-in" (its text is held in the kept record),
	// and the share of the smaller side's text found in the other.
	Direction   string  `json:"direction,omitempty"`
	Containment float64 `json:"containment,omitempty"`
	// The evidence of a near duplicate or containment: distinct content
	// signatures (what is frame for neither site) the two share, and the
	// size of each side's content; for a near duplicate, how many of the
	// record's content signatures are not in the kept record (near.Match.Own).
	Shared         int `json:"shared_signatures,omitempty"`
	Signatures     int `json:"signatures,omitempty"`
	KeptSignatures int `json:"kept_signatures,omitempty"`
	Own            int `json:"own_signatures,omitempty"`
}

// Cluster is the report's line for a kept record and every record found to
// duplicate it, written when the run ends.
type Cluster struct {
	Kind     string   `json:"kind"` // "cluster"
	KeptID   string   `json:"kept_id"`
	KeptURI  string   `json:"kept_uri"`
	KeptDate string   `json:"kept_date"`
	Size     int      `json:"size"` // the kept record and its duplicates
	Members  []string `json:"members"`
}

// report writes the JSON lines report, if one was asked for. The lines of a
// Run are held until the next Run starts or the Deduper is closed, so that a
// Run that is withdrawn leaves none; the clusters take only the duplicates
// of Runs that were not withdrawn. Neither is held in memory, since both
// grow with the duplicates of the input: a Run's lines wait in a temporary
// file past their first MiB, and the clusters are made when the run ends
// from one line a duplicate, sorted in bounded memory (internal/linesort).
// Memory then holds one cluster's members at a time, the largest
// cluster's at most.
type report struct {
	w   io.Writer
	dir string // for the temporary files ("": the system's)
	// The lines of the Run not yet committed, in the order found: a report
	// line after 'D', a duplicate for the clusters after 'A'. They are held
	// in mem up to spoolAt bytes, and then in spool, a temporary file with
	// no name in the directory (internal/tempfile).
	mem     bytes.Buffer
	spool   *os.File
	spooled bool // spool holds lines
	line    bytes.Buffer
	enc     *json.Encoder // encodes into line
	// members has a line for each committed duplicate: its kept record, its
	// place in the order found (seq), its kept record's URI and date, and
	// the record.
	members *linesort.Sorter
	seq     uint64
	err     error // sticky: the report is incomplete after a write error
}

// spoolAt is how many bytes of a Run's lines are held in memory before
// they go to the temporary file: a file's first thousands of duplicates.
// Tests make it small.
var spoolAt = 1 << 20

// reportSortBudget is the bytes of cluster lines held before they are
// sorted into a run (0: linesort's default). Tests make it small.
var reportSortBudget = 0

func newReport(w io.Writer, dir string) *report {
	if w == nil {
		return nil
	}
	r := &report{w: w, dir: dir}
	r.enc = newEncoder(&r.line)
	return r
}

func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // URIs with & and <urn:...> IDs stay readable
	return enc
}

// hold keeps one line of the Run: kind, then b (which ends in a newline).
func (r *report) hold(kind byte, b []byte) error {
	if r.err != nil {
		return r.err
	}
	r.mem.WriteByte(kind)
	r.mem.Write(b)
	if r.mem.Len() < spoolAt {
		return nil
	}
	if r.spool == nil {
		f, err := tempfile.Open(r.dir, "warcdedup-report-*.tmp")
		if err != nil {
			r.err = fmt.Errorf("dedup: the report's temporary file: %w", err)
			return r.err
		}
		r.spool = f
	}
	if _, err := r.mem.WriteTo(r.spool); err != nil {
		r.err = fmt.Errorf("dedup: the report's temporary file: %w", err)
		return r.err
	}
	r.spooled = true
	return nil
}

func (r *report) duplicate(d Duplicate) error {
	if r == nil {
		return nil
	}
	d.Kind = "duplicate"
	if err := r.encode(d); err != nil {
		return err
	}
	// The cluster's line for the record, its place in the order found
	// given when it is committed.
	m := escapeField(d.KeptID) + "\t" + escapeField(d.KeptURI) + "\t" + escapeField(d.KeptDate) + "\t" + escapeField(d.RecordID) + "\n"
	return r.hold('A', []byte(m))
}

// containment writes the line of a containment pair; it joins no cluster, since
// neither record stands for the other.
func (r *report) containment(d Duplicate) error {
	if r == nil {
		return nil
	}
	d.Kind = "containment"
	return r.encode(d)
}

// encode spools v's JSON line.
func (r *report) encode(v any) error {
	r.line.Reset()
	if err := r.enc.Encode(v); err != nil {
		return err
	}
	return r.hold('D', r.line.Bytes())
}

// commit writes the Run's lines and adds their duplicates to the
// clusters.
func (r *report) commit() error {
	if r == nil {
		return nil
	}
	if r.err != nil {
		return r.err
	}
	if !r.spooled && r.mem.Len() == 0 {
		return nil
	}
	if r.members == nil {
		r.members = linesort.New(r.dir, reportSortBudget)
	}
	var err error
	if r.spooled {
		if _, err = r.spool.Seek(0, io.SeekStart); err == nil {
			err = r.take(bufio.NewReaderSize(r.spool, 64<<10))
		}
	}
	if err == nil {
		err = r.take(bufio.NewReader(&r.mem))
	}
	if err == nil {
		err = r.clear()
	}
	if err != nil {
		r.err = err
	}
	return err
}

// take writes the report lines read from br and adds the duplicates to
// the clusters.
func (r *report) take(br *bufio.Reader) error {
	for {
		l, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: read it whole.
			var rest string
			rest, err = br.ReadString('\n')
			l = append(append([]byte(nil), l...), rest...)
		}
		if err == io.EOF && len(l) == 0 {
			return nil
		}
		if err != nil {
			return err
		}
		switch l[0] {
		case 'D':
			_, err = r.w.Write(l[1:])
		case 'A':
			// Kept record first, then the order found: a cluster's lines
			// are together once sorted, its members in their order.
			k, rest, _ := bytes.Cut(l[1:len(l)-1], []byte("\t"))
			err = r.members.Add(fmt.Sprintf("%s\t%016x\t%s", k, r.seq, rest))
			r.seq++
		default:
			err = errors.New("dedup: the report's temporary file is damaged")
		}
		if err != nil {
			return err
		}
	}
}

// clear drops the Run's lines.
func (r *report) clear() error {
	r.mem.Reset()
	if !r.spooled {
		return nil
	}
	r.spooled = false
	if err := r.spool.Truncate(0); err != nil {
		return err
	}
	_, err := r.spool.Seek(0, io.SeekStart)
	return err
}

// withdraw drops the spooled lines.
func (r *report) withdraw() {
	if r == nil {
		return
	}
	if err := r.clear(); err != nil && r.err == nil {
		r.err = err
	}
}

// close writes the spooled lines, then the clusters, largest first (ties in
// the order they were found), and removes the temporary files.
func (r *report) close() error {
	if r == nil {
		return nil
	}
	err := r.commit()
	if err == nil && r.members != nil {
		err = r.writeClusters()
	}
	if r.members != nil {
		r.members.Close()
	}
	if r.spool != nil {
		r.spool.Close()
		r.spool = nil
	}
	if err != nil && r.err == nil {
		r.err = err
	}
	return err
}

// writeClusters makes a cluster of each kept record's lines in members and
// writes them, sorted by size and order found in bounded memory too.
func (r *report) writeClusters() error {
	bySize := linesort.New(r.dir, reportSortBudget)
	defer bySize.Close()
	var c *Cluster
	var first uint64
	var buf bytes.Buffer
	enc := newEncoder(&buf)
	flush := func() error {
		if c == nil {
			return nil
		}
		buf.Reset()
		if err := enc.Encode(c); err != nil {
			return err
		}
		// The largest first, then the first found: the complement of the
		// size sorts up.
		return bySize.Add(fmt.Sprintf("%016x\t%016x\t%s", ^uint64(c.Size), first, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
	}
	var key string
	err := r.members.Each(func(l string) error {
		f := strings.SplitN(l, "\t", 5)
		if len(f) != 5 {
			return errors.New("dedup: a damaged cluster line")
		}
		if c == nil || f[0] != key {
			if err := flush(); err != nil {
				return err
			}
			key = f[0]
			c = &Cluster{Kind: "cluster", KeptID: unescapeField(f[0]), KeptURI: unescapeField(f[2]), KeptDate: unescapeField(f[3]), Size: 1}
			if _, err := fmt.Sscanf(f[1], "%x", &first); err != nil {
				return errors.New("dedup: a damaged cluster line")
			}
		}
		c.Size++
		c.Members = append(c.Members, unescapeField(f[4]))
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(r.w, 64<<10)
	err = bySize.Each(func(l string) error {
		_, rest, _ := strings.Cut(l, "\t")
		_, js, _ := strings.Cut(rest, "\t")
		w.WriteString(js)
		return w.WriteByte('\n')
	})
	if err == nil {
		err = w.Flush()
	}
	return err
}

// escapeField writes s with no tab or line break, for a line of fields
// separated by tabs: a backslash, tab, line feed or carriage return as
// its backslash escape.
func escapeField(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return s
	}
	return fieldEscaper.Replace(s)
}

func unescapeField(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	return fieldUnescaper.Replace(s)
}

var (
	fieldEscaper   = strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n", "\r", "\\r")
	fieldUnescaper = strings.NewReplacer("\\\\", "\\", "\\t", "\t", "\\n", "\n", "\\r", "\r")
)

// relation says whether two URIs are of the same site, by Henzinger's site key.
func relation(a, b string) string {
	if sitekey.FromURL(a) == sitekey.FromURL(b) {
		return "same-site"
	}
	return "cross-site"
}
