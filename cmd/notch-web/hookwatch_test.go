package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/web"
)

// The host notices when another tool takes notch-web's hooks out of an
// agent's settings, or leaves the file unparsable: the board's status line
// and a log record say so, with the command that puts them back; put back,
// the word goes.
func TestHookWatchNoticesRemovedHooks(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	o := install.Options{Agent: "claude-code", Home: home, Dir: home, URL: "http://127.0.0.1:7340", Exe: "/opt/notch-web/notch-web", Getenv: getenv}
	if _, err := install.Install(o); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	var logs syncbuf.Buffer
	w := newHookWatch(home, o.URL, getenv, slog.New(slog.NewJSONHandler(&logs, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitfor.Until(t, "the watch to hold the settings", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.base) == 1
	})
	if got := w.HubLink(); got != "" {
		t.Fatalf("with the hooks in place the board says %q", got)
	}
	rewrite := func(edit func(map[string]any)) {
		var doc map[string]any
		b, _ := os.ReadFile(settings)
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		edit(doc)
		b, _ = json.Marshal(doc)
		os.WriteFile(settings+".tmp", b, 0o644)
		os.Rename(settings+".tmp", settings) // as another tool writes it
	}
	says := func(what string, want ...string) {
		t.Helper()
		waitfor.Until(t, what, func() bool {
			got := w.HubLink()
			for _, s := range want {
				if !strings.Contains(got, s) {
					return false
				}
			}
			return true
		})
	}
	rewrite(func(doc map[string]any) { delete(doc["hooks"].(map[string]any), "Stop") })
	says("the Stop hook's removal", "Claude Code's hooks for Stop were removed from ~/.claude/settings.json at ", "reinstall: notch-web hooks install claude-code")
	os.WriteFile(settings, []byte(`{"hooks": {`), 0o644)
	says("an unparsable file", "no longer parses")
	os.Remove(settings)
	if _, err := install.Install(o); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "the word to go once the hooks are back", func() bool { return w.HubLink() == "" })
	for _, want := range []string{`"level":"WARN","msg":"Claude Code's hooks for Stop were removed`, `no longer parses`, `an agent's hooks are back`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
}

// The pane's Reinstall puts the hooks back as notch-web hooks install
// does (the same merge, a backup of the file it replaced), and the banner
// goes at once; an agent whose hooks were not there at start is refused.
func TestHookWatchReinstall(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	o := install.Options{Agent: "claude-code", Home: home, Dir: home, URL: "http://127.0.0.1:7341", Exe: "/opt/notch-web/notch-web", Getenv: getenv}
	if _, err := install.Install(o); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	w := newHookWatch(home, o.URL, getenv, slog.New(slog.DiscardHandler))
	w.install = func(agent string) (install.Result, error) { // as run's, but for the test binary's path
		ro, err := reinstallOptions(agent, home, o.URL, getenv, func(string) (string, error) { return o.Exe, nil })
		if err != nil {
			return install.Result{}, err
		}
		return install.Install(ro)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitfor.Until(t, "the watch to hold the settings", func() bool { return len(w.Faults()) == 0 && w.held("claude-code") })

	// Another tool rewrites the file without notch-web's hooks but with a
	// setting of the user's.
	if err := os.WriteFile(settings, []byte(`{"model": "opus", "hooks": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "the banner", func() bool {
		f := w.Faults()
		return len(f) == 1 && f[0].Agent == "claude-code" && f[0].Reinstall && strings.Contains(f[0].Text, "Claude Code's hooks were removed from ~/.claude/settings.json")
	})
	res, err := w.Reinstall("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	if f := w.Faults(); len(f) != 0 {
		t.Errorf("after Reinstall the pane still says %v", f)
	}
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), `"model": "opus"`) || !strings.Contains(string(b), "http://127.0.0.1:7341/agents-notch/hooks/claude-code") {
		t.Errorf("the reinstalled file lost the user's setting or lacks the hooks:\n%s", b)
	}
	if len(res.Changes) == 0 || res.Changes[0].Backup == "" {
		t.Fatalf("no backup kept: %+v", res)
	}
	if bak, _ := os.ReadFile(res.Changes[0].Backup); string(bak) != `{"model": "opus", "hooks": {}}` {
		t.Errorf("the backup holds %q, want the file Reinstall replaced", bak)
	}
	if _, err := w.Reinstall("codex"); !errors.Is(err, web.ErrNotWatched) {
		t.Errorf("Reinstall of an agent not watched: %v, want ErrNotWatched", err)
	}
}

// A silent hook channel is said on the board and the pane as a fault of
// the connection, logged once, and goes when the host hears it again.
func TestHookWatchSaysASilentChannel(t *testing.T) {
	var logs syncbuf.Buffer
	w := newHookWatch(t.TempDir(), "http://127.0.0.1:7340", func(string) string { return "" }, slog.New(slog.NewJSONHandler(&logs, nil)))
	since := time.Date(2026, 12, 7, 14, 2, 0, 0, time.Local)
	s := host.Silence{Agent: "claude-code", Session: "s1\u202e", Since: since}
	w.setSilent([]host.Silence{s})
	w.setSilent([]host.Silence{s})
	want := `no hook from Claude Code for 1 min while it works (session "s1\u202e", busy since 14:02) — the hook connection is broken?`
	if f := w.Faults(); len(f) != 1 || !strings.HasPrefix(f[0].Text, want) || f[0].Reinstall {
		t.Errorf("the pane says %+v, want %q without Reinstall (no hooks of it were watched)", f, want)
	}
	if !strings.Contains(w.HubLink(), want) {
		t.Errorf("the board says %q", w.HubLink())
	}
	w.setSilent(nil)
	if w.HubLink() != "" {
		t.Errorf("heard again, the board still says %q", w.HubLink())
	}
	if n := strings.Count(logs.String(), "no hook from Claude Code"); n != 1 {
		t.Errorf("%d records of the silence, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "heard again") {
		t.Errorf("no record of the channel heard again:\n%s", logs.String())
	}
}
