package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/security"
)

// TestLaunchRoute: POST /agents-notch/launch starts only what the
// machine's launch file allows, for a viewer whose role is launch: an
// answer device is refused (403) before anything is read; a folder
// outside the roots and an agent not allowed are 403 with the reason; a
// prompt with an escape is 400; an allowed start is 200 with its pane;
// past the file's startsPerMinute or maxSessions a start is 429.
// Every start and refusal is one record, naming the device, never the
// prompt's text.
func TestLaunchRoute(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	var logs syncbuf.Buffer
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}, log: &logs})
	tmp, err := os.MkdirTemp("", "nw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	tmp, _ = filepath.EvalSymlinks(tmp)
	root := filepath.Join(tmp, "src")
	if err := os.MkdirAll(filepath.Join(root, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(tmp, "tmux.sock")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", socket, "kill-server").Run() })
	path := filepath.Join(tmp, launch.FileName)
	sleep, _ := exec.LookPath("sleep")
	if err := launch.Write(path, launch.File{Roots: []string{root}, Agents: map[string]launch.Agent{"claude-code": {Argv: []string{sleep, "30"}}}}); err != nil {
		t.Fatal(err)
	}
	body := func(folder, agent, prompt string) string {
		b, _ := json.Marshal(map[string]string{"folder": folder, "agent": agent, "prompt": prompt})
		return string(b)
	}
	api := filepath.Join(root, "api")
	const secret = "the secret first prompt"

	if st, m := e.do(t, http.MethodPost, "/agents-notch/launch", body(api, "claude-code", ""), nil); st != http.StatusForbidden || !strings.Contains(m["error"].(string), "starts no session") {
		t.Fatalf("no launcher: %d %v; want 403", st, m)
	}
	e.host.SetLauncher(launch.New(launch.Options{Path: path, Socket: socket, Hooked: func(string, string) bool { return true }}), "")

	// A folder a session ran in is offered, not allowed.
	seen, _ := json.Marshal(map[string]string{"session_id": "seen-1", "hook_event_name": "SessionStart", "source": "startup", "cwd": tmp})
	if st, m := e.do(t, http.MethodPost, "/agents-notch/hooks/claude-code", string(seen), nil); st != http.StatusOK {
		t.Fatalf("hook: %d %v", st, m)
	}
	if st, m := e.do(t, http.MethodGet, "/agents-notch/launch/options", "", nil); st != http.StatusOK || m["on"] != true ||
		len(m["offered"].([]any)) != 1 || m["offered"].([]any)[0] != tmp {
		t.Fatalf("options: %d %v; want on, %s offered", st, m, tmp)
	}

	phone := e.pairDevice(t, "phone")
	res := e.phoneReq(t, http.MethodPost, "/agents-notch/launch", body(api, "claude-code", secret), nil, phone)
	if got := readAll(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(got, "does not allow starting sessions") {
		t.Fatalf("an answer device: %d %s; want 403", res.StatusCode, got)
	}
	tests := []struct {
		name, body string
		status     int
		says       string
	}{
		{"a folder outside the roots", body(tmp, "claude-code", ""), http.StatusForbidden, "not inside a root"},
		{"an agent not allowed", body(api, "codex", ""), http.StatusForbidden, "not in the launch file"},
		{"an escape in the prompt", body(api, "claude-code", "a\x1b[2Jb"), http.StatusBadRequest, "control character"},
		{"an unknown field", `{"folder":"/x","agent":"claude-code","shell":"sh"}`, http.StatusBadRequest, "unknown field"},
		{"no folder", body("", "claude-code", ""), http.StatusBadRequest, "names a folder"},
	}
	for _, tt := range tests {
		st, m := e.do(t, http.MethodPost, "/agents-notch/launch", tt.body, nil)
		if msg, _ := m["error"].(string); st != tt.status || !strings.Contains(msg, tt.says) {
			t.Errorf("%s: %d %v; want %d saying %q", tt.name, st, m, tt.status, tt.says)
		}
	}
	if _, _, err := e.srv.Locks.Devices().SetRole("phone", security.RoleLaunch); err != nil {
		t.Fatal(err)
	}
	res = e.phoneReq(t, http.MethodPost, "/agents-notch/launch", body(api, "claude-code", secret), nil, phone)
	var ok launchReply
	if got := readAll(t, res); res.StatusCode != http.StatusOK || json.Unmarshal([]byte(got), &ok) != nil || !ok.OK || ok.Pane == "" || ok.Folder != api {
		t.Fatalf("a launch device, allowed: %d %s", res.StatusCode, got)
	}
	// The bounds, from the machine's file (read afresh at each start):
	// a flood past startsPerMinute, then past maxSessions live panes, is
	// 429 with Retry-After, and nothing more starts. (The start above
	// ran "sleep 30 -- PROMPT", which sleep refuses at once: a live
	// session is started here with no prompt.)
	bounded := func(rate, running int) {
		t.Helper()
		if err := launch.Write(path, launch.File{Roots: []string{root}, StartsPerMinute: rate, MaxSessions: running,
			Agents: map[string]launch.Agent{"claude-code": {Argv: []string{sleep, "30"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	tooMany := func(name, says string) {
		t.Helper()
		res := e.phoneReq(t, http.MethodPost, "/agents-notch/launch", body(api, "claude-code", ""), nil, phone)
		if got := readAll(t, res); res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "60" || !strings.Contains(got, says) {
			t.Errorf("%s: %d (Retry-After %q) %s; want 429 saying %q", name, res.StatusCode, res.Header.Get("Retry-After"), got, says)
		}
	}
	bounded(1, 4)
	tooMany("a second start in the minute, 1 allowed", "too many starts in the last minute")
	bounded(6, 1)
	if st, m := e.do(t, http.MethodPost, "/agents-notch/launch", body(api, "claude-code", ""), nil); st != http.StatusOK {
		t.Fatalf("a live session: %d %v", st, m)
	}
	tooMany("a second session, 1 allowed at once", "as many started sessions run as this machine allows")
	records := logs.String()
	if strings.Contains(records, secret) {
		t.Fatal("a record holds the prompt's text")
	}
	var started, refused, byRole int
	for _, line := range bytes.Split([]byte(records), []byte("\n")) {
		var r struct {
			LogType string `json:"log_type"`
			Error   any
			Data    map[string]any
		}
		if json.Unmarshal(line, &r) != nil || r.LogType != "agents-notch.launch.v1" {
			continue
		}
		if r.Error == nil {
			started++
			if r.Data["device"] == "" {
				continue // this machine's own start of a live session
			}
			if r.Data["device"] != "phone" || r.Data["agent"] != "claude-code" || r.Data["promptBytes"] != float64(len(secret)) {
				t.Errorf("the start's record: %v", r.Data)
			}
		} else {
			refused++
			if r.Data["device"] == "phone" && r.Data["agent"] == "claude-code" && r.Data["folder"] == api &&
				strings.Contains(fmt.Sprint(r.Error), "does not allow starting sessions") {
				byRole++
			}
		}
	}
	// The answer device's refusal, at the role's check before the route,
	// is a record too, naming the device and what it asked.
	if started != 2 || refused != 7 || byRole != 1 {
		t.Errorf("%d start records and %d refusals (%d by the role); want 2 and 7 (role, no launcher, folder, agent, prompt, rate, sessions), 1 by the role", started, refused, byRole)
	}
}
