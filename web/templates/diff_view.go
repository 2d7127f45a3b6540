package templates

import (
	"strconv"

	"github.com/notch-web/notch-web/internal/udiff"
)

// DiffFile is one file of a diff as a page draws it: an approval card's
// change (host.CardFile) or a file of a session's Changes. Every string is
// text the host made fit to show (udiff: escaped, bounded).
type DiffFile struct {
	Path, OldPath string
	Status        string // udiff.FileModified | FileAdded | FileDeleted | FileRenamed
	Note          string // what the numbers count from, when not the file's own lines
	// Earlier: the file was already changed when the session started; its
	// diff includes those earlier edits (docs/board.md).
	Earlier bool
	udiff.View
}

// foldAt is the number of lines past which a diff starts folded.
const foldAt = 24

// folded reports whether f's diff starts folded (a long one).
func (f DiffFile) folded() bool { return len(f.Lines) > foldAt }

// statusWords is a file's status in words, "" for a plain change.
func (f DiffFile) statusWords() string {
	switch f.Status {
	case udiff.FileAdded:
		return "new file"
	case udiff.FileDeleted:
		return "deleted"
	case udiff.FileRenamed:
		return "renamed from " + f.OldPath
	}
	return ""
}

// lineClass is a diff line's class: a added, d removed, none kept.
func lineClass(l udiff.Line) string {
	switch l.Op {
	case udiff.Added:
		return "a"
	case udiff.Removed:
		return "d"
	}
	return ""
}

// lineMark is a diff line's mark: + and − (U+2212) say what colour says.
func lineMark(l udiff.Line) string {
	switch l.Op {
	case udiff.Added:
		return "+"
	case udiff.Removed:
		return "−"
	}
	return ""
}

// moreLines is "N more lines" (or "1 more line").
func moreLines(n int) string {
	if n == 1 {
		return "1 more line"
	}
	return strconv.Itoa(n) + " more lines"
}
