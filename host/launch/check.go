package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/ascii"
)

// Refusals Start returns; each is wrapped with what was refused. Package
// web maps them to statuses, host/mesh to codes.
var (
	// ErrOff: the launch file allows nothing (or cannot be read).
	ErrOff = errors.New("launching is off on this machine")
	// ErrFolder: the folder is not inside an allowed root, or is not a folder.
	ErrFolder = errors.New("the folder is not allowed")
	// ErrAgent: the agent is not allowed, or cannot be started so.
	ErrAgent = errors.New("the agent is not allowed")
	// ErrHooks: the agent's hooks are not installed: its row would never show.
	ErrHooks = errors.New("the agent's hooks are not installed")
	// ErrPrompt: a prompt that is too long or holds a control character.
	ErrPrompt = errors.New("a first prompt is at most 8192 bytes of text; a newline is the only control character it may hold")
	// ErrBranch: a branch name git refuses, or one this file does.
	ErrBranch = errors.New("not a branch name git takes")
	// ErrWorktree: no worktrees allowed, or git worktree add failed.
	ErrWorktree = errors.New("no worktree made")
	// ErrResume: a session id that is not one, or an agent that cannot
	// resume by id.
	ErrResume = errors.New("cannot resume that session")
	// ErrRate: too many starts in the last minute.
	ErrRate = errors.New("too many starts in the last minute")
	// ErrFull: as many started sessions run as the file allows.
	ErrFull = errors.New("as many started sessions run as this machine allows")
	// ErrTmux: tmux could not start the window.
	ErrTmux = errors.New("tmux could not start the session")
)

// CheckPrompt returns a first prompt as it is passed: "" for none, else
// what terminal.CheckReply takes (at most 8 KiB of UTF-8, a newline the
// only control character, no character that hides); or ErrPrompt.
func CheckPrompt(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		if len(p) > terminal.MaxReply {
			return "", ErrPrompt
		}
		return "", nil
	}
	out, err := terminal.CheckReply(p)
	if err != nil {
		return "", ErrPrompt
	}
	return out, nil
}

// branchChars are the characters a branch name may hold here: git takes
// more, but a name is shown on the board and becomes a folder's name.
var branchChars = ascii.NewSet(ascii.Alnum, "._/-")

// MaxBranch bounds a branch name, in bytes.
const MaxBranch = 100

// checkBranchChars is the part of CheckBranch that needs no git: 1 to
// MaxBranch of branchChars, not starting with "-" or "/", no "..".
func checkBranchChars(b string) error {
	if !branchChars.Span(b, 1, MaxBranch) || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.Contains(b, "..") {
		return fmt.Errorf("%w: %q: 1 to %d letters, digits, and . _ / - (not first: - or /)", ErrBranch, cut(b), MaxBranch)
	}
	return nil
}

// worktreeName is the folder a worktree of repo for branch is made in,
// under dir: the repository's name and the branch, "/" made "-".
func worktreeName(dir, repo, branch string) string {
	return filepath.Join(dir, filepath.Base(repo)+"-"+strings.ReplaceAll(branch, "/", "-"))
}

// sessionChars are the characters of a session id resumed.
var sessionChars = ascii.NewSet(ascii.Alnum, "_-")

// CheckResume says whether id may be resumed with spec: an agent that
// resumes by id, and an id of 1 to 100 letters, digits, "-" and "_", not
// starting with "-".
func CheckResume(spec agent.Spec, id string) error {
	if spec.Launch == nil || spec.Launch.Resume == nil {
		return fmt.Errorf("%w: %s does not resume a session by its id", ErrResume, spec.Display)
	}
	if !sessionChars.Span(id, 1, 100) || strings.HasPrefix(id, "-") {
		return fmt.Errorf("%w: not a session id", ErrResume)
	}
	return nil
}

// Folder resolves a requested folder against f: an absolute clean path
// (CheckPath) whose real path (symbolic links followed) is a folder inside
// the real path of a root. It returns the real path and its root's.
func (f File) Folder(p string) (folder, root string, err error) {
	if err := CheckPath(p); err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrFolder, err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s is not there", ErrFolder, p)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("%w: %s is not a folder", ErrFolder, p)
	}
	for _, r := range f.Roots {
		rr, err := filepath.EvalSymlinks(r)
		if err == nil && within(rr, real) {
			return real, rr, nil
		}
	}
	return "", "", fmt.Errorf("%w: %s is not inside a root of the launch file (notch-web launch allow-folder DIR)", ErrFolder, p)
}

// cut is s cut to 60 bytes, for an error's text (quoted with %q).
func cut(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
