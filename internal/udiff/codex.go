package udiff

import "strings"

// ParseCodex reads a patch in Codex's apply_patch format ("*** Begin
// Patch", then "*** Add File:", "*** Delete File:" or "*** Update File:"
// sections, each with optional "*** Move to:" and "@@" context lines) as
// files, bounded as Parse's. The format carries no line numbers: the
// lines have none (Old and New are 0). Anything else is skipped.
func ParseCodex(patch string, lim Limits, budget int) []File {
	var files []File
	var raw []rawLine
	used := 0
	flush := func() {
		if len(files) == 0 {
			return
		}
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
		f := &files[len(files)-1]
		f.View = layout(raw, l)
		for _, x := range f.Lines {
			used += len(x.Text)
		}
		raw = raw[:0]
	}
	start := func(path, status string) {
		flush()
		files = append(files, File{Path: showPath(strings.TrimSpace(path)), Status: status})
	}
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			start(line[len("*** Add File: "):], FileAdded)
		case strings.HasPrefix(line, "*** Delete File: "):
			start(line[len("*** Delete File: "):], FileDeleted)
		case strings.HasPrefix(line, "*** Update File: "):
			start(line[len("*** Update File: "):], FileModified)
		case len(files) == 0:
		case strings.HasPrefix(line, "*** Move to: "):
			f := &files[len(files)-1]
			f.OldPath, f.Path, f.Status = f.Path, showPath(strings.TrimSpace(line[len("*** Move to: "):])), FileRenamed
		case strings.HasPrefix(line, "***"):
			// *** End of File, *** End Patch
		case strings.HasPrefix(line, "@@"):
			raw = append(raw, rawLine{op: Hunk, text: showPath(line)})
		case strings.HasPrefix(line, "+"):
			raw = append(raw, rawLine{op: Added, text: line[1:]})
		case strings.HasPrefix(line, "-"):
			raw = append(raw, rawLine{op: Removed, text: line[1:]})
		case strings.HasPrefix(line, " "):
			raw = append(raw, rawLine{op: Kept, text: line[1:]})
		}
	}
	flush()
	return files
}
