// Package changes is what a session changed in its folder since it
// started, read with git on the machine that runs the agent
// (docs/board.md, "Changes"): the start point recorded when the session
// opens (Record: HEAD and the files dirty then, each with a hash of its
// content), and, on demand, the files changed since (Compute: git's diff
// against that commit, the untracked files, and the files dirty at the
// start left out while they are as they were).
//
// git runs with a fixed argv and no shell, in the work tree's top folder,
// with options that keep a repository's own configuration from running
// programs a diff would not need (no external diff, no textconv, no
// fsmonitor), without taking optional locks (GIT_OPTIONAL_LOCKS=0: an
// agent's own git is never kept waiting), bounded in time (the context)
// and in what it may print (maxOutput).
package changes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/udiff"
)

// Why there is no changes view.
var (
	ErrNotGit  = errors.New("no changes view: not a git work tree")
	ErrGone    = errors.New("no changes view: the session's folder is gone")
	ErrNoGit   = errors.New("no changes view: git is not installed on the machine that runs the agent")
	ErrNoStart = errors.New("no changes view: the session's start point is not known (it opened before this host started)")
	ErrGit     = errors.New("no changes view: git failed")
)

// Limits of a Changes view.
const (
	// Timeout bounds one Record or Compute.
	Timeout = 5 * time.Second
	// maxOutput bounds what one git command may print.
	maxOutput = 16 << 20
	// Budget bounds the text of every file's lines together: a view is
	// at most about a megabyte on the wire, and fits a NATS message.
	Budget = 512 << 10
	// MaxDirty bounds the files dirty at the start whose content is
	// hashed; past it, one is known by its size and time.
	MaxDirty = 2000
	// maxHashed bounds a file hashed whole.
	maxHashed = 32 << 20
	// MaxUntracked bounds the untracked files named.
	MaxUntracked = 500
	// MaxFiles bounds the files a view lists.
	MaxFiles = 1000
)

// FileLimits bound one file's diff in a Changes view.
var FileLimits = udiff.Limits{Lines: 3000, Bytes: 256 << 10, LineBytes: 1000}

// Start is a session's start point.
type Start struct {
	Root string // the work tree's top folder
	Head string // the commit checked out ("" in a repository with none)
	// Dirty are the files changed or untracked then (slash paths from
	// Root), each with what its content was.
	Dirty map[string]string
	At    time.Time
}

// File is one file of a Changes view.
type File struct {
	udiff.File
	// Earlier: the file was already changed when the session started,
	// and has changed since: its diff includes those earlier edits.
	Earlier bool
}

// Result is a Changes view.
type Result struct {
	Files []File
	// FilesMore counts the files past MaxFiles, not listed.
	FilesMore int
	// Untracked are the files git does not track and ignores not, new
	// since the start (or changed since, when they were there then).
	Untracked     []string
	UntrackedMore int
	// Moved: HEAD is not the commit the session started on (commits, a
	// checkout, a rebase); the diff is still against that commit.
	Moved bool
	// Base is the start commit, abbreviated; "" for none.
	Base string
	// BaseGone: the start commit is no longer in the repository; the
	// diff is against HEAD.
	BaseGone bool
}

// Git runs git. Its zero value runs the "git" on PATH.
type Git struct {
	// Path is the git binary; "" looks "git" up on PATH.
	Path string
}

// run runs git in dir with the fixed options and args, and returns what
// it printed (at most maxOutput bytes: past it, an error).
func (g Git) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	bin := g.Path
	if bin == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			return nil, ErrNoGit
		}
		bin = p
	}
	argv := append([]string{
		"-c", "core.fsmonitor=false", "-c", "core.quotePath=false", "-c", "diff.external=",
		"-c", "color.ui=never", "-c", "core.untrackedCache=false", "--no-pager",
	}, args...)
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Dir = dir
	cmd.Env = append(gitless(os.Environ()), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_PAGER=cat")
	var out, errb limited
	out.max, errb.max = maxOutput, 4<<10
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if out.over {
		return nil, fmt.Errorf("%w: git %s printed more than %d bytes", ErrGit, args[0], maxOutput)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: git %s took too long", ErrGit, args[0])
	}
	if err != nil {
		return out.b.Bytes(), &gitError{args: args, err: err, stderr: strings.TrimSpace(errb.b.String())}
	}
	return out.b.Bytes(), nil
}

