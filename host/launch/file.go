package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/textrule"
)

// FileName is the launch file's name in the DSH home.
const FileName = "launch.json"

// fileVersion is the one shape of launch.json this build reads.
const fileVersion = 1

// Bounds of the launch file: what a person writes by hand is far smaller.
const (
	maxFile     = 64 << 10
	maxRoots    = 64
	maxArgs     = 32
	maxArg      = 1024
	maxPath     = 1024
	MaxSessions = 64 // the most maxSessions may say
	MaxRate     = 60 // the most startsPerMinute may say
	// DefaultSessions and DefaultRate are maxSessions and startsPerMinute
	// when the file says none.
	DefaultSessions = 4
	DefaultRate     = 6
)

// File is launch.json: what the board may start on this machine. The zero
// File allows nothing (launching is off).
type File struct {
	Version int `json:"version"`
	// Roots are the project folders sessions may be started in, and
	// everything under them: absolute, clean paths.
	Roots []string `json:"roots"`
	// Agents are the agents that may be started, by their registry name;
	// an entry's Argv replaces the agent's default program and fixed
	// arguments (its Spec's Launch.Argv).
	Agents map[string]Agent `json:"agents"`
	// Worktrees is the folder new git worktrees are made in, inside a
	// root; "" makes none.
	Worktrees string `json:"worktrees,omitempty"`
	// MaxSessions bounds the sessions started from the board that run at
	// once (0: DefaultSessions).
	MaxSessions int `json:"maxSessions,omitempty"`
	// StartsPerMinute bounds the starts in any minute (0: DefaultRate).
	StartsPerMinute int `json:"startsPerMinute,omitempty"`
}

// Agent is one allowed agent of the launch file.
type Agent struct {
	// Argv is the program (a name found on PATH, or an absolute path) and
	// its fixed arguments; empty: the agent's default.
	Argv []string `json:"argv,omitempty"`
}

// Errors about the launch file.
var (
	// ErrUnsafeFile: the file can be written by others than its owner.
	ErrUnsafeFile = errors.New("can be written by others")
)

// Parse reads launch.json strictly: one object of this version, no
// unknown field, roots absolute and clean with no character that hides
// (internal/textrule), agents the registry knows whose argv is short and
// plain, a worktrees folder inside a root, limits within bounds.
func Parse(data []byte) (File, error) {
	var f File
	if len(data) > maxFile {
		return File{}, fmt.Errorf("more than %d bytes", maxFile)
	}
	if err := jsonx.DecodeOne(data, &f, jsonx.Options{Strict: true}); err != nil {
		return File{}, errors.New(jsonx.Reason(err))
	}
	if f.Version != fileVersion {
		return File{}, fmt.Errorf("version %d: this build reads version %d", f.Version, fileVersion)
	}
	if err := f.check(); err != nil {
		return File{}, err
	}
	return f, nil
}

func (f File) check() error {
	if len(f.Roots) > maxRoots {
		return fmt.Errorf("%d roots: at most %d", len(f.Roots), maxRoots)
	}
	for i, r := range f.Roots {
		if err := CheckPath(r); err != nil {
			return fmt.Errorf("roots[%d]: %w", i, err)
		}
		if slices.Contains(f.Roots[:i], r) {
			return fmt.Errorf("roots[%d]: %s twice", i, r)
		}
	}
	for name, a := range f.Agents {
		spec, ok := registry.Get(name)
		if !ok {
			return fmt.Errorf("agents: %q is not an agent notch-web knows (%s)", name, strings.Join(registry.Names(), ", "))
		}
		if spec.Launch == nil {
			return fmt.Errorf("agents: %s is not started from the board", name)
		}
		if err := checkArgv(a.Argv); err != nil {
			return fmt.Errorf("agents: %s: %w", name, err)
		}
	}
	if f.Worktrees != "" {
		if err := CheckPath(f.Worktrees); err != nil {
			return fmt.Errorf("worktrees: %w", err)
		}
		if _, ok := f.rootOf(f.Worktrees); !ok {
			return fmt.Errorf("worktrees: %s is not inside a root", f.Worktrees)
		}
	}
	if f.MaxSessions < 0 || f.MaxSessions > MaxSessions {
		return fmt.Errorf("maxSessions %d: 1 to %d (0: %d)", f.MaxSessions, MaxSessions, DefaultSessions)
	}
	if f.StartsPerMinute < 0 || f.StartsPerMinute > MaxRate {
		return fmt.Errorf("startsPerMinute %d: 1 to %d (0: %d)", f.StartsPerMinute, MaxRate, DefaultRate)
	}
	return nil
}

