package install

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/claudecode"
)

// The README's installer promises, one test each: merge, backup, atomic,
// mode kept, symlinks kept (and the file-safety rules of issue 19 around
// them: a change the user saves meanwhile is never lost, a dangling link
// stays a link, a file that is not a regular one is refused without
// blocking).

// TestPromiseMerge: the user's hooks, keys, order, spacing and comments
// stay byte for byte; ours are added after theirs.
func TestPromiseMerge(t *testing.T) {
	o := opts(t, Gemini)
	o.Scope = ScopeProject
	path := filepath.Join(o.Dir, ".gemini", "settings.json")
	write(t, path, geminiSettings)
	mustInstall(t, o)
	got := read(t, path)
	// Every line of the user's file is still there, in order.
	j := 0
	lines := strings.Split(got, "\n")
	for _, l := range strings.Split(geminiSettings, "\n") {
		for j < len(lines) && strings.TrimSuffix(lines[j], ",") != strings.TrimSuffix(l, ",") {
			j++
		}
		if j == len(lines) {
			t.Fatalf("line %q of the user's file is gone or out of order:\n%s", l, got)
		}
	}
	// Ours come after the user's own BeforeTool hook.
	if mine, ours := strings.Index(got, "secret-scanner\", \"type\""), strings.Index(got, `"name": "notch-web"`); mine < 0 || ours < mine {
		t.Errorf("ours are not after the user's:\n%s", got)
	}
}

// TestPromiseBackup: the old bytes are kept in FILE.bak-<ms> before any
// change, with the file's mode.
func TestPromiseBackup(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	write(t, path, userSettings)
	res := mustInstall(t, o)
	want := path + ".bak-1790000000000"
	if res.Changes[0].Backup != want || read(t, want) != userSettings {
		t.Fatalf("backup %q", res.Changes[0].Backup)
	}
	// A second change the same millisecond does not overwrite the first
	// backup.
	mustUninstall(t, o)
	if read(t, want) != userSettings || read(t, want+"-2") == "" {
		t.Error("the first backup was overwritten")
	}
}

// TestPromiseAtomic: the file is replaced, never rewritten in place: a
// reader holding the old file reads it whole, the new file is another
// inode, no temporary file is left, and a reader racing the installs only
// ever sees a whole file.
func TestPromiseAtomic(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	write(t, path, userSettings)
	held, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	before, _ := held.Stat()

	var wg sync.WaitGroup
	stop := make(chan struct{})
	var torn []string
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(path)
			if err == nil {
				if _, err := parseJSONC(b); err != nil {
					torn = append(torn, string(b))
				}
			}
		}
	})
	for range 20 {
		mustInstall(t, o)
		mustUninstall(t, o)
	}
	close(stop)
	wg.Wait()
	if len(torn) > 0 {
		t.Fatalf("a reader saw %d partial files, e.g. %q", len(torn), torn[0])
	}

	mustInstall(t, o)
	old := make([]byte, len(userSettings)+10)
	n, _ := held.ReadAt(old, 0)
	if string(old[:n]) != userSettings {
		t.Errorf("the file was rewritten in place: the held file reads %q", old[:n])
	}
	after, _ := os.Stat(path)
	if runtime.GOOS != "windows" && os.SameFile(before, after) {
		t.Error("the same inode: not replaced by a rename")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if e.Name() != "settings.json" && !strings.HasPrefix(e.Name(), "settings.json.bak-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestPromiseModeKept: a private settings file stays private, its backup
// too; so does a group-readable one.
func TestPromiseModeKept(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	for _, mode := range []os.FileMode{0o600, 0o640, 0o644} {
		o := opts(t, ClaudeCode)
		path := filepath.Join(o.Home, ".claude", "settings.json")
		write(t, path, userSettings)
		os.Chmod(path, mode)
		res := mustInstall(t, o)
		if fi, _ := os.Stat(path); fi.Mode().Perm() != mode {
			t.Errorf("%v: the file is %v after install", mode, fi.Mode().Perm())
		}
		if fi, _ := os.Stat(res.Changes[0].Backup); fi.Mode().Perm() != mode {
			t.Errorf("%v: the backup is %v", mode, fi.Mode().Perm())
		}
	}
}

// TestPromiseSymlinkKept: a settings file linked from a dotfiles folder
// stays a link; its target gets the change, by a relative link too.
func TestPromiseSymlinkKept(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	o := opts(t, ClaudeCode)
	target := filepath.Join(o.Home, "dotfiles", "claude.json")
	write(t, target, userSettings)
	link := filepath.Join(o.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink("../dotfiles/claude.json", link); err != nil {
		t.Fatal(err)
	}
	res := mustInstall(t, o)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if !strings.Contains(read(t, target), "agents-notch/hooks/claude-code") {
		t.Error("the target was not changed")
	}
	if filepath.Dir(res.Changes[0].Backup) != filepath.Dir(target) {
		t.Errorf("backup %q is not beside the target", res.Changes[0].Backup)
	}
}

// TestDanglingSymlinkKept: a link whose target does not exist yet stays a
// link: the target is created. A link whose target's folder does not
// exist is refused, naming both, and left as it is.
func TestDanglingSymlinkKept(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	o := opts(t, ClaudeCode)
	target := filepath.Join(o.Home, "dotfiles", "claude.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	link := filepath.Join(o.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	res := mustInstall(t, o)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the dangling link was replaced by a file")
	}
	if !strings.Contains(read(t, target), "agents-notch/hooks/claude-code") || !res.Changes[0].Created {
		t.Errorf("the target was not created: %+v", res.Changes[0])
	}

	o2 := opts(t, ClaudeCode)
	link2 := filepath.Join(o2.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link2), 0o755)
	nowhere := filepath.Join(o2.Home, "no", "such", "dir", "claude.json")
	os.Symlink(nowhere, link2)
	_, err := Install(o2)
	if err == nil || !strings.Contains(err.Error(), nowhere) || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("error %v, want a refusal naming the link's target", err)
	}
	if fi, err := os.Lstat(link2); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if _, err := os.Stat(filepath.Dir(nowhere)); err == nil {
		t.Error("the target's folders were created")
	}
}

