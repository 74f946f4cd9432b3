//go:build !linux

package tempfile

import (
	"errors"
	"os"
)

// openUnnamed is Linux's O_TMPFILE; elsewhere the named fallback is used.
func openUnnamed(dir, pattern string) (*os.File, error) { return nil, errors.ErrUnsupported }
