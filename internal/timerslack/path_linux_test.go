package timerslack

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// program names the running file by a path that still holds it, the one
// it was started by first, and falls back to /proc/self/exe (here: self)
// once the binary on disk is another file or gone.
func TestProgram(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "running")
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("running", "the program")
	link := filepath.Join(dir, "notch-web")
	if err := os.Link(self, link); err != nil {
		t.Fatal(err)
	}
	nw := filepath.Join(dir, "nw") // a user's symlink, started by that name
	if err := os.Symlink(link, nw); err != nil {
		t.Fatal(err)
	}
	replaced := write("replaced", "a newer build")
	exeIs := func(p string) func() (string, error) { return func() (string, error) { return p, nil } }
	noExe := func() (string, error) { return "", errors.New("no /proc") }
	for _, tc := range []struct {
		name       string
		arg0       string
		executable func() (string, error)
		want       string
	}{
		{"started by path", link, exeIs(link), link},
		{"started by a symlink keeps that name", nw, exeIs(link), nw},
		{"started from PATH (no slash)", "notch-web", exeIs(link), link},
		{"replaced on disk", replaced, exeIs(replaced), self},
		{"the path replaced, the resolved one still it", replaced, exeIs(link), link},
		{"removed", filepath.Join(dir, "gone"), exeIs(filepath.Join(dir, "gone")), self},
		{"no executable path", "notch-web", noExe, self},
		{"a hostile argument", "\u202e/../\x00", noExe, self},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := program(self, tc.arg0, tc.executable); got != tc.want {
				t.Errorf("program(%q) = %q, want %q", tc.arg0, got, tc.want)
			}
		})
	}
}