// TestConcurrentEditKept: a change the user saves between install's read
// and its write is never lost: install reads again and merges into it (or
// refuses), and the file ends with the user's change and our hooks.
func TestConcurrentEditKept(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	write(t, path, "{\n  \"model\": \"opus\"\n}\n")
	const edited = "{\n  \"model\": \"sonnet\",\n  \"theme\": \"dark\"\n}\n"
	saved := false
	o.Now = func() time.Time {
		// Called between the read and the write (it names the backup):
		// the user's editor saves now, once.
		if !saved {
			saved = true
			if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
				t.Error(err)
			}
		}
		return time.UnixMilli(1_790_000_000_000)
	}
	res, err := Install(o)
	if !saved {
		t.Fatal("the edit was never made")
	}
	got := read(t, path)
	if err != nil {
		// Refusing is allowed, as long as the user's change is there.
		if got != edited || !strings.Contains(err.Error(), "changed") {
			t.Fatalf("refused (%v), and the file is %q", err, got)
		}
		return
	}
	var v map[string]any
	d, perr := newDoc([]byte(got))
	if perr != nil {
		t.Fatal(perr)
	}
	json.Unmarshal([]byte(got), &v)
	if v["model"] != "sonnet" || v["theme"] != "dark" {
		t.Errorf("the user's change was lost:\n%s", got)
	}
	hooks, _ := hooksObject(d)
	if !withHold(claudeFormat(base, claudeCmd), base, DefaultApprovalHold).installed(hooks) {
		t.Errorf("our hooks are not in:\n%s", got)
	}
	// The backup holds what the merge started from: the user's edit.
	if b := res.Changes[0].Backup; b == "" || read(t, b) != edited {
		t.Errorf("backup %q does not hold the user's edit", b)
	}
	if len(claudecode.Events) == 0 {
		t.Fatal("no events")
	}
}

// TestHostileFilesRefused: what stands at the settings path and is not a
// regular file (a directory) is refused, naming it and what to do; nothing
// is written.
func TestHostileFilesRefused(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	os.MkdirAll(path, 0o755)
	_, err := Install(o)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("install on a directory: %v", err)
	}
	st, err := Status(o)
	if err != nil || !strings.Contains(st[0].Problem, "not a regular file") {
		t.Errorf("status on a directory: %+v %v", st, err)
	}
	if errors.Is(err, ErrUsage) {
		t.Error("not a usage error")
	}
}

