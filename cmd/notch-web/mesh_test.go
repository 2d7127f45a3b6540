//go:build notch_hub

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/mesh"
)

// goroutines is every goroutine's stack, as text.
func goroutines(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestManyMachinesOffByDefault: without --hub, --join or --nats nothing of
// the mesh runs — no NATS goroutine, no listener — and with --hub it does
// (so the check can fail).
func TestManyMachinesOffByDefault(t *testing.T) {
	base, stop := startRun(t)
	if res, err := http.Get(base + "/healthz"); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	if g := goroutines(t); strings.Contains(g, "nats-io") || strings.Contains(g, "host/mesh") {
		t.Errorf("a plain notch-web runs mesh goroutines:\n%s", g)
	}
	_ = stop()

	_, stop = startRun(t, "--hub", "--hub-addr", "127.0.0.1:0")
	if g := goroutines(t); !strings.Contains(g, "nats-io/nats-server") {
		t.Error("--hub started no NATS server (the check above could not fail)")
	}
	_ = stop()
}

func TestMeshFlags(t *testing.T) {
	env := func(k string) string {
		if k == "HOME" {
			return "/home/x"
		}
		return ""
	}
	code := mesh.Code{Addr: "h:7422", Fingerprint: strings.Repeat("0", 64), ID: "AAAAAAAAAAA", Secret: "0123456789abcdef0123", Expires: time.Unix(2e9, 0)}.String()
	tests := []struct {
		args    []string
		wantErr string
		check   func(c *config) bool
	}{
		{nil, "", func(c *config) bool { return !c.mesh.on() }},
		{[]string{"--hub"}, "", func(c *config) bool { return c.mesh.hub && c.mesh.hubAddr == ":7422" }},
		{[]string{"--join"}, "", func(c *config) bool { return c.mesh.join.set && c.mesh.join.code == "" }},
		{[]string{"--join", code, "--addr", "127.0.0.1:9"}, "", func(c *config) bool { return c.mesh.join.code == code && c.addr == "127.0.0.1:9" }},
		{[]string{"--join=" + code}, "", func(c *config) bool { return c.mesh.join.code == code }},
		{[]string{"--join", "nonsense"}, "unexpected argument", nil},
		{[]string{"--join=notch1_xx"}, "not a join code", nil},
		{[]string{"--hub", "--join"}, "do not mix", nil},
		{[]string{"--hub", "--follow", "x"}, "does not mix", nil},
		{[]string{"--tls-cert", "a"}, "go together", nil},
		{[]string{"--nats-creds", "f"}, "needs --nats", nil},
		{[]string{"--hub", "--machine", "Bad.Name"}, "invalid machine name", nil},
	}
	for _, tt := range tests {
		c, err := parseFlags(tt.args, env)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: %v, want an error saying %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !tt.check(c) {
			t.Errorf("%v: %+v, %v", tt.args, c, err)
		}
	}
}

// TestPairSays: pair prints the code on stdout and, on stderr, the address
// it put in the code with how to change it, and how long it lasts; with no
// hub started in the DSH home it refuses in one line.
func TestPairSays(t *testing.T) {
	home := t.TempDir()
	info, _ := json.Marshal(mesh.HubInfo{Name: "hub", Port: 7422, Fingerprint: strings.Repeat("ab", 32)})
	os.MkdirAll(mesh.Dir(home), 0o700)
	if err := os.WriteFile(filepath.Join(mesh.Dir(home), "hub.json"), info, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args     []string
		addr     string
		wantLine string
	}{
		{nil, mesh.DefaultName() + ":7422", "the code dials the hub at " + mesh.DefaultName() + ":7422 (this host's name, the hub's port); if the other machine knows this one by another name or address: notch-web pair --address HOST:7422\n"},
		{[]string{"--address", "10.0.0.5:7422"}, "10.0.0.5:7422", "the code dials the hub at 10.0.0.5:7422 (--address)\n"},
	} {
		stdout, stderr, err := runCmd(t, append([]string{"pair", "--dsh-home", home}, tc.args...)...)
		if err != nil {
			t.Fatalf("pair %q: %v %s", tc.args, err, stderr)
		}
		code, err := mesh.ParseCode(stdout)
		if err != nil || code.Addr != tc.addr || strings.Count(stdout, "\n") != 1 {
			t.Errorf("pair %q: stdout %q (%v), want one code for %s", tc.args, stdout, err, tc.addr)
		}
		lines := strings.SplitAfter(stderr, "\n")
		if len(lines) != 3 || lines[0] != tc.wantLine || !strings.HasPrefix(lines[1], "valid once, until ") ||
			!strings.HasSuffix(lines[1], ": on the other machine run  notch-web --join "+strings.TrimSpace(stdout)+"\n") {
			t.Errorf("pair %q: stderr\n%s\nwant first %q", tc.args, stderr, tc.wantLine)
		}
	}
	empty := t.TempDir()
	stdout, stderr, err := runCmd(t, "pair", "--dsh-home", empty)
	want := "notch-web pair: no hub has started in this DSH home (" + empty + "): start notch-web --hub with it first, or name the hub's with --dsh-home DIR\n"
	if !errors.Is(err, mesh.ErrNoHub) || stderr != want || stdout != "" {
		t.Errorf("pair with no hub: %v, stderr %q, stdout %q; want %q", err, stderr, stdout, want)
	}
	if code, stderr := exitCode(t, "pair", "--dsh-home", empty); code != 1 || stderr != want {
		t.Errorf("pair with no hub: exit %d, stderr %q", code, stderr)
	}
}
