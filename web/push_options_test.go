package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// A question's push offers its first two options and Open on ntfy; the
// second option pressed on the phone answers the held hook with that
// option as Claude Code takes it, and the pair is spent (a replay and the
// other option are 403).
func TestAQuestionsPushAnswersWithAnOption(t *testing.T) {
	n, ntfy := newStandinNtfy(t, "my-topic", "tk_secret")
	e := newEnv(t, envOpts{run: true, push: &push.Options{
		Config: push.Config{Delay: 200 * time.Millisecond, Ntfy: []push.NtfyConfig{{
			Name: "phone", URL: ntfy.URL + "/my-topic", Token: "tk_secret",
			ChannelConfig: push.ChannelConfig{Send: []string{push.KindNeedsYou}},
		}}},
		BoardURL: "https://laptop.example/agents-notch/", ActURL: "https://laptop.example/agents-notch/act",
	}})
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	ask := `,"tool_name":"AskUserQuestion","tool_input":{"questions":[` +
		`{"question":"Colour?","header":"Colour","options":[{"label":"Teal"},{"label":"Coral"},{"label":"Lime"}],"multiSelect":false}]}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", ask+`,"tool_use_id":"q1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", ask))

	n.wait(t, "the question's push", func(pub []ntfyMessage, _ []string) bool { return len(pub) == 1 })
	m := n.published[0]
	var labels []string
	for _, a := range m.Actions {
		labels = append(labels, a["action"].(string)+" "+a["label"].(string))
	}
	if strings.Join(labels, ", ") != "http Teal, http Coral, view Open" {
		t.Fatalf("the question's buttons: %v", labels)
	}
	coral, teal := capOf(m, "Coral"), capOf(m, "Teal")
	if st, body := postRaw(t, e, "/agents-notch/act", `{"cap":"`+coral+`"}`, nil); st != 200 || !strings.Contains(body, `"outcome":"answered"`) {
		t.Fatalf("Coral from the phone: %d %s", st, body)
	}
	select {
	case r := <-reply:
		var d struct {
			HookSpecificOutput struct {
				Decision struct {
					Behavior     string
					UpdatedInput struct{ Answers map[string]string }
				}
			}
		}
		if err := json.Unmarshal([]byte(r[1]), &d); err != nil || d.HookSpecificOutput.Decision.Behavior != "allow" ||
			d.HookSpecificOutput.Decision.UpdatedInput.Answers["Colour?"] != "Coral" {
			t.Fatalf("the held hook got %v", r)
		}
	case <-time.After(waitfor.Patience):
		t.Fatal("the held hook never got the phone's answer")
	}
	for _, c := range []string{coral, teal} {
		if st, _ := postRaw(t, e, "/agents-notch/act", `{"cap":"`+c+`"}`, nil); st != 403 {
			t.Fatalf("a spent option: %d, want 403", st)
		}
	}
}
