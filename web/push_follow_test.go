package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// The host follows notify.json as it follows settings: a file written
// while it runs is pushed to at once; a file that does not parse keeps the
// last good channels and the engine says why (line and field, no Go type);
// a file removed takes its channels away.
func TestTheHostFollowsNotifyJSON(t *testing.T) {
	n, ntfy := newStandinNtfy(t, "my-topic", "tk_secret")
	dir := t.TempDir()
	path := filepath.Join(dir, push.ConfigFile)
	e := newEnv(t, envOpts{run: true, push: &push.Options{
		ConfigPath: path,
		BoardURL:   "https://laptop.example/agents-notch/", ActURL: "https://laptop.example/agents-notch/act",
		Gap: -1,
	}})
	names := func() string {
		var out []string
		for _, c := range e.srv.Push.Channels() {
			out = append(out, c.Channel.Name())
		}
		return strings.Join(out, " ")
	}
	if got := names(); got != "" {
		t.Fatalf("channels with no file: %q", got)
	}
	good := `{"delay": "50ms", "ntfy": [{"name": "phone", "url": "` + ntfy.URL + `/my-topic", "token": "tk_secret"}]}`
	if err := os.WriteFile(path, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "the written file's channel", func() bool { return names() == "phone" })

	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", kindBash+`,"tool_use_id":"t1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", kindBash))
	n.wait(t, "the push to the channel written while the host ran", func(pub []ntfyMessage, _ []string) bool { return len(pub) == 1 })

	bad := "{\n  \"delay\": \"50ms\",\n  \"ntfy\": [{\"name\": \"phone\", \"url\": 7}]\n}"
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "the bad file's problem", func() bool { return e.srv.Push.Problem() != "" })
	p := e.srv.Push.Problem()
	if !strings.Contains(p, "line 3") || !strings.Contains(p, "url") || !strings.Contains(p, "keeping its last good channels") ||
		strings.Contains(p, "push.") || strings.Contains(p, "byte") {
		t.Errorf("the problem: %q, want the line and the field, no Go type or offset, and that the last good channels stay", p)
	}
	if got := names(); got != "phone" {
		t.Errorf("channels after a bad file: %q, want the last good ones", got)
	}
	// Broken again, another way: still the last good channels.
	if err := os.WriteFile(path, []byte("{\n\"ntfy\": [,]}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "the second bad file's problem", func() bool { return strings.Contains(e.srv.Push.Problem(), "line 2: not valid JSON") })
	if got, p := names(), e.srv.Push.Problem(); got != "phone" || !strings.Contains(p, "keeping its last good channels") {
		t.Errorf("channels after a second bad file: %q (%q), want the last good ones", got, p)
	}
	// The card is answered in the terminal: the kept channel withdraws it.
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PostToolUse", kindBash+`,"tool_use_id":"t1","tool_response":{}`), nil)
	<-reply
	n.wait(t, "the withdrawal through the kept channel", func(_ []ntfyMessage, cl []string) bool { return len(cl) == 1 })

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "no channel once the file is gone", func() bool { return names() == "" && e.srv.Push.Problem() == "" })
}