// gitless is env without git's own variables: a GIT_DIR, GIT_WORK_TREE
// or GIT_INDEX_FILE the host was started with must not point the view at
// another repository.
func gitless(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return out
}

// gitError is a git command that failed.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", e.args[0], e.err, e.stderr)
}
func (e *gitError) Unwrap() error { return ErrGit }

// limited keeps the first max bytes written to it.
type limited struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if l.b.Len()+len(p) > l.max {
		l.over = true
		return 0, io.ErrShortWrite
	}
	return l.b.Write(p)
}

// folder checks that dir is a folder, for ErrGone.
func folder(dir string) error {
	if dir == "" || !filepath.IsAbs(dir) {
		return ErrNotGit
	}
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !st.IsDir()) {
		return ErrGone
	}
	return err
}

// Record reads the start point of a session in dir: its work tree's top
// folder, HEAD, and the files dirty then with their content's hash.
func (g Git) Record(ctx context.Context, dir string) (Start, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := folder(dir); err != nil {
		return Start{}, err
	}
	top, err := g.run(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) {
			return Start{}, ErrNotGit
		}
		return Start{}, err
	}
	root := strings.TrimSuffix(string(top), "\n")
	if root == "" {
		return Start{}, ErrNotGit // a bare repository, or inside .git
	}
	s := Start{Root: root, At: time.Now(), Dirty: map[string]string{}}
	s.Head = g.head(ctx, root)
	status, err := g.run(ctx, root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return Start{}, err
	}
	for _, p := range statusPaths(status) {
		if len(s.Dirty) >= MaxDirty {
			s.Dirty[p] = stamp(filepath.Join(root, filepath.FromSlash(p)))
			continue
		}
		s.Dirty[p] = fingerprint(filepath.Join(root, filepath.FromSlash(p)))
	}
	return s, nil
}

// head is the commit checked out in root, "" for none.
func (g Git) head(ctx context.Context, root string) string {
	out, err := g.run(ctx, root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// statusPaths are the paths of `git status --porcelain=v1 -z
// --no-renames`: "XY path\0" each.
func statusPaths(out []byte) []string {
	var paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) > 3 && rec[2] == ' ' {
			paths = append(paths, string(rec[3:]))
		}
	}
	return paths
}

