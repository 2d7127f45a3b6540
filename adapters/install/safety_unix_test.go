//go:build unix

package install

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFORefused: a named pipe at the settings path is refused at once by
// install, uninstall and status (opening one for reading waits for a
// writer forever), naming it, and left as it is.
func TestFIFORefused(t *testing.T) {
	o := opts(t, Gemini)
	path := filepath.Join(o.Home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Should a call block, a writer opened at the end lets it go, so the
	// test fails instead of hanging.
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	for name, call := range map[string]func() error{
		"install":   func() error { _, err := Install(o); return err },
		"uninstall": func() error { _, err := Uninstall(o); return err },
		"status": func() error {
			st, err := Status(o)
			if err == nil && !strings.Contains(st[0].Problem, "not a regular file") {
				t.Errorf("status problem %q", st[0].Problem)
			}
			return err
		},
	} {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if name != "status" && (err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file")) {
				t.Errorf("%s: %v, want a refusal naming the file", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s blocks on a FIFO", name)
		}
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}

// A new settings file (or plugin) is created as any new file is under the
// user's umask: 0644 less what the umask takes, never widened past it —
// under umask 077 it is 0600, its new folder 0700. An existing file keeps
// its own mode whatever the umask (TestModeKept).
func TestNewFileRespectsTheUmask(t *testing.T) {
	for _, c := range []struct {
		umask         int
		file, dirMode os.FileMode
	}{
		{0o077, 0o600, 0o700},
		{0o027, 0o640, 0o750},
		{0o022, 0o644, 0o755},
	} {
		for _, agent := range []string{ClaudeCode, Gemini, Codex, OpenCode} {
			t.Run(agent+"/"+c.file.String(), func(t *testing.T) {
				o := opts(t, agent)
				old := syscall.Umask(c.umask)
				res, err := Install(o)
				syscall.Umask(old)
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range res.Changes {
					if !ch.Created {
						continue
					}
					fi, err := os.Stat(ch.Path)
					if err != nil {
						t.Fatal(err)
					}
					if fi.Mode().Perm() != c.file {
						t.Errorf("under umask %03o, %s is %v, want %v", c.umask, ch.Path, fi.Mode().Perm(), c.file)
					}
					if di, err := os.Stat(filepath.Dir(ch.Path)); err == nil && di.Mode().Perm() != c.dirMode {
						t.Errorf("under umask %03o, its new folder is %v, want %v", c.umask, di.Mode().Perm(), c.dirMode)
					}
				}
			})
		}
	}
}
