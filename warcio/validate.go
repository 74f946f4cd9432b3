package warcio

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Problem is one way a record departs from the WARC standard without being
// unreadable: a missing mandatory field, a date in the wrong form, a field that may
// not repeat and does. A record with problems is still read as any other.
type Problem struct {
	Field string
	What  string
}

func (p Problem) String() string {
	if p.Field == "" {
		return p.What
	}
	return p.Field + ": " + p.What
}

// repeatable are the fields WARC 1.1 (Sec. 5) allows more than once. Fields the
// standard does not define (extension fields) may repeat.
var repeatable = map[string]bool{"warc-concurrent-to": true, "warc-protocol": true}

var knownTypes = map[string]bool{"warcinfo": true, "response": true, "resource": true, "request": true,
	"metadata": true, "revisit": true, "conversion": true, "continuation": true}

// needsTarget are the record types that must name WARC-Target-URI (WARC 1.1 Sec. 5.5).
var needsTarget = map[string]bool{"response": true, "resource": true, "request": true,
	"revisit": true, "conversion": true, "continuation": true}

// Validate lists the problems of a WARC record's header against WARC 1.0/1.1
// (ISO 28500, Sec. 5 and 6). It checks what a reader can check from the header,
// and, once the record is complete, the CR LF CR LF that must follow the block.
func Validate(rec *Record) []Problem {
	if rec.Kind != KindWARC {
		return nil
	}
	h := &rec.Header
	var ps []Problem
	add := func(f, format string, a ...any) { ps = append(ps, Problem{f, fmt.Sprintf(format, a...)}) }
	seen := map[string]int{}
	for _, f := range h.Fields {
		k := strings.ToLower(f.Name)
		seen[k]++
		if seen[k] == 2 && !repeatable[k] && (strings.HasPrefix(k, "warc-") || strings.HasPrefix(k, "content-")) {
			add(f.Name, "repeated, but the standard allows it once")
		}
		if strings.TrimSpace(f.Value) == "" {
			add(f.Name, "empty value")
		}
	}
	for _, f := range []string{"WARC-Record-ID", "Content-Length", "WARC-Date", "WARC-Type"} {
		if !h.Has(f) {
			add(f, "missing (mandatory)")
		}
	}
	if id := h.Get("WARC-Record-ID"); id != "" && !(strings.HasPrefix(id, "<") && strings.HasSuffix(id, ">") && strings.Contains(id, ":")) {
		add("WARC-Record-ID", "%q is not a <URI>", id)
	}
	if d := h.Get("WARC-Date"); d != "" && !validDate(d) {
		add("WARC-Date", "%q is not a W3C-ISO8601 UTC date", d)
	}
	t := strings.ToLower(h.Get("WARC-Type"))
	if t != "" && !knownTypes[t] {
		add("WARC-Type", "%q is not a standard type", h.Get("WARC-Type"))
	}
	if needsTarget[t] && !h.Has("WARC-Target-URI") {
		add("WARC-Target-URI", "missing (mandatory for %s)", t)
	}
	if t == "revisit" && !h.Has("WARC-Profile") {
		add("WARC-Profile", "missing (mandatory for revisit)")
	}
	if t == "continuation" && (!h.Has("WARC-Segment-Origin-ID") || !h.Has("WARC-Segment-Number")) {
		add("WARC-Segment-Origin-ID", "continuation records need WARC-Segment-Origin-ID and WARC-Segment-Number")
	}
	if v := h.Get("WARC-Segment-Number"); v != "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 1:
			add("WARC-Segment-Number", "%q is not a positive integer", v)
		case t == "continuation" && n < 2:
			add("WARC-Segment-Number", "a continuation's segment number is at least 2")
		case t != "continuation" && n != 1:
			add("WARC-Segment-Number", "only the first segment (1) may be a %s", t)
		}
	}
	for _, f := range []string{"WARC-Block-Digest", "WARC-Payload-Digest"} {
		if v := h.Get(f); v != "" {
			if algo, val, ok := strings.Cut(v, ":"); !ok || algo == "" || val == "" {
				add(f, "%q is not algorithm:value", v)
			} else if err := (&blockDigest{}).start(v); err != nil {
				add(f, "%q: %v", v, err)
			}
		}
	}
	ct := strings.ToLower(h.Get("Content-Type"))
	if t == "warcinfo" && ct != "" && !strings.HasPrefix(ct, "application/warc-fields") {
		add("Content-Type", "%q: a warcinfo block should be application/warc-fields", h.Get("Content-Type"))
	}
	if strings.HasPrefix(ct, "application/http") {
		if _, params, ok := strings.Cut(ct, ";"); ok {
			if m := strings.TrimSpace(params); strings.HasPrefix(m, "msgtype=") &&
				m != "msgtype=request" && m != "msgtype=response" {
				add("Content-Type", "%q: msgtype is request or response", h.Get("Content-Type"))
			}
		}
	}
	if rec.ContentLength > 0 && !h.Has("Content-Type") && t != "continuation" {
		add("Content-Type", "missing (recommended for a non-empty block)")
	}
	if !rec.TrailerOK && rec.complete {
		add("", "the block is not followed by CR LF CR LF")
	}
	return ps
}

// validDate accepts the W3C-ISO8601 forms WARC uses: seconds (1.0) and, in 1.1,
// fractions of a second, always in UTC ("Z").
func validDate(s string) bool {
	for _, layout := range []string{"2006-01-02T15:04:05Z", "2006-01-02T15:04:05.999999999Z"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}
