//go:build notch_hub

package mesh

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/changes"
	"github.com/notch-web/notch-web/internal/udiff"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// TestRemoteChanges: the hub's Changes of a machine's row is computed by
// that machine, with its own git and start point, and answered over NATS;
// a row in a folder that is no git work tree says so; a stopped machine
// is ErrMachineAway.
func TestRemoteChanges(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	hub := testHub(t)
	hh := hubHost(t, hub)
	mh, stop := testMachineHost(t, hub, "box")
	open := func(id, cwd string) {
		p := `{"session_id":"` + id + `","cwd":"` + cwd + `","hook_event_name":"UserPromptSubmit","prompt":"go"}`
		if _, err := mh.Hook("claude-code", []byte(p), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	open("s1", dir)
	open("s2", t.TempDir())
	waitfor.Until(t, "the hub shows the machine's rows", func() bool {
		return hh.Board().Has("box/s1") && hh.Board().Has("box/s2")
	})
	if _, err := hh.Changes(context.Background(), "box/s1"); err != nil { // the start point, recorded
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("\u202enew\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := hh.Changes(context.Background(), "box/s1")
	if err != nil || len(r.Untracked) != 1 || r.Untracked[0] != "new.txt" {
		t.Fatalf("the hub's view: %+v, %v", r, err)
	}
	if _, err := hh.Changes(context.Background(), "box/s2"); !errors.Is(err, changes.ErrNotGit) {
		t.Errorf("a plain folder: %v", err)
	}
	stop()
	if _, err := hh.Changes(context.Background(), "box/s1"); !errors.Is(err, host.ErrMachineAway) && !errors.Is(err, changes.ErrNoStart) {
		t.Errorf("a stopped machine: %v", err)
	}
}

// TestDecodeChangesHostile: a machine's view is taken as text within the
// view's limits, whatever the machine sent.
func TestDecodeChangesHostile(t *testing.T) {
	body := `{"ok":true,"files":[{"path":"a\u001b[2J\u202e","status":"modified","added":-5,"lines":[["+",1,-2,"x\u0007"],["?",0,0,"bad"],["+", 1, 1]]}],"untracked":["u\u0000"]}`
	r, err := decodeChanges([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	f := r.Files[0]
	if f.Path != `a\x1b[2J\u202e` || f.Added != 0 || len(f.Lines) != 2 || f.Lines[0] != (udiff.Line{Op: '+', Old: 1, New: 0, Text: `x\a`}) || r.Untracked[0] != `u\x00` {
		t.Errorf("decoded %+v %+v", f, r.Untracked)
	}
	if strings.Contains(f.Lines[1].Text, "\x00") {
		t.Error("a NUL shown")
	}
	if _, err := decodeChanges([]byte(`{"ok":false,"code":"not-git"}`)); !errors.Is(err, changes.ErrNotGit) {
		t.Errorf("a refusal: %v", err)
	}
}

// TestEncodeChangesFits: a view larger than a NATS message loses its
// last files' lines, counted, and fits.
func TestEncodeChangesFits(t *testing.T) {
	var r changes.Result
	for range 8 {
		f := changes.File{}
		f.Path = "big.txt"
		for i := range 3000 {
			f.Lines = append(f.Lines, udiff.Line{Op: '+', New: i + 1, Text: strings.Repeat("y", 60)})
		}
		r.Files = append(r.Files, f)
	}
	b := encodeChanges(r)
	if len(b) > maxChangesBody {
		t.Fatalf("%d bytes", len(b))
	}
	back, err := decodeChanges(b)
	if err != nil || back.Files[7].More != 3000 || len(back.Files[0].Lines) == 0 {
		t.Fatalf("%v, last file more %d", err, back.Files[7].More)
	}
}

// TestRemoteEditCard: a machine's Edit card shows on the hub with its
// diff, its lines text.
func TestRemoteEditCard(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hub := testHub(t)
	hh := hubHost(t, hub)
	mh, _ := testMachineHost(t, hub, "box")
	ask := `{"session_id":"s1","cwd":"` + dir + `","hook_event_name":"PermissionRequest","tool_name":"Edit","tool_input":{"file_path":"` +
		filepath.Join(dir, "a.txt") + `","old_string":"two","new_string":"2 \u202e"}}`
	if _, err := mh.Hook("claude-code", []byte(ask), time.Now()); err != nil {
		t.Fatal(err)
	}
	c := hubCard(t, hh, "box/s1", host.CardTerminal)
	if len(c.Files) != 1 || c.Files[0].Path != "a.txt" || c.Files[0].Added != 1 || c.Cwd != dir {
		t.Fatalf("the hub's card: %+v", c)
	}
	var added []string
	for _, l := range c.Files[0].Lines {
		if l.Op == udiff.Added {
			added = append(added, l.Text)
		}
	}
	if len(added) != 1 || added[0] != `2 \u202e` {
		t.Errorf("added lines %q", added)
	}
}
