//go:build notch_hub

package mesh

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// TestRemoteLaunch: a start asked on the hub travels to the machine, which
// decides by its own launch file: off until the file allows something; a
// folder outside its roots and an agent it does not allow refused there,
// with the machine's reason; an allowed one started in the machine's tmux.
// A revoked machine, and one the hub does not know, are never asked.
func TestRemoteLaunch(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	hub := testHub(t)
	hh := hubHost(t, hub)
	mh, _ := testMachineHost(t, hub, "box")
	tmp, err := os.MkdirTemp("", "nm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	tmp, _ = filepath.EvalSymlinks(tmp)
	root := filepath.Join(tmp, "src")
	if err := os.MkdirAll(filepath.Join(root, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tmp, launch.FileName)
	socket := filepath.Join(tmp, "tmux.sock")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", socket, "kill-server").Run() })
	mh.SetLauncher(launch.New(launch.Options{Path: path, Socket: socket, Hooked: func(string, string) bool { return true }}), "box")
	ctx := context.Background()
	waitfor.Until(t, "the machine to answer the hub", func() bool {
		_, err := hh.LaunchOptions(ctx, "box")
		return err == nil
	})
	start := func(folder, agent string) (launch.Result, error) {
		return hh.Launch(ctx, host.LaunchRequest{Machine: "box", Device: "phone", Request: launch.Request{Folder: folder, Agent: agent}})
	}
	if _, err := start(filepath.Join(root, "api"), "claude-code"); !errors.Is(err, launch.ErrOff) {
		t.Fatalf("no launch file on the machine: %v; want launch.ErrOff", err)
	}
	sleep, _ := exec.LookPath("sleep")
	f := launch.File{Roots: []string{root}, Agents: map[string]launch.Agent{"claude-code": {Argv: []string{sleep, "30"}}}}
	if err := launch.Write(path, f); err != nil {
		t.Fatal(err)
	}
	o, err := hh.LaunchOptions(ctx, "box")
	if err != nil || !o.On || len(o.Roots) != 1 || o.Roots[0] != root || len(o.Agents) != 1 || o.Machine != "box" {
		t.Fatalf("the machine's options through the hub: %+v, %v", o, err)
	}
	tests := []struct {
		name, folder, agent string
		err                 error
	}{
		{"a folder outside the roots", tmp, "claude-code", launch.ErrFolder},
		{"an agent not allowed", filepath.Join(root, "api"), "codex", launch.ErrAgent},
		{"allowed", filepath.Join(root, "api"), "claude-code", nil},
	}
	for _, tt := range tests {
		res, err := start(tt.folder, tt.agent)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("%s: %v; want %v", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || res.Pane == "" || res.Folder != filepath.Join(root, "api") {
			t.Errorf("%s: %+v, %v", tt.name, res, err)
		}
	}
	// The machine's bounds are its own: one start a minute, and the
	// hub's second is refused there.
	f.StartsPerMinute = 1
	if err := launch.Write(path, f); err != nil {
		t.Fatal(err)
	}
	if _, err := start(filepath.Join(root, "api"), "claude-code"); !errors.Is(err, launch.ErrRate) {
		t.Fatalf("a second start in the minute, the machine allowing 1: %v; want launch.ErrRate", err)
	}
	if err := hub.Revoke("box"); err != nil {
		t.Fatal(err)
	}
	if _, err := start(filepath.Join(root, "api"), "claude-code"); !errors.Is(err, host.ErrMachineAway) {
		t.Fatalf("a revoked machine: %v; want ErrMachineAway: it runs nothing", err)
	}
	if _, err := hh.Launch(ctx, host.LaunchRequest{Machine: "ghost", Request: launch.Request{Folder: root, Agent: "claude-code"}}); !errors.Is(err, host.ErrMachineAway) {
		t.Fatalf("a machine the hub does not know: %v; want ErrMachineAway", err)
	}
}