// TestRacingWriterNeverLosesASave: another program saving the file over
// and over (each save reads the file, appends its number and renames a
// new file over it, as editors and the agents do) while install and
// uninstall run again and again: no save is lost — every number is in the
// file at the end, or, when two saves raced one write, in the copy kept
// beside it. An install may give up ("changed … three times"): that
// writes nothing.
func TestRacingWriterNeverLosesASave(t *testing.T) {
	o := opts(t, ClaudeCode)
	o.Now = nil // backups named by the clock, as in a real run
	path := filepath.Join(o.Home, ".claude", "settings.json")
	write(t, path, `{"saves": []}`+"\n")
	const saves = 800
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for k := range saves {
			var v map[string]any
			b, err := os.ReadFile(path)
			if err != nil || json.Unmarshal(b, &v) != nil {
				t.Errorf("the writer read %q (%v)", b, err)
				return
			}
			list, _ := v["saves"].([]any)
			v["saves"] = append(list, k)
			out, _ := json.Marshal(v)
			tmp := path + ".writer"
			if err := os.WriteFile(tmp, out, 0o644); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Error(err)
				return
			}
		}
	})
	runs, gaveUp := 0, 0
	for installing := true; ; installing = !installing {
		select {
		case <-done:
		default:
			var err error
			if installing {
				_, err = Install(o)
			} else {
				_, err = Uninstall(o)
			}
			runs++
			var fe *FileError
			switch {
			case err == nil:
			case errors.As(err, &fe) && (errors.Is(err, errChanged) || errors.Is(err, errRaced)):
				gaveUp++
			default:
				t.Fatalf("run %d: %v", runs, err)
			}
			continue
		}
		break
	}
	wg.Wait()
	seen := map[int]bool{}
	files, _ := filepath.Glob(path + ".raced-*")
	for _, f := range append(files, path) {
		var v struct{ Saves []int }
		if err := json.Unmarshal([]byte(read(t, f)), &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, k := range v.Saves {
			seen[k] = true
		}
	}
	var lost []int
	for k := range saves {
		if !seen[k] {
			lost = append(lost, k)
		}
	}
	t.Logf("%d installs and uninstalls raced %d saves; %d gave up, %d kept beside", runs, saves, gaveUp, len(files))
	if len(lost) > 0 {
		t.Fatalf("%d saves lost, e.g. %v", len(lost), lost[:min(len(lost), 10)])
	}
}

// TestSaveAtTheLastMomentKept: a save that lands after install's last
// compare, in the moment before its file goes in place (the window a
// compare alone leaves), is not lost: install's change goes in, and the
// save is kept beside the file, named in the error. Only where the system
// swaps two names in one step (Linux, macOS).
func TestSaveAtTheLastMomentKept(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no atomic swap here: a compare then a rename")
	}
	for _, inPlace := range []bool{false, true} {
		o := opts(t, ClaudeCode)
		path := filepath.Join(o.Home, ".claude", "settings.json")
		write(t, path, "{\n  \"model\": \"opus\"\n}\n")
		const edited = "{\n  \"model\": \"sonnet\"\n}\n"
		o.raceAt = func() {
			if inPlace { // an editor that writes the file itself
				os.WriteFile(path, []byte(edited), 0o644)
				return
			}
			os.WriteFile(path+".editor", []byte(edited), 0o644)
			os.Rename(path+".editor", path)
		}
		_, err := Install(o)
		kept, _ := filepath.Glob(path + ".raced-*")
		if !errors.Is(err, errRaced) || len(kept) != 1 || !strings.Contains(err.Error(), kept[0]) {
			t.Fatalf("in place %v: err %v, kept %v: want the save kept beside, and said", inPlace, err, kept)
		}
		if got := read(t, kept[0]); got != edited {
			t.Errorf("in place %v: kept %q, want the save %q", inPlace, got, edited)
		}
		if got := read(t, path); !strings.Contains(got, "opus") || !strings.Contains(got, "PermissionRequest") {
			t.Errorf("in place %v: the file is not install's change:\n%s", inPlace, got)
		}
	}
}
