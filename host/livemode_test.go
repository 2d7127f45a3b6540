//go:build unix

package host

import (
	"os"
	"path/filepath"
	"testing"
)

// live.json names each live row's process, its tmux socket and pane, and
// its transcript's path: it is this user's alone (0600), as devices.json
// is, whatever the umask lets a new file be; an older one of 0644 is
// narrowed at the next write.
func TestLiveJSONIsPrivate(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "state", "live.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"v":1,"rows":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, stop := liveHost(t, home)
	stop() // it writes once more as it stops
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("live.json is %v, want 0600", fi.Mode().Perm())
	}
}