// fingerprint is what a file's content is: its sha256, "absent", or its
// size and time when it is too large to hash (or not a regular file).
func fingerprint(path string) string {
	f, err := fsx.OpenRegular(path) // a FIFO is never waited on
	if errors.Is(err, fsx.ErrNotRegular) {
		return stamp(path)
	}
	if err != nil {
		return "absent"
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxHashed {
		return stamp(path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxHashed)); err != nil {
		return stamp(path)
	}
	return fmt.Sprintf("sha256:%x", h.Sum(nil))
}

// stamp is a file's size, mode and time, or "absent".
func stamp(path string) string {
	st, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	return fmt.Sprintf("stat:%d:%v:%d", st.Size(), st.Mode(), st.ModTime().UnixNano())
}

// same reports whether a file dirty at the start is as it was then.
func same(root, path, was string) bool {
	p := filepath.Join(root, filepath.FromSlash(path))
	if strings.HasPrefix(was, "stat:") {
		return stamp(p) == was
	}
	return fingerprint(p) == was
}

// Compute reads what changed in s's work tree since s: the diff of the
// work tree against the start commit (tracked files), the untracked files
// new since, and the files dirty at the start left out while they are as
// they were (and marked Earlier when they changed again).
func (g Git) Compute(ctx context.Context, s Start) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := folder(s.Root); err != nil {
		return Result{}, err
	}
	var r Result
	// Two git runs side by side: the status (HEAD and the untracked
	// files, in one run) and the diff against the start commit. Each git
	// run costs about 13 ms of CPU to start on its own, more than most
	// diffs: a view runs as few as it can (issue 51's figure).
	var st status
	var stErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		var out []byte
		out, stErr = g.run(ctx, s.Root, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
		st = parseStatus(out)
	}()
	base := s.Head
	if base == "" {
		// No commit at the start: every tracked file is against nothing.
		out, err := g.run(ctx, s.Root, "hash-object", "-t", "tree", "--stdin")
		if err != nil {
			<-listed
			return Result{}, err
		}
		base = strings.TrimSpace(string(out))
	}
	patch, diffErr := g.diff(ctx, s.Root, base)
	<-listed
	if stErr != nil {
		return Result{}, stErr
	}
	head := st.head
	r.Moved = head != s.Head
	if s.Head != "" {
		r.Base = s.Head[:min(len(s.Head), 12)]
	}
	if diffErr != nil && s.Head != "" && head != s.Head && !g.exists(ctx, s.Root, s.Head) {
		// The start commit is gone (a rebase, then gc): against HEAD.
		r.BaseGone = true
		patch, diffErr = nil, nil
		if head != "" {
			patch, diffErr = g.diff(ctx, s.Root, head)
		}
	}
	if diffErr != nil {
		return Result{}, diffErr
	}
	files := udiff.Parse(string(patch), FileLimits, Budget)
	for _, f := range files {
		was, dirty := s.Dirty[rawPath(f.Path)]
		if dirty && same(s.Root, rawPath(f.Path), was) {
			continue // the user's own edit from before: not the session's
		}
		if len(r.Files) >= MaxFiles {
			r.FilesMore++
			continue
		}
		r.Files = append(r.Files, File{File: f, Earlier: dirty})
	}
	for _, path := range st.untracked {
		if was, dirty := s.Dirty[path]; dirty && same(s.Root, path, was) {
			continue
		}
		if len(r.Untracked) >= MaxUntracked {
			r.UntrackedMore++
			continue
		}
		r.Untracked = append(r.Untracked, textrule.Escape(path, ""))
	}
	return r, nil
}

// diff is the work tree's diff against commit, tracked files only.
func (g Git) diff(ctx context.Context, root, commit string) ([]byte, error) {
	return g.run(ctx, root, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames",
		"--src-prefix=a/", "--dst-prefix=b/", "--no-relative", commit, "--")
}

// status is what a view reads of `git status --porcelain=v2 -z
// --branch --untracked-files=all --no-renames`.
type status struct {
	head      string   // "# branch.oid": the commit checked out, "" for none
	untracked []string // "? path": not tracked and not ignored
}

// parseStatus reads git's porcelain v2 status with -z: NUL-ended
// records, headers "# name value", untracked files "? path"; any other
// record (a tracked file's change) is passed over, and a rename's "2"
// record carries its original path as one more field.
func parseStatus(out []byte) status {
	var st status
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		switch {
		case bytes.HasPrefix(rec, []byte("# branch.oid ")):
			oid := string(rec[len("# branch.oid "):])
			if oid != "(initial)" {
				st.head = oid
			}
		case bytes.HasPrefix(rec, []byte("? ")) && len(rec) > 2:
			st.untracked = append(st.untracked, string(rec[2:]))
		case bytes.HasPrefix(rec, []byte("2 ")):
			i++ // the original path
		}
	}
	return st
}

// exists reports whether commit is in the repository.
func (g Git) exists(ctx context.Context, root, commit string) bool {
	_, err := g.run(ctx, root, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// rawPath is a shown path back as git names it: the same, for every path
// with nothing to escape (a path with an escape is not matched against the
// start's dirty files, and shows as changed).
func rawPath(shown string) string { return shown }
