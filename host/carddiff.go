package host

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/udiff"
)

// The change a card asks for (docs/board.md, "The change a card asks
// for"): an edit tool's call (hookjson.EditOf) as a unified diff, and a
// shell call's whole command with its working folder. The diff is built
// on this machine when the card is made, once, bounded by
// udiff.CardLimits; the page draws it as text.
//
// An in-place edit is laid over the file it edits when that file is in
// the session's folder and readable (at most maxCardFile bytes), so the
// lines carry the file's own numbers; otherwise the edit's own text is
// diffed and its numbers count from the edit (CardFile.Note says so). A
// file outside the session's folder is never read: a Write there shows
// every line as added.

// CardFile is one file of the change a card asks for.
type CardFile struct {
	Path    string // as shown: relative to the session's folder when in it, escaped
	OldPath string // a renamed file's old path, shown
	Status  string // udiff.FileModified, FileAdded, FileDeleted or FileRenamed
	Note    string // what the numbers count from, when not the file's lines
	udiff.View
}

// File is the card's file as udiff's (for a machine that sends it on).
func (f CardFile) File() udiff.File {
	return udiff.File{Path: f.Path, OldPath: f.OldPath, Status: f.Status, View: f.View}
}

// maxCardFile bounds a file read to lay an edit over it.
const maxCardFile = 1 << 20

// maxCommand bounds a shell card's command, in bytes.
const maxCommand = 8 << 10

// Notes a CardFile may carry.
const (
	noteSnippet = "line numbers count from the edit: the file was not read"
	noteOutside = "outside the session's folder: its present text is not read, every line shows as added"
)

// cardChange is the change a call of tool asks for, as a card shows it:
// its files (an edit's), or nil.
func cardChange(tool string, input json.RawMessage, cwd string) []CardFile {
	e, ok := hookjson.EditOf(tool, input)
	if !ok {
		return nil
	}
	lim := udiff.CardLimits
	switch {
	case e.CodexPatch:
		return cardFiles(udiff.ParseCodex(e.Patch, lim, lim.Bytes))
	case e.Patch != "":
		files := cardFiles(udiff.Parse("diff --git a/f b/f\n"+e.Patch, lim, lim.Bytes))
		for i := range files {
			files[i].Path = shownPath(e.Path, cwd) // OpenCode's diff names the file as it likes
		}
		return files
	}
	path := shownPath(e.Path, cwd)
	old, exists, readable := projectFile(e.Path, cwd)
	if e.Content != nil {
		f := CardFile{Path: path, Status: udiff.FileAdded}
		switch {
		case exists && readable:
			f.Status, f.View = udiff.FileModified, udiff.Build(old, *e.Content, lim)
		case exists:
			f.Status, f.Note, f.View = udiff.FileModified, noteOutside, udiff.Build("", *e.Content, lim)
		default:
			f.View = udiff.Build("", *e.Content, lim)
		}
		return []CardFile{f}
	}
	if readable {
		if next, ok := applyEdit(old, e.Replacements); ok {
			return []CardFile{{Path: path, Status: udiff.FileModified, View: udiff.Build(old, next, lim)}}
		}
	}
	// The edit alone: each replacement's old and new text, one after the
	// other, as one view.
	var olds, news strings.Builder
	for _, r := range e.Replacements {
		olds.WriteString(withNewline(r.Old))
		news.WriteString(withNewline(r.New))
	}
	return []CardFile{{Path: path, Status: udiff.FileModified, Note: noteSnippet, View: udiff.Build(olds.String(), news.String(), lim)}}
}

// cardFiles are a patch's files as a card shows them.
func cardFiles(fs []udiff.File) []CardFile {
	out := make([]CardFile, 0, len(fs))
	for _, f := range fs {
		out = append(out, CardFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, View: f.View})
	}
	return out
}

// applyEdit is old with the replacements made as the agent will make
// them; false when one's old text is not in the file (the agent will
// refuse it, or the file changed since it read it).
func applyEdit(old string, rs []Replacement) (string, bool) {
	for _, r := range rs {
		if r.Old == "" || !strings.Contains(old, r.Old) {
			return "", false
		}
		if r.All {
			old = strings.ReplaceAll(old, r.Old, r.New)
		} else {
			old = strings.Replace(old, r.Old, r.New, 1)
		}
	}
	return old, true
}

// Replacement is hookjson's, named here for applyEdit's signature.
type Replacement = hookjson.Replacement

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// shownPath is a file's path as a card shows it: relative to the
// session's folder when it is in it, escaped, bounded.
func shownPath(path, cwd string) string {
	if cwd != "" && filepath.IsAbs(path) {
		if rel, err := filepath.Rel(cwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			path = rel
		}
	}
	if len(path) > 1024 {
		cut := 1024
		for cut > 0 && !utf8.RuneStart(path[cut]) {
			cut--
		}
		path = path[:cut] + "…"
	}
	return textrule.Escape(path, "")
}

// projectFile reads the file an edit names when it is a regular file in
// the session's folder (cwd, absolute; symbolic links followed on both
// sides) of at most maxCardFile bytes: its text, whether it exists, and
// whether it was read.
func projectFile(path, cwd string) (text string, exists, read bool) {
	if path == "" || strings.ContainsRune(path, 0) {
		return "", false, false
	}
	if !filepath.IsAbs(path) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return "", false, false
		}
		path = filepath.Join(cwd, path)
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", false, false
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", true, false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", true, false
	}
	root, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", true, false
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", true, false
	}
	// Never waited on: a FIFO in the folder would hold the hook (and its
	// agent) for a writer that never comes.
	f, err := fsx.OpenRegular(real)
	if err != nil {
		return "", true, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxCardFile {
		return "", true, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCardFile+1))
	if err != nil || len(b) > maxCardFile {
		return "", true, false
	}
	return string(b), true, true
}

// cardCommand is a shell call's whole command as a card shows it: its
// lines kept, every other hidden character escaped, bounded; "" for a
// call with no command.
func cardCommand(input json.RawMessage) string {
	var in hookjson.Fields
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	var cmd string
	if json.Unmarshal(in["command"], &cmd) != nil || strings.TrimSpace(cmd) == "" {
		return ""
	}
	if len(cmd) > maxCommand {
		cut := maxCommand
		for cut > 0 && !utf8.RuneStart(cmd[cut]) {
			cut--
		}
		cmd = cmd[:cut] + "…"
	}
	return textrule.Escape(strings.TrimRight(cmd, "\n"), "\n\t")
}

// asked is what a card shows of the call it asks about, beside its tool.
type asked struct {
	files        []CardFile
	command, cwd string
}

// askedFor reads the change a call asks for and the folder it runs in
// (the hook's cwd, else the row's). It takes the board's lock, never the
// registry's: called before observe locks.
func (a *approvals) askedFor(row, cwd, tool string, input json.RawMessage) asked {
	if cwd == "" {
		if s, ok := a.board.session(row); ok {
			cwd = s.Cwd
		}
	}
	if !filepath.IsAbs(cwd) {
		cwd = ""
	}
	return asked{
		files:   cardChange(tool, input, cwd),
		command: cardCommand(input),
		cwd:     shownPath(cwd, ""),
	}
}
