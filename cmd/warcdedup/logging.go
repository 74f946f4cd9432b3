package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// lineHandler writes log records the way the rest of the command's messages
// read: "warcdedup: warning: MESSAGE (key=value, ...)". slog's text handler
// put "time=... level=WARN msg=..." lines among them.
type lineHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Level
	attrs []slog.Attr
	// clear: w is a terminal, where a progress line may be showing; a
	// message clears it first (the progress line is drawn again).
	clear bool
}

func newLineHandler(w io.Writer, level slog.Level) *lineHandler {
	return &lineHandler{mu: &sync.Mutex{}, w: w, level: level, clear: isTerminal(w)}
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var sb strings.Builder
	if h.clear {
		sb.WriteString("\r\033[K")
	}
	sb.WriteString("warcdedup: ")
	switch {
	case r.Level >= slog.LevelError:
		sb.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		sb.WriteString("warning: ")
	}
	sb.WriteString(r.Message)
	n := 0
	add := func(a slog.Attr) bool {
		if n == 0 {
			sb.WriteString(" (")
		} else {
			sb.WriteString(", ")
		}
		n++
		fmt.Fprintf(&sb, "%s=%v", a.Key, a.Value.Any())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	if n > 0 {
		sb.WriteString(")")
	}
	sb.WriteString("\n")
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, sb.String())
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }

// newLogger makes the run's logger: lines as above, or JSON lines
// (--log-format json, slog's JSON handler) for a log collector; -q keeps
// errors only.
func newLogger(w io.Writer, format string, quiet bool) (*slog.Logger, error) {
	level := slog.LevelInfo
	if quiet {
		level = slog.LevelError
	}
	switch format {
	case "text":
		return slog.New(newLineHandler(w, level)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})), nil
	}
	return nil, fmt.Errorf("--log-format is text or json, not %q", format)
}
