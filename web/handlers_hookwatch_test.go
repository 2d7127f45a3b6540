package web

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/web/templates"
)

// fakeHooks is a HookHealth that records the Reinstalls asked of it.
type fakeHooks struct {
	mu    sync.Mutex
	asked []string
}

func (f *fakeHooks) Faults() []templates.HookFault {
	return []templates.HookFault{{Agent: "claude-code", Text: "Claude Code's hooks were removed from ~/.claude/settings.json at 14:02", Reinstall: true}}
}

func (f *fakeHooks) Reinstall(agent string) (install.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, agent)
	if agent != "claude-code" {
		return install.Result{}, ErrNotWatched
	}
	return install.Result{Changes: []install.Change{{Path: "/h/.claude/settings.json", Changed: true, Backup: "/h/.claude/settings.json.bak"}}}, nil
}

// Reinstall is this machine's: its own browser (loopback) may click it; a
// paired phone may not, and nothing is installed for it.
func TestReinstallIsThisMachines(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	hooks := &fakeHooks{}
	e.hub.Hooks = hooks
	phone := e.pairDevice(t, "phone")

	res := e.phoneReq(t, http.MethodPost, "/agents-notch/reinstall", `{"agent":"claude-code"}`, nil, phone)
	if body := readAll(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "from the host itself") {
		t.Errorf("a paired phone's Reinstall: %d %s, want 403", res.StatusCode, body)
	}
	if len(hooks.asked) != 0 {
		t.Fatalf("a refused Reinstall installed %v", hooks.asked)
	}
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"loopback", `{"agent":"claude-code"}`, 200, ""},
		{"an agent not watched", `{"agent":"codex"}`, http.StatusConflict, "were not installed when the host started"},
		{"an unknown agent", `{"agent":"../../x"}`, http.StatusBadRequest, "want {"},
		{"an extra field", `{"agent":"claude-code","scope":"project"}`, http.StatusBadRequest, "want {"},
	} {
		st, m := e.do(t, http.MethodPost, "/agents-notch/reinstall", c.body, nil)
		if st != c.status {
			t.Errorf("%s: %d %v, want %d", c.name, st, m, c.status)
		}
		if c.want != "" && !strings.Contains(m["error"].(string), c.want) {
			t.Errorf("%s: %v, want %q", c.name, m, c.want)
		}
		if st == 200 && (m["backups"].([]any)[0] != "/h/.claude/settings.json.bak") {
			t.Errorf("%s: %v, want the backup named", c.name, m)
		}
	}
	if strings.Join(hooks.asked, " ") != "claude-code codex" {
		t.Errorf("Reinstall asked for %v, want claude-code then codex", hooks.asked)
	}
}

func TestParseReinstallRequest(t *testing.T) {
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"agent":"claude-code"}`, true},
		{`{"agent":"gemini"}`, true},
		{`{"agent":"Claude-Code"}`, false},
		{`{"agent":""}`, false},
		{`{}`, false},
		{`{"agent":"claude-code"} {}`, false},
		{`[]`, false},
	} {
		if _, err := parseReinstallRequest([]byte(c.body)); (err == nil) != c.ok {
			t.Errorf("parseReinstallRequest(%s) = %v, want ok=%v", c.body, err, c.ok)
		}
	}
}

// FuzzParseReinstallRequest: any body is refused or names a known agent.
func FuzzParseReinstallRequest(f *testing.F) {
	f.Add(`{"agent":"claude-code"}`)               // the banner's click
	f.Add(`{"agent":"claude-code\u202e"}`)         // bidi
	f.Add(`{"agent":"codex","agent":"gemini"}`)    // a repeated key
	f.Add(`{"agent":` + strings.Repeat("[", 1000)) // deep, broken
	f.Fuzz(func(t *testing.T, body string) {
		agent, err := parseReinstallRequest([]byte(body))
		if err == nil && !strings.Contains(" "+strings.Join(install.Agents, " ")+" ", " "+agent+" ") {
			t.Fatalf("accepted %q", agent)
		}
	})
}
