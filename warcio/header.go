package warcio

import (
	"bytes"
	"strings"
)

// Field is one header field, with the name as it was written.
type Field struct {
	Name  string
	Value string
}

// Header is a WARC record's version line and its fields in input order. Repeated
// fields (WARC-Concurrent-To) stay repeated; a folded value is joined with a single
// space, as RFC 2616 allows.
type Header struct {
	Version string // e.g. "WARC/1.1"
	Fields  []Field
}

// Get returns the value of the first field with the given name, compared without
// regard to case, or "".
func (h *Header) Get(name string) string {
	for _, f := range h.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Has reports whether a field of that name is present.
func (h *Header) Has(name string) bool {
	for _, f := range h.Fields {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// Values returns the values of every field with the given name, in order.
func (h *Header) Values(name string) []string {
	var v []string
	for _, f := range h.Fields {
		if strings.EqualFold(f.Name, name) {
			v = append(v, f.Value)
		}
	}
	return v
}

// Set replaces the first field of that name and removes the others, or appends it.
func (h *Header) Set(name, value string) {
	for i := range h.Fields {
		if strings.EqualFold(h.Fields[i].Name, name) {
			h.Fields[i].Value = value
			h.delFrom(name, i+1)
			return
		}
	}
	h.Fields = append(h.Fields, Field{name, value})
}

// Add appends a field, keeping any of the same name.
func (h *Header) Add(name, value string) { h.Fields = append(h.Fields, Field{name, value}) }

// Del removes every field of that name.
func (h *Header) Del(name string) { h.delFrom(name, 0) }

func (h *Header) delFrom(name string, from int) {
	out := h.Fields[:from]
	for _, f := range h.Fields[from:] {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	h.Fields = out
}

// Clone returns a deep copy.
func (h *Header) Clone() *Header {
	c := &Header{Version: h.Version, Fields: make([]Field, len(h.Fields))}
	copy(c.Fields, h.Fields)
	return c
}

// appendTo writes the header block with CRLF line ends and the blank line.
func (h *Header) appendTo(b []byte) []byte {
	b = append(b, h.Version...)
	b = append(b, "\r\n"...)
	for _, f := range h.Fields {
		b = append(b, f.Name...)
		b = append(b, ": "...)
		b = append(b, f.Value...)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// parseFields parses header lines (without the first line and without the blank
// line that ends the block). Lines may end in CRLF or LF alone (real ClueWeb09 and
// wget files use LF). A line starting with space or tab continues the previous field.
// It returns false for a line that is neither a field nor a continuation.
func parseFields(lines []byte, dst []Field) ([]Field, bool) {
	for len(lines) > 0 {
		var line []byte
		if i := bytes.IndexByte(lines, '\n'); i >= 0 {
			line, lines = lines[:i], lines[i+1:]
		} else {
			line, lines = lines, nil
		}
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(dst) == 0 {
				return dst, false
			}
			v := strings.TrimSpace(string(line))
			if v != "" {
				last := &dst[len(dst)-1]
				if last.Value == "" {
					last.Value = v
				} else {
					last.Value += " " + v
				}
			}
			continue
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			return dst, false
		}
		name := string(bytes.TrimRight(line[:i], " \t"))
		if name == "" || strings.ContainsAny(name, " \t") {
			return dst, false
		}
		dst = append(dst, Field{Name: name, Value: string(bytes.TrimSpace(line[i+1:]))})
	}
	return dst, true
}
