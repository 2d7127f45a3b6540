package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// heldPost posts a hook and delivers its answer (status, body) on a channel.
func heldPost(t *testing.T, e *testEnv, path, body string) <-chan [2]string {
	t.Helper()
	out := make(chan [2]string, 1)
	go func() {
		req, _ := http.NewRequest("POST", e.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- [2]string{"error", err.Error()}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		out <- [2]string{res.Status, string(b)}
	}()
	return out
}

func waitCard(t *testing.T, e *testEnv, state string) host.Card {
	t.Helper()
	var card host.Card
	waitfor.Until(t, "a "+state+" card", func() bool {
		for _, c := range e.board.Cards().Cards {
			if c.State == state {
				card = c
				return true
			}
		}
		return false
	})
	return card
}

func answerBody(c host.Card, decision, message string) string {
	b, _ := json.Marshal(map[string]string{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce, "decision": decision, "message": message})
	return string(b)
}

// The board's page draws the waiting card with its buttons; its Allow
// (a Datastar POST from the page's own origin) reaches the held hook as
// Claude Code's decision; a second click is refused (403: the nonce is
// spent); a click on a card the terminal answered is a 409.
func TestApproveRoute(t *testing.T) {
	e := newEnv(t, envOpts{run: true})
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	bash := `,"tool_name":"Bash","tool_input":{"command":"rm -rf <b>build</b>"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
	c := waitCard(t, e, host.CardWaiting)

	status, page := getPage(t, e, "/agents-notch/")
	if status != 200 || !strings.Contains(page, `data-nonce="`+c.Nonce+`"`) || !strings.Contains(page, ">Allow once</button>") ||
		!strings.Contains(page, "rm -rf &lt;b&gt;build&lt;/b&gt;") {
		t.Fatalf("the page does not draw the card as text with its buttons:\n%s", page)
	}

	same := map[string]string{"Origin": e.base, "Sec-Fetch-Site": "same-origin", "Datastar-Request": "true"}
	// The locks: another site's page cannot answer.
	if st, _ := postRaw(t, e, "/agents-notch/approve", answerBody(c, "allow", ""), map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}); st != 403 {
		t.Fatalf("cross-site answer: %d", st)
	}
	if st, _ := postRaw(t, e, "/agents-notch/approve", answerBody(c, "allow", ""), map[string]string{"Content-Type": "text/plain"}); st != 415 {
		t.Fatalf("text/plain answer: %d", st)
	}
	select {
	case r := <-reply:
		t.Fatalf("the hook was answered before the click: %v", r)
	default:
	}
	if st, body := postRaw(t, e, "/agents-notch/approve", answerBody(c, "allow", ""), same); st != 204 {
		t.Fatalf("allow: %d %s", st, body)
	}
	select {
	case r := <-reply:
		if r[0] != "200 OK" || r[1] != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` {
			t.Fatalf("the held hook got %v", r)
		}
	case <-time.After(waitfor.Patience):
		t.Fatal("the held hook never got the answer")
	}
	if st, body := postRaw(t, e, "/agents-notch/approve", answerBody(c, "allow", ""), same); st != 403 {
		t.Fatalf("replayed: %d %s", st, body)
	}

	// The next call: answered at the terminal (its result), then clicked.
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t2"`), nil)
	reply = heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
	c2 := waitCard(t, e, host.CardWaiting)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PostToolUse", bash+`,"tool_use_id":"t2","tool_response":{}`), nil)
	if r := <-reply; r[0] != "200 OK" || r[1] != "" {
		t.Fatalf("the terminal answered, yet the hook got %v", r)
	}
	st, body := postRaw(t, e, "/agents-notch/approve", answerBody(c2, "deny", "too late"), same)
	if st != 409 || !strings.Contains(body, "already answered in the terminal") {
		t.Fatalf("a click after the terminal answered: %d %s", st, body)
	}
}

