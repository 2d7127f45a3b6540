package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHoistGlobals(t *testing.T) {
	cases := []struct{ in, want string }{
		{"--dsh-home D devices list", "devices --dsh-home D list"},
		{"--dsh-home=D --url U devices add phone", "devices --dsh-home=D --url U add phone"},
		{"-url U hook codex {}", "hook -url U codex {}"},
		{"--dsh-home D hooks status", "hooks status --dsh-home D"},
		{"--dsh-home D notify test", "notify test --dsh-home D"},
		{"--dsh-home D history export --since 2026-01-01", "history export --dsh-home D --since 2026-01-01"},
		{"--dsh-home D hooks", "hooks --dsh-home D"},
		// The host's flags, and anything that is not globals then a command, stay.
		{"--dsh-home D", "--dsh-home D"},
		{"--dsh-home D --addr :0", "--dsh-home D --addr :0"},
		{"--dsh-home D run", "--dsh-home D run"},
		{"--dsh-home D version", "--dsh-home D version"},
		{"--addr :0 devices list", "--addr :0 devices list"},
		{"devices list --dsh-home D", "devices list --dsh-home D"},
		{"--dsh-home", "--dsh-home"},
		{"", ""},
	}
	for _, c := range cases {
		got := strings.Join(hoistGlobals(strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("hoistGlobals(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every command that asks the running host finds it the same way: --url,
// else $NOTCH_URL, else the host.json of the DSH home given by --dsh-home
// (before or after the command), else the default address.
func TestEveryCommandFindsTheHostTheSameWay(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		http.Error(w, "not here", http.StatusTeapot)
	}))
	defer srv.Close()
	home := t.TempDir()
	if _, err := writeHostFile(home, srv.URL, false, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "HOME" {
			return t.TempDir()
		}
		return ""
	}
	cases := []struct {
		args []string
		path string // the request the host must see
	}{
		{[]string{"devices", "list", "--dsh-home", home}, "/agents-notch/devices"},
		{[]string{"--dsh-home", home, "devices", "list"}, "/agents-notch/devices"},
		{[]string{"--dsh-home=" + home, "devices", "add", "phone"}, "/agents-notch/devices/add"},
		{[]string{"notify", "test", "--dsh-home", home}, "/agents-notch/notify/test"},
		{[]string{"--dsh-home", home, "notify", "test"}, "/agents-notch/notify/test"},
		{[]string{"hook", "codex", "--dsh-home", home, `{"type":"agent-turn-complete"}`}, "/agents-notch/hooks/codex"},
		{[]string{"--url", srv.URL, "hook", "codex", `{"type":"agent-turn-complete"}`}, "/agents-notch/hooks/codex"},
	}
	for _, c := range cases {
		mu.Lock()
		paths = nil
		mu.Unlock()
		var out, errb strings.Builder
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = run(ctx, c.args, env, &out, &errb)
		cancel()
		if strings.Contains(errb.String(), "flag provided but not defined") {
			t.Errorf("%q: %s", c.args, errb.String())
		}
		mu.Lock()
		got := slices.Clone(paths)
		mu.Unlock()
		if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, c.path) }) {
			t.Errorf("%q asked the host at %q, want %s (stderr %q)", c.args, got, c.path, errb.String())
		}
	}
}

// The commands that read the DSH home's own files take --dsh-home the same
// way (the history, pairing, the service, doctor).
func TestEveryCommandTakesTheDSHHome(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return "" }
	for _, args := range [][]string{
		{"history", "export", "--dsh-home", home},
		{"--dsh-home", home, "history", "export"},
		{"service", "status", "--dsh-home", home},
		{"--dsh-home", home, "service", "status"},
		{"doctor", "--dsh-home", home, "--url", "http://127.0.0.1:1"},
		{"--dsh-home", home, "--url", "http://127.0.0.1:1", "doctor"},
		{"mcp", "-h", "--dsh-home", home},
		{"statusline", "-h", "--dsh-home", home},
		{"hooks", "status", "--dsh-home", home, "--url", "http://127.0.0.1:1"},
	} {
		var out, errb strings.Builder
		_ = run(context.Background(), args, env, &out, &errb)
		if strings.Contains(errb.String(), "not defined") {
			t.Errorf("%q: %s", args, errb.String())
		}
	}
}
