package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/opencode"
	"github.com/notch-web/notch-web/adapters/registry"
)

// TestPluginInstall: OpenCode's plugin is a file notch-web owns whole:
// created 0644 with the marker first, naming the executable and the URL; a
// second install changes nothing; status says it is there; uninstall
// removes it after a backup, and a second uninstall changes nothing.
func TestPluginInstall(t *testing.T) {
	o := opts(t, OpenCode)
	path := filepath.Join(o.Home, ".config", "opencode", "plugin", "notch-web.js")
	res := mustInstall(t, o)
	if ch := res.Changes[0]; ch.Path != path || !ch.Created || !ch.Changed {
		t.Fatalf("install: %+v", ch)
	}
	got := read(t, path)
	if !strings.HasPrefix(got, opencode.Marker+"\n") || !strings.Contains(got, `const EXE = "/opt/notch web/bin/notch-web"`) ||
		!strings.Contains(got, `const URL_FLAG = "`+base+`"`) {
		t.Errorf("the plugin does not start with the marker or name the executable and URL:\n%.600s", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if res := mustInstall(t, o); res.Changes[0].Changed {
		t.Error("a second install changed the file")
	}
	st, err := Status(o)
	if err != nil || len(st) != 2 || len(st[0].Events) != len(opencode.Events) || len(st[0].Notes) != 0 ||
		len(st[0].Targets) != 1 || st[0].Targets[0] != base+"/agents-notch/hooks/opencode" {
		t.Fatalf("status: %+v %v", st, err)
	}
	if st[1].Scope != ScopeProject || st[1].Exists {
		t.Errorf("project scope: %+v", st[1])
	}
	res = mustUninstall(t, o)
	if ch := res.Changes[0]; !ch.Changed || !ch.Removed || ch.Backup == "" || read(t, ch.Backup) != got {
		t.Errorf("uninstall: %+v", ch)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plugin is still there: %v", err)
	}
	if res := mustUninstall(t, o); res.Changes[0].Changed {
		t.Error("a second uninstall changed something")
	}
}

// TestPluginNotOurs: a file at the plugin's path that notch-web did not
// write is neither overwritten nor removed, and status says so.
func TestPluginNotOurs(t *testing.T) {
	o := opts(t, OpenCode)
	o.Scope = ScopeProject
	path := filepath.Join(o.Dir, ".opencode", "plugin", "notch-web.js")
	mine := "export const Mine = async () => ({})\n"
	write(t, path, mine)
	var fe *FileError
	if _, err := Install(o); !errors.As(err, &fe) || !errors.Is(err, errNotOurs) && !strings.Contains(err.Error(), "not notch-web's") {
		t.Errorf("install over another file: %v", err)
	}
	if _, err := Uninstall(o); !errors.As(err, &fe) {
		t.Errorf("uninstall of another file: %v", err)
	}
	if read(t, path) != mine {
		t.Error("the user's file was changed")
	}
	st, err := Status(o)
	if err != nil || len(st) != 1 || len(st[0].Events) != 0 || len(st[0].Notes) != 1 {
		t.Errorf("status: %+v %v", st, err)
	}
}

// TestPluginUpgrade: a plugin an older notch-web wrote (or one written for
// another executable) is notch-web's: status says to install again, and
// install replaces it, keeping its mode and a backup.
func TestPluginUpgrade(t *testing.T) {
	o := opts(t, OpenCode)
	path := filepath.Join(o.Home, ".config", "opencode", "plugin", "notch-web.js")
	old := opencode.Marker + "\nconst EXE = \"/old/notch-web\"\nconst URL_FLAG = \"\"\n// an older plugin\n"
	write(t, path, old)
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := Status(o)
	if len(st[0].Events) == 0 || len(st[0].Notes) != 1 || st[0].Targets[0] != "/old/notch-web hook opencode" {
		t.Errorf("status of an old plugin: %+v", st[0])
	}
	res := mustInstall(t, o)
	if ch := res.Changes[0]; !ch.Changed || ch.Created || read(t, ch.Backup) != old {
		t.Errorf("install over an old plugin: %+v", ch)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v: the file's own 0600 was widened", fi.Mode().Perm())
	}
	if st, _ := Status(o); len(st[0].Notes) != 0 {
		t.Errorf("status after install: %+v", st[0])
	}
}

// TestPluginDryRun: a dry run says what it would write and writes nothing.
func TestPluginDryRun(t *testing.T) {
	o := opts(t, OpenCode)
	o.DryRun = true
	res := mustInstall(t, o)
	if ch := res.Changes[0]; !ch.Changed || !strings.Contains(ch.Diff, opencode.Marker) {
		t.Errorf("dry run: %+v", ch)
	}
	if _, err := os.Stat(filepath.Join(o.Home, ".config", "opencode")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run wrote: %v", err)
	}
}

// TestPluginUninstallRace: a save that lands while uninstall runs is read
// again, never removed unseen: the user's own file (no marker) stays.
func TestPluginUninstallRace(t *testing.T) {
	o := opts(t, OpenCode)
	path := filepath.Join(o.Home, ".config", "opencode", "plugin", "notch-web.js")
	mustInstall(t, o)
	mine := "export const Mine = async () => ({})\n"
	o.raceAt = func() { write(t, path, mine); o.raceAt = nil }
	_, err := Uninstall(o)
	if !errors.Is(err, errNotOurs) {
		t.Errorf("uninstall after a racing save: %v, want the refusal of a file not ours", err)
	}
	if read(t, path) != mine {
		t.Error("the racing save was removed or changed")
	}
}

// TestEveryPluginAgent: every agent whose hooks are a file notch-web owns
// whole (OpenCode's and Kilo's plugin, Pi's extension) is installed with
// the same promises: created with its marker first and its own endpoint,
// a second install changes nothing, status names its events and URL, a
// file at the path that is not notch-web's is left as it is, and
// uninstall removes only notch-web's after a backup.
func TestEveryPluginAgent(t *testing.T) {
	for _, s := range registry.All {
		if s.Install.Plugin == nil {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			o := opts(t, s.Name)
			sc := s.Install.Scopes[0]
			path := filepath.Join(o.Home, sc.Dir, sc.File)
			res := mustInstall(t, o)
			if ch := res.Changes[0]; ch.Path != path || !ch.Created {
				t.Fatalf("install: %+v", ch)
			}
			got := read(t, path)
			if !strings.HasPrefix(got, s.Install.Plugin.Marker+"\n") || !strings.Contains(got, `"`+base+`"`) {
				t.Errorf("the file does not start with the marker or name the URL:\n%.400s", got)
			}
			if res := mustInstall(t, o); res.Changes[0].Changed {
				t.Error("a second install changed the file")
			}
			st, err := Status(o)
			if err != nil || len(st[0].Events) != len(s.Hooks) || len(st[0].Targets) != 1 || st[0].Targets[0] != base+"/agents-notch/hooks/"+s.Name {
				t.Fatalf("status: %+v %v", st, err)
			}
			if res := mustUninstall(t, o); !res.Changes[0].Removed || res.Changes[0].Backup == "" {
				t.Errorf("uninstall: %+v", res.Changes[0])
			}
			mine := "// my own " + s.Display + " file\n"
			if err := os.WriteFile(path, []byte(mine), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Install(o); err == nil {
				t.Error("install over a file that is not notch-web's did not fail")
			}
			if _, err := Uninstall(o); err == nil {
				t.Error("uninstall of a file that is not notch-web's did not fail")
			}
			if read(t, path) != mine {
				t.Error("a file that is not notch-web's was changed")
			}
		})
	}
}