// What the route refuses before it looks at a card: a body that is not an
// answer (400), an answer from a follower (409).
func TestApproveRouteRefusals(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, body := range []string{
		`{}`,
		`{"sessionId":"s","call":"t","nonce":"n","decision":"maybe"}`,
		`{"sessionId":"s","call":"t","nonce":"n","decision":"allow","message":"why"}`,
		`{"sessionId":"s","call":"t","nonce":"","decision":"allow"}`,
		`{"sessionId":"s","call":"t","nonce":"n","decision":"allow","extra":1}`,
		`{"sessionId":"s\u0007","call":"t","nonce":"n","decision":"allow"}`,
		`[]`,
	} {
		if st, _ := postRaw(t, e, "/agents-notch/approve", body, nil); st != 400 {
			t.Errorf("%s: %d, want 400", body, st)
		}
	}
	if st, _ := postRaw(t, e, "/agents-notch/approve", `{"sessionId":"s","call":"t","nonce":"forged","decision":"allow"}`, nil); st != 403 {
		t.Errorf("forged nonce: %d, want 403", st)
	}
	f := newEnv(t, envOpts{follow: true})
	if st, _ := postRaw(t, f, "/agents-notch/approve", `{"sessionId":"s","call":"t","nonce":"n","decision":"allow"}`, nil); st != 409 {
		t.Errorf("follower: %d, want 409", st)
	}
	off := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	if st, _ := postRaw(t, off, "/agents-notch/approve", `{"sessionId":"s","call":"t","nonce":"n","decision":"allow"}`, nil); st != 403 {
		t.Errorf("approvals off: %d, want 403", st)
	}
}

// Codex and Qwen Code wait on their hook only when relayed with ?wait=MS
// (hooks install codex|qwen --approvals: agent.Spec.AnswerWait); the
// answer has Claude Code's shape. Without it, nothing is held.
func TestOptInAgentsWaitOnlyWhenAsked(t *testing.T) {
	for _, tc := range []struct {
		agent, tool, base string
		announced         bool // PreToolUse comes before the ask (Codex), or after (Qwen Code)
	}{
		{"codex", "Bash", `"turn_id":"1",`, true},
		{"qwen", "run_shell_command", `"permission_mode":"default",`, false},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			// The hold is the longest there is, so a hook held by mistake
			// outlasts waitfor's patience: returning at all is the proof,
			// not how soon.
			e := newEnv(t, envOpts{run: true, approvals: host.ApprovalConfig{Hold: host.MaxApprovalHold}})
			p := func(event, extra string) string {
				return `{"session_id":"c1",` + tc.base + `"cwd":"/src/x","hook_event_name":"` + event + `"` + extra + `}`
			}
			path := "/agents-notch/hooks/" + tc.agent
			call := `,"tool_name":"` + tc.tool + `","tool_input":{"command":"rm -rf target"}`
			if tc.announced {
				postRaw(t, e, path, p("PreToolUse", call+`,"tool_use_id":"call_1"`), nil)
			}
			if r := answeredBeforeTheHold(t, e, path, p("PermissionRequest", call)); r != [2]string{"200 OK", ""} {
				t.Fatalf("without ?wait: %v", r)
			}
			want := ""
			if tc.announced {
				postRaw(t, e, path, p("PreToolUse", call+`,"tool_use_id":"call_2"`), nil)
				want = "call_2"
			}
			reply := heldPost(t, e, path+"?wait=5000", p("PermissionRequest", call))
			c := waitCard(t, e, host.CardWaiting)
			if c.Always != "" || c.Call != want {
				t.Fatalf("%s card %+v", tc.agent, c)
			}
			if st, body := postRaw(t, e, "/agents-notch/approve", answerBody(c, "deny", "use cargo clean"), nil); st != 200 {
				t.Fatalf("deny: %d %s", st, body)
			}
			if r := <-reply; r[1] != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"use cargo clean"}}}` {
				t.Fatalf("%s got %v", tc.agent, r)
			}
		})
	}
}

// OpenCode's plugin posts with no ?wait: its queued events are answered at
// once, and its own ask (notch-web.permission) is held while the board
// may answer; the page offers OpenCode's "always" patterns, and the answer
// has Claude Code's shape, which the plugin turns into OpenCode's reply.
func TestOpenCodeAskHeldForTheBoard(t *testing.T) {
	e := newEnv(t, envOpts{run: true, approvals: host.ApprovalConfig{Hold: host.MaxApprovalHold}})
	path := "/agents-notch/hooks/opencode"
	props := `{"id":"per_1","permission":"bash","patterns":["ls -la"],"metadata":{"command":"ls -la"}`
	for _, ev := range []string{"session.created", "permission.asked"} {
		if r := answeredBeforeTheHold(t, e, path, `{"hook_event_name":"`+ev+`","session_id":"ses_1","cwd":"/src/x","properties":`+props+`}}`); r != [2]string{"200 OK", ""} {
			t.Fatalf("%s: %v", ev, r)
		}
	}
	reply := heldPost(t, e, path, `{"hook_event_name":"notch-web.permission","session_id":"ses_1","cwd":"/src/x","properties":`+props+`,"always":["ls *"]}}`)
	c := waitCard(t, e, host.CardWaiting)
	if c.Call != "per_1" || c.Always != "bash ls *" {
		t.Fatalf("card %+v", c)
	}
	if _, page := getPage(t, e, "/agents-notch/"); !strings.Contains(page, "bash ls *") {
		t.Error("the page does not show what Always allow grants")
	}
	if st, body := postRaw(t, e, "/agents-notch/approve", answerBody(c, "allow", ""), nil); st != 200 {
		t.Fatalf("allow: %d %s", st, body)
	}
	if r := <-reply; r[1] != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` {
		t.Fatalf("opencode got %v", r)
	}
}

