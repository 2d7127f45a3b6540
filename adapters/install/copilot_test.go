package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/copilot"
)

// TestInstallCopilot: GitHub Copilot CLI's hooks go in a file of
// notch-web's own in its hooks folder ($COPILOT_HOME/hooks moves it), in
// Claude Code's shape, command hooks only. Uninstall removes that file
// (after a backup Copilot does not load: not *.json) when nothing else is
// in it, and keeps it, with the user's own hook, when there is.
func TestInstallCopilot(t *testing.T) {
	o := opts(t, copilot.Agent)
	path := filepath.Join(o.Home, ".copilot", "hooks", "notch-web.json")
	res := mustInstall(t, o)
	if len(res.Changes) != 1 || res.Changes[0].Path != path || !res.Changes[0].Created {
		t.Fatalf("changes %+v, want %s created", res.Changes, path)
	}
	got := read(t, path)
	for _, e := range copilot.Events {
		if !strings.Contains(got, `"`+e+`": [`) {
			t.Errorf("no %s in\n%s", e, got)
		}
	}
	if !strings.Contains(got, `"command": "'/opt/notch web/bin/notch-web' hook copilot --url http://127.0.0.1:7340"`) || strings.Contains(got, `"http"`) {
		t.Errorf("want command hooks running notch-web hook copilot:\n%s", got)
	}
	if res := mustInstall(t, o); res.Changes[0].Changed {
		t.Error("a second install changed the file")
	}
	res = mustUninstall(t, o)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("uninstall left %s: %v", path, err)
	}
	if b := res.Changes[0].Backup; b == "" || strings.HasSuffix(b, ".json") || read(t, b) != got {
		t.Errorf("backup %q: want the old file, under a name Copilot does not load", b)
	}

	// The user's own hook in notch-web's file stays, and so does the file.
	mustInstall(t, o)
	src := strings.Replace(read(t, path), `"hooks": {`, `"hooks": {
    "PreCompact": [{"hooks": [{"type": "command", "command": "my-own", "timeout": 3}]}],`, 1)
	write(t, path, src)
	mustUninstall(t, o)
	if got := read(t, path); !strings.Contains(got, "my-own") || strings.Contains(got, "notch-web hook") {
		t.Errorf("after uninstall:\n%s", got)
	}

	o.Getenv = func(k string) string {
		if k == "COPILOT_HOME" {
			return filepath.Join(o.Dir, "ch")
		}
		return ""
	}
	if res := mustInstall(t, o); res.Changes[0].Path != filepath.Join(o.Dir, "ch", "hooks", "notch-web.json") {
		t.Errorf("COPILOT_HOME: %s", res.Changes[0].Path)
	}
}
