package udiff

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

// File is one file of a patch git wrote, as a page shows it.
type File struct {
	// Path is the file's path in the work tree (the new one of a rename),
	// as git wrote it unquoted, then shown (textrule.Escape).
	Path string
	// OldPath is a renamed file's old path, shown; "" otherwise.
	OldPath string
	Status  string // FileModified, FileAdded, FileDeleted or FileRenamed
	View
}

// File statuses.
const (
	FileModified = "modified"
	FileAdded    = "added"
	FileDeleted  = "deleted"
	FileRenamed  = "renamed"
)

// Parse reads the patch of `git diff` (its default prefixes a/ and b/,
// no colour) as files, each bounded by lim and all of them together by
// budget bytes of shown text (0: none): past it, a file's lines are
// counted, not shown. Anything that is not a patch's line is skipped: the
// parse never fails, it only shows less.
func Parse(patch string, lim Limits, budget int) []File {
	var files []File
	var raw []rawLine // the current file's lines, laid out when it ends
	used := 0
	flush := func() {
		if len(files) == 0 {
			return
		}
		f := &files[len(files)-1]
		l := lim
		if budget > 0 {
			left := max(budget-used, 0)
			if l.Bytes == 0 || left < l.Bytes {
				l.Bytes = left
			}
			if left == 0 {
				l.Lines = -1
			}
		}
		f.View = layout(raw, l)
		for _, x := range f.Lines {
			used += len(x.Text)
		}
		raw = raw[:0]
	}
	var oldLeft, newLeft, oldN, newN int
	for len(patch) > 0 {
		line := patch
		if i := strings.IndexByte(patch, '\n'); i >= 0 {
			line, patch = patch[:i], patch[i+1:]
		} else {
			patch = ""
		}
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, " ") || line == "":
				raw = append(raw, rawLine{Kept, oldN, newN, strings.TrimPrefix(line, " ")})
				oldN, newN, oldLeft, newLeft = oldN+1, newN+1, oldLeft-1, newLeft-1
				continue
			case strings.HasPrefix(line, "-"):
				raw = append(raw, rawLine{Removed, oldN, 0, line[1:]})
				oldN, oldLeft = oldN+1, oldLeft-1
				continue
			case strings.HasPrefix(line, "+"):
				raw = append(raw, rawLine{Added, 0, newN, line[1:]})
				newN, newLeft = newN+1, newLeft-1
				continue
			case strings.HasPrefix(line, `\`):
				continue // "\ No newline at end of file"
			}
			oldLeft, newLeft = 0, 0 // a short hunk: read on as headers
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			files = append(files, File{Status: FileModified, Path: headerPath(line[len("diff --git "):])})
		case len(files) == 0:
			// Before the first file: nothing of a patch.
		case strings.HasPrefix(line, `\`):
		case strings.HasPrefix(line, "@@ "):
			o, os, n, ns, ok := hunkHeader(line)
			if !ok {
				continue
			}
			oldN, newN, oldLeft, newLeft = o, n, os, ns
			if o == 0 && os == 0 {
				oldN = 1
			}
			if n == 0 && ns == 0 {
				newN = 1
			}
			raw = append(raw, rawLine{Hunk, 0, 0, line[:strings.Index(line[2:], "@@")+4]})
		case strings.HasPrefix(line, "new file mode"):
			files[len(files)-1].Status = FileAdded
		case strings.HasPrefix(line, "deleted file mode"):
			files[len(files)-1].Status = FileDeleted
		case strings.HasPrefix(line, "rename from "):
			f := &files[len(files)-1]
			f.Status, f.OldPath = FileRenamed, showPath(unquote(line[len("rename from "):]))
		case strings.HasPrefix(line, "rename to "):
			files[len(files)-1].Path = showPath(unquote(line[len("rename to "):]))
		case strings.HasPrefix(line, "+++ "):
			if p := unquote(line[4:]); p != "/dev/null" {
				files[len(files)-1].Path = showPath(strings.TrimPrefix(p, "b/"))
			}
		case strings.HasPrefix(line, "--- "):
			if p := unquote(line[4:]); p != "/dev/null" && files[len(files)-1].Path == "" {
				files[len(files)-1].Path = showPath(strings.TrimPrefix(p, "a/"))
			}
		case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
			raw = append(raw, rawLine{op: 'b'})
		}
	}
	flush()
	return files
}

// rawLine is a patch's line before it is laid out.
type rawLine struct {
	op       byte // as Line's, or 'b': the file is binary
	old, new int
	text     string
}

// layout lays a file's lines out within lim, its CR LF line ends taken off
// when every line has one.
func layout(raw []rawLine, lim Limits) View {
	var v View
	crlf, lines := true, false
	for _, r := range raw {
		switch r.op {
		case 'b':
			return View{Binary: true}
		case Added:
			v.Added++
		case Removed:
			v.Removed++
		}
		if r.op != Hunk {
			lines = true
			crlf = crlf && strings.HasSuffix(r.text, "\r")
		}
	}
	crlf = crlf && lines
	v.CRLF = crlf
	w := writer{v: &v, lim: lim, crlf: crlf}
	if lim.Lines < 0 {
		w.full = true
	}
	for _, r := range raw {
		w.add(Line{Op: r.op, Old: r.old, New: r.new, Text: r.text})
	}
	w.finish()
	return v
}

// hunkHeader reads "@@ -o,os +n,ns @@": the starts and counts (a count
// left out is 1).
func hunkHeader(line string) (o, os, n, ns int, ok bool) {
	rest, found := strings.CutPrefix(line, "@@ -")
	if !found {
		return
	}
	oldR, rest, found := strings.Cut(rest, " +")
	if !found {
		return
	}
	newR, _, found := strings.Cut(rest, " @@")
	if !found {
		return
	}
	o, os, ok1 := hunkRange(oldR)
	n, ns, ok2 := hunkRange(newR)
	return o, os, n, ns, ok1 && ok2
}

func hunkRange(s string) (start, n int, ok bool) {
	a, b, two := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	n = 1
	if two {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return 0, 0, false
		}
	}
	return start, n, true
}

// headerPath is the path of a "diff --git a/X b/X" header: the b side,
// when the two sides are one path (the usual case; a rename's and an
// added or deleted file's own headers name it better and come after).
func headerPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		// Quoted names: the second is after the first's closing quote.
		if i := closingQuote(s); i > 0 && i+2 < len(s) {
			return showPath(strings.TrimPrefix(unquote(s[i+2:]), "b/"))
		}
		return showPath(s)
	}
	if len(s)%2 == 1 {
		h := len(s) / 2
		if s[h] == ' ' && strings.TrimPrefix(s[:h], "a/") == strings.TrimPrefix(s[h+1:], "b/") {
			return showPath(strings.TrimPrefix(s[h+1:], "b/"))
		}
	}
	return showPath(s)
}

// closingQuote is the index of the quote that ends s's first quoted name.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote is a path as git wrote it, its C-style quotes taken off (git
// quotes a name with a control character, a quote or a backslash, and
// with core.quotePath every byte past ASCII); a path that does not unquote
// is kept as it was. Git ends a name with a tab when it has a space at its
// end ("--- a/x \t"): taken off too.
func unquote(s string) string {
	s = strings.TrimSuffix(s, "\t")
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// maxPath bounds a path as shown.
const maxPath = 1024

// showPath is a path as a view shows it: every hidden character escaped
// (a tab too), cut at maxPath bytes.
func showPath(p string) string {
	if len(p) > maxPath {
		cut := maxPath
		for cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		p = p[:cut] + "…"
	}
	return textrule.Escape(p, "")
}