// answeredBeforeTheHold posts a hook that must not be held and returns
// its status and body. The env's hold is MaxApprovalHold (10 minutes), far
// past waitfor.Patience: a hook held by mistake fails the test here, on no
// short clock of its own.
func answeredBeforeTheHold(t *testing.T, e *testEnv, path, body string) [2]string {
	t.Helper()
	reply := heldPost(t, e, path, body)
	var r [2]string
	waitfor.Until(t, "an answer to a hook that is not held", func() bool {
		select {
		case r = <-reply:
			return true
		default:
			return false
		}
	})
	return r
}

func getPage(t *testing.T, e *testEnv, path string) (int, string) {
	t.Helper()
	res, err := http.Get(e.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// Always allow grants exactly what the card shows: a suggestion of more
// rules than fit the button's label is counted there, and every rule —
// the bare Bash that allows every command, last of 31, included — is on
// the page in full; the click grants those rules and nothing else the
// payload put in the suggestion.
func TestAlwaysAllowShowsEveryRuleItGrants(t *testing.T) {
	e := newEnv(t, envOpts{run: true})
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	var rules, shown []string
	for i := range 30 {
		r := fmt.Sprintf("make target-%02d:*", i)
		rules = append(rules, `{"toolName":"Bash","ruleContent":"`+r+`"}`)
		shown = append(shown, "Bash("+r+")")
	}
	rules = append(rules, `{"toolName":"Bash"}`)
	shown = append(shown, "Bash")
	bash := `,"tool_name":"Bash","tool_input":{"command":"make target-01"}`
	ask := bash + `,"permission_suggestions":[{"type":"addRules","rules":[` + strings.Join(rules, ",") + `],"behavior":"allow","destination":"localSettings","hidden":"more"}]`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", ask))
	c := waitCard(t, e, host.CardWaiting)

	_, page := getPage(t, e, "/agents-notch/")
	if !strings.Contains(page, `Always allow <span class="card-rule">31 rules</span>`) {
		t.Error("the button does not count the rules it grants")
	}
	for _, r := range shown {
		if !strings.Contains(page, "<li><code>"+r+"</code></li>") {
			t.Errorf("the card does not show the rule %q it grants", r)
		}
	}
	if st, body := postRaw(t, e, "/agents-notch/approve", answerBody(c, "always", ""), nil); st != 200 {
		t.Fatalf("always: %d %s", st, body)
	}
	r := <-reply
	var d struct {
		HookSpecificOutput struct {
			Decision struct {
				UpdatedPermissions []map[string]json.RawMessage
			}
		}
	}
	json.Unmarshal([]byte(r[1]), &d)
	if u := d.HookSpecificOutput.Decision.UpdatedPermissions; len(u) != 1 || u[0]["hidden"] != nil || string(u[0]["destination"]) != `"session"` {
		t.Fatalf("always granted %s", r[1])
	}
	var granted []struct{ ToolName, RuleContent string }
	json.Unmarshal(d.HookSpecificOutput.Decision.UpdatedPermissions[0]["rules"], &granted)
	if len(granted) != len(shown) {
		t.Fatalf("granted %d rules, the card showed %d", len(granted), len(shown))
	}
	for i, g := range granted {
		n := g.ToolName
		if g.RuleContent != "" {
			n += "(" + g.RuleContent + ")"
		}
		if n != shown[i] {
			t.Errorf("rule %d granted %q, shown %q", i, n, shown[i])
		}
	}
}
