package changes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo is a real git repository in a temporary folder.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.git("config", "user.email", "t@example.com")
	r.git("config", "user.name", "T")
	r.git("config", "commit.gpgsign", "false")
	return r
}

func (r repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (r repo) write(name, text string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r repo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// names are a view's files' paths, and its untracked files.
func names(res Result) (files, untracked []string) {
	for _, f := range res.Files {
		n := f.Path
		if f.Earlier {
			n += " (earlier)"
		}
		files = append(files, n)
	}
	return files, res.Untracked
}

// TestChangesSinceStart: what a session changed, and not what was dirty
// before it started.
func TestChangesSinceStart(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n")
	r.write("b.go", "package b\n")
	r.write("c.go", "package c\n")
	r.commit("one")
	// The user's own edits before the session: a changed file, an
	// untracked one.
	r.write("b.go", "package b // mine\n")
	r.write("notes.txt", "my notes\n")
	r.write("scratch.txt", "scratch\n")
	r.write("c.go", "package c // mine\n")
	var g Git
	ctx := context.Background()
	s, err := g.Record(ctx, filepath.Join(r.dir)) // from the top
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Dirty) != 4 {
		t.Fatalf("dirty at the start: %v", s.Dirty)
	}
	// The session: edits a.go, writes new.txt, edits c.go again (dirty
	// before), deletes scratch.txt.
	r.write("a.go", "package a\n\nfunc A() {}\n")
	r.write("sub/new.txt", "new\n")
	r.write("c.go", "package c // mine, then the agent's\n")
	os.Remove(filepath.Join(r.dir, "scratch.txt"))
	res, err := g.Compute(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	files, untracked := names(res)
	if want := []string{"a.go", "c.go (earlier)"}; !slices.Equal(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
	if want := []string{"sub/new.txt"}; !slices.Equal(untracked, want) {
		t.Errorf("untracked %q, want %q", untracked, want)
	}
	if res.Files[0].Added != 2 || res.Files[0].Removed != 0 || res.Moved || res.BaseGone {
		t.Errorf("a.go +%d −%d, moved %v, base gone %v", res.Files[0].Added, res.Files[0].Removed, res.Moved, res.BaseGone)
	}
	// From a folder below the top, the same view.
	s2, err := g.Record(ctx, filepath.Join(r.dir, "sub"))
	if err != nil || s2.Root != s.Root {
		t.Errorf("from a subfolder: %+v, %v", s2, err)
	}
}

// TestChangesAcrossCommitsAndRebase: the session commits and rebases;
// the diff is still against the commit it started on, and says HEAD moved.
func TestChangesAcrossCommitsAndRebase(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commit("base")
	r.git("checkout", "-q", "-b", "other")
	r.write("upstream.txt", "from upstream\n")
	r.commit("upstream")
	r.git("checkout", "-q", "main")
	var g Git
	ctx := context.Background()
	s, err := g.Record(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	r.write("a.txt", "a\nagent\n")
	r.commit("the agent's commit")
	r.git("rebase", "-q", "other")
	r.write("wip.txt", "wip\n")
	res, err := g.Compute(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	files, untracked := names(res)
	if want := []string{"a.txt", "upstream.txt"}; !slices.Equal(files, want) || !slices.Equal(untracked, []string{"wip.txt"}) || !res.Moved {
		t.Errorf("files %q untracked %q moved %v; want %q, [wip.txt], moved", files, untracked, res.Moved, want)
	}
	// The start commit gone (a history rewritten and pruned): against HEAD.
	r.git("reflog", "expire", "--expire=now", "--all")
	r.git("gc", "-q", "--prune=now")
	s.Head = strings.Repeat("1", 40)
	if res, err := g.Compute(ctx, s); err != nil || !res.BaseGone {
		t.Errorf("a start commit that is gone: %+v, %v", res, err)
	}
}

// TestChangesNoCommitYet: a repository with no commit at the start.
func TestChangesNoCommitYet(t *testing.T) {
	r := newRepo(t)
	var g Git
	s, err := g.Record(context.Background(), r.dir)
	if err != nil || s.Head != "" {
		t.Fatalf("%+v %v", s, err)
	}
	r.write("first.txt", "one\n")
	r.git("add", "first.txt")
	res, err := g.Compute(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := names(res); !slices.Equal(files, []string{"first.txt"}) {
		t.Errorf("files %q", files)
	}
}

// TestNoChangesView: a folder that is not a git work tree, or is gone, or
// no git at all.
func TestNoChangesView(t *testing.T) {
	var g Git
	ctx := context.Background()
	if _, err := g.Record(ctx, t.TempDir()); !errors.Is(err, ErrNotGit) {
		t.Errorf("a plain folder: %v", err)
	}
	if _, err := g.Record(ctx, filepath.Join(t.TempDir(), "nope")); !errors.Is(err, ErrGone) {
		t.Errorf("a folder that is not there: %v", err)
	}
	if _, err := g.Record(ctx, "relative/dir"); !errors.Is(err, ErrNotGit) {
		t.Errorf("a relative folder: %v", err)
	}
	r := newRepo(t)
	r.write("a", "a\n")
	r.commit("a")
	s, err := g.Record(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(r.dir); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Compute(ctx, s); !errors.Is(err, ErrGone) {
		t.Errorf("a folder that vanished: %v", err)
	}
	if _, err := (Git{Path: filepath.Join(t.TempDir(), "no-git")}).Record(ctx, t.TempDir()); err == nil {
		t.Error("a git that does not run: no error")
	}
}

// TestChangesIgnoreHostGitEnv: a GIT_DIR in the host's environment does
// not point the view at another repository.
func TestChangesIgnoreHostGitEnv(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commit("a")
	other := newRepo(t)
	t.Setenv("GIT_DIR", filepath.Join(other.dir, ".git"))
	var g Git
	s, err := g.Record(context.Background(), r.dir)
	if err != nil || s.Root != r.dir {
		t.Fatalf("%+v %v", s, err)
	}
	r.write("a.txt", "b\n")
	res, err := g.Compute(context.Background(), s)
	if files, _ := names(res); err != nil || !slices.Equal(files, []string{"a.txt"}) {
		t.Errorf("files %q, %v", files, err)
	}
}

// TestChangesIgnoreRepoPrograms: a repository's own external diff and
// textconv driver are not run.
func TestChangesIgnoreRepoPrograms(t *testing.T) {
	r := newRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "evil.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\ncat \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.write(".gitattributes", "*.txt diff=evil\n")
	r.write("a.txt", "a\n")
	r.commit("a")
	r.git("config", "diff.external", script)
	r.git("config", "diff.evil.textconv", script)
	r.git("config", "core.fsmonitor", script)
	var g Git
	s, err := g.Record(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	r.write("a.txt", "b\n")
	if _, err := g.Compute(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a program the repository configured was run")
	}
}

// BenchmarkCompute is Compute for a 2,000-line diff (ten files, 100 lines
// changed in each, 100 removed and 100 added), git run each time.
func BenchmarkCompute(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	r := repo{t: &testing.T{}, dir: b.TempDir()}
	r.git("init", "-q")
	r.git("config", "user.email", "t@example.com")
	r.git("config", "user.name", "T")
	text := map[string][]string{}
	for f := range 10 {
		var lines []string
		for i := range 400 {
			lines = append(lines, fmt.Sprintf("func f%d_%d() int { return %d } // some code of a realistic width\n", f, i, i))
		}
		name := fmt.Sprintf("file%d.go", f)
		text[name] = lines
		r.write(name, strings.Join(lines, ""))
	}
	r.commit("one")
	var g Git
	s, err := g.Record(context.Background(), r.dir)
	if err != nil {
		b.Fatal(err)
	}
	for name, lines := range text {
		for i := 0; i < 400; i += 4 {
			lines[i] = strings.Replace(lines[i], "return", "return 1 +", 1)
		}
		r.write(name, strings.Join(lines, ""))
	}
	for b.Loop() {
		res, err := g.Compute(context.Background(), s)
		if err != nil || len(res.Files) != 10 {
			b.Fatal(err, len(res.Files))
		}
	}
}