// CheckPath says whether p may be a root or the worktrees folder: an
// absolute, clean path of at most 1 KiB with no control character nor one
// that hides (a bidi mark), and not the file system's root.
func CheckPath(p string) error {
	switch {
	case p == "":
		return errors.New("an empty path")
	case len(p) > maxPath:
		return fmt.Errorf("a path of more than %d bytes", maxPath)
	case !utf8.ValidString(p) || textrule.Has(p) || strings.ContainsFunc(p, isControl):
		return errors.New("a path with a control character or one that hides")
	case !filepath.IsAbs(p):
		return fmt.Errorf("%s is not an absolute path", p)
	case filepath.Clean(p) != p:
		return fmt.Errorf("%s is not clean (%s)", p, filepath.Clean(p))
	case filepath.Dir(p) == p:
		return errors.New("the file system's root is too wide a root")
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// checkArgv: at most maxArgs arguments of at most maxArg bytes, none empty
// nor holding a control character; the program not starting with "-".
func checkArgv(argv []string) error {
	if len(argv) > maxArgs {
		return fmt.Errorf("argv of %d arguments: at most %d", len(argv), maxArgs)
	}
	for i, a := range argv {
		if a == "" || len(a) > maxArg || !utf8.ValidString(a) || textrule.Has(a) || strings.ContainsFunc(a, isControl) {
			return fmt.Errorf("argv[%d]: 1 to %d bytes of plain text", i, maxArg)
		}
	}
	if len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
		return errors.New("argv[0] is the program, not an option")
	}
	return nil
}

// On reports whether the file allows anything to start: a root and an
// agent.
func (f File) On() bool { return len(f.Roots) > 0 && len(f.Agents) > 0 }

// Sessions is the bound on sessions running at once.
func (f File) Sessions() int {
	if f.MaxSessions == 0 {
		return DefaultSessions
	}
	return f.MaxSessions
}

// Rate is the bound on starts in a minute.
func (f File) Rate() int {
	if f.StartsPerMinute == 0 {
		return DefaultRate
	}
	return f.StartsPerMinute
}

// AgentNames are the allowed agents, sorted.
func (f File) AgentNames() []string {
	out := make([]string, 0, len(f.Agents))
	for n := range f.Agents {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// rootOf is the root p is (lexically) inside of, or is.
func (f File) rootOf(p string) (string, bool) {
	for _, r := range f.Roots {
		if within(r, p) {
			return r, true
		}
	}
	return "", false
}

// within reports whether p is root or under it, lexically.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Format is launch.json for f.
func Format(f File) []byte {
	f.Version = fileVersion
	if f.Roots == nil {
		f.Roots = []string{}
	}
	if f.Agents == nil {
		f.Agents = map[string]Agent{}
	}
	b, _ := json.MarshalIndent(f, "", "  ")
	return append(b, '\n')
}

// Read reads the launch file at path. A missing file is the zero File
// (off) and no error. A file others may write is refused (ErrUnsafeFile),
// as is anything but a regular file, and one Parse refuses: each error
// names the file and what to do.
func Read(path string) (File, error) {
	fh, err := fsx.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, nil
	}
	if err != nil {
		return File{}, err
	}
	fi, err := fh.Stat()
	if err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o022 != 0 {
		fh.Close()
		return File{}, fmt.Errorf("%s %w (mode %04o): nothing is started until it is not (chmod 600 %s)", path, ErrUnsafeFile, fi.Mode().Perm(), path)
	}
	fh.Close()
	data, err := fsx.ReadFileLimit(path, maxFile)
	if err != nil {
		return File{}, err
	}
	f, err := Parse(data)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Write writes f to path atomically, mode 0600 (fsx.WriteFilePrivate),
// after checking it as Parse would.
func Write(path string, f File) error {
	if err := f.check(); err != nil {
		return err
	}
	if err := fsx.WriteFilePrivate(path, Format(f)); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// PathIn is the launch file of the DSH home dsh.
func PathIn(dsh string) string { return filepath.Join(dsh, FileName) }

// exists reports whether path names something.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
