package udiff

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

// What a page shows of a diff: View is one file's diff as lines with
// their numbers, built from two texts (Build: an approval card's edit) or
// read from git's output (Parse: a session's changes), bounded in lines
// and bytes, every line's text fit to be shown (textrule.Escape: a control
// or bidi character is its escape, invalid UTF-8 its \xNN), the tab kept.

// Kinds of Line.
const (
	Kept    byte = ' '
	Removed byte = '-'
	Added   byte = '+'
	// Hunk is a hunk's header ("@@ -3,7 +3,8 @@"), between runs of lines.
	Hunk byte = '@'
)

// Line is one line of a View.
type Line struct {
	Op   byte   // Kept, Removed, Added or Hunk
	Old  int    // its number in the old text (1-based); 0 for an added line or a hunk
	New  int    // its number in the new text; 0 for a removed line or a hunk
	Text string // shown text, without its line end; a hunk's header
}

// View is one file's diff as a page shows it.
type View struct {
	Lines []Line
	// Added and Removed count every line of the diff, shown or not.
	Added, Removed int
	// More is how many lines of the diff the limits left out.
	More int
	// Binary: either side holds a NUL byte; no lines are shown.
	Binary bool
	// CRLF: every line of both sides ended in CR LF, and Lines show them
	// without the CR. A CR anywhere else is shown as \r.
	CRLF bool
}

// Limits bound a View: at most Lines lines (hunk headers counted) and
// Bytes bytes of text, each line cut at LineBytes bytes (with "…").
type Limits struct {
	Lines, Bytes, LineBytes int
}

// CardLimits are an approval card's: a card is drawn for every viewer of
// the board, in every render.
var CardLimits = Limits{Lines: 200, Bytes: 16 << 10, LineBytes: 400}

// Context is the number of kept lines shown around a change.
const Context = 3

// binaryProbe is how far into a text a NUL byte makes it binary (git's
// rule: the first 8,000 bytes).
const binaryProbe = 8000

// IsBinary reports whether s holds a NUL byte within its first 8,000.
func IsBinary(s string) bool {
	return strings.IndexByte(s[:min(len(s), binaryProbe)], 0) >= 0
}

// Build is the diff turning a into b, as a View within lim.
func Build(a, b string, lim Limits) View {
	if IsBinary(a) || IsBinary(b) {
		return View{Binary: true}
	}
	al, bl := split(a), split(b)
	crlf := allCRLF(al) && allCRLF(bl) && (len(al) > 0 || len(bl) > 0)
	ops := script(al, bl)
	var v View
	v.CRLF = crlf
	w := writer{v: &v, lim: lim, crlf: crlf}
	for i := 0; i < len(ops); {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-Context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*Context {
				break
			}
		}
		end = min(len(ops), end+Context)
		hunk := ops[start:end]
		var aN, bN int
		for _, o := range hunk {
			if o.kind != '+' {
				aN++
			}
			if o.kind != '-' {
				bN++
			}
		}
		w.add(Line{Op: Hunk, Text: fmt.Sprintf("@@ -%s +%s @@", rng(hunk[0].a, aN), rng(hunk[0].b, bN))})
		for _, o := range hunk {
			switch o.kind {
			case '+':
				v.Added++
				w.add(Line{Op: Added, New: o.b + 1, Text: bl[o.b]})
			case '-':
				v.Removed++
				w.add(Line{Op: Removed, Old: o.a + 1, Text: al[o.a]})
			default:
				w.add(Line{Op: Kept, Old: o.a + 1, New: o.b + 1, Text: al[o.a]})
			}
		}
		i = end
	}
	w.finish()
	return v
}

// allCRLF reports whether every line ends in CR LF (a last line without
// a line end does not count against it).
func allCRLF(ls []string) bool {
	for i, l := range ls {
		if strings.HasSuffix(l, "\n") && !strings.HasSuffix(l, "\r\n") {
			return false
		}
		if i == len(ls)-1 && !strings.HasSuffix(l, "\n") && strings.HasSuffix(l, "\r") {
			return false
		}
	}
	return true
}

// writer adds lines to a View within its limits.
type writer struct {
	v     *View
	lim   Limits
	bytes int
	crlf  bool
	full  bool
}

// add shows l, or counts it in More once the view is full. Once one line
// did not fit, none after it is shown: a view never skips a line.
func (w *writer) add(l Line) {
	if !w.full && l.Op != Hunk {
		l.Text = Shown(l.Text, w.crlf, w.lim.LineBytes)
	}
	if w.full || (w.lim.Lines > 0 && len(w.v.Lines) >= w.lim.Lines) || (w.lim.Bytes > 0 && w.bytes+len(l.Text) > w.lim.Bytes) {
		w.full = true
		if l.Op != Hunk {
			w.v.More++
		}
		return
	}
	w.bytes += len(l.Text)
	w.v.Lines = append(w.v.Lines, l)
}

// finish drops a hunk header left last (its lines did not fit).
func (w *writer) finish() {
	if n := len(w.v.Lines); n > 0 && w.v.Lines[n-1].Op == Hunk {
		w.v.Lines = w.v.Lines[:n-1]
	}
}

// Shown is a line's text as a view shows it: without its line end (and
// its CR when crlf), every hidden character but the tab escaped, cut at
// max bytes (0: no cut) with "…".
func Shown(s string, crlf bool, max int) string {
	s = strings.TrimSuffix(s, "\n")
	if crlf {
		s = strings.TrimSuffix(s, "\r")
	}
	if max > 0 && len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return textrule.Escape(s, "\t")
}
