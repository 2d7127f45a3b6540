package templates

import "strconv"

// ChangesView is a row's Changes page: what its session changed in its
// folder since it started (host.Host.Changes), or why there is no such
// view.
type ChangesView struct {
	Session string
	Name    string // the row's title, else its project, else "this session"
	Cwd     string
	Agent   string
	// Problem is why there is no view ("no changes view: not a git work
	// tree"); "" when there is one.
	Problem   string
	Files     []DiffFile
	FilesMore int
	// Untracked are the new files git does not track, named.
	Untracked     []string
	UntrackedMore int
	Moved         bool   // HEAD moved since the start
	Base          string // the start commit, abbreviated
	BaseGone      bool
	// Reply: the session takes a reply from the board now (its pane is
	// known and it waits for a prompt); ReplyWhy says why not.
	Reply    bool
	ReplyWhy string
}

// totals are the view's +/− over every file.
func (v ChangesView) totals() (added, removed int) {
	for _, f := range v.Files {
		added += f.Added
		removed += f.Removed
	}
	return
}

// summary is the view's first line: how many files, lines added and
// removed.
func (v ChangesView) summary() string {
	n := len(v.Files) + v.FilesMore
	a, r := v.totals()
	files := "files"
	if n == 1 {
		files = "file"
	}
	s := strconv.Itoa(n) + " " + files + " changed, +" + strconv.Itoa(a) + " −" + strconv.Itoa(r)
	if u := len(v.Untracked) + v.UntrackedMore; u > 0 {
		s += ", " + strconv.Itoa(u) + " untracked"
	}
	return s
}

// fileID is the id of the i'th file's diff.
func fileID(i int) string { return "chg-f" + strconv.Itoa(i) }
