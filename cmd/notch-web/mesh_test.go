package main

import (
	"bytes"
	"net/http"
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
