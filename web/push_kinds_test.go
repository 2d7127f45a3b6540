package web

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/proc"
)

// The tool calls that make each kind of card (Claude Code's
// PermissionRequest for a tool, AskUserQuestion and ExitPlanMode).
const (
	kindBash     = `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"}`
	kindQuestion = `,"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Colour?","header":"Colour","options":[{"label":"Teal"},{"label":"Coral"}],"multiSelect":false}]}`
	kindPlan     = `,"tool_name":"ExitPlanMode","tool_input":{"plan":"# Plan\n1. Do it."}`
	// A question its push cannot answer in one press: a multi-select.
	kindQuestionMulti = `,"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Checks?","header":"Checks","options":[{"label":"Lint"},{"label":"Unit"}],"multiSelect":true}]}`
)

// pushCard is one card waiting, pushed to a stand-in ntfy: its message,
// the held hook's reply, and the hooks to end it in the terminal.
type pushCard struct {
	e     *testEnv
	n     *standinNtfy
	msg   ntfyMessage
	reply <-chan [2]string
	hook  func(event, extra string) string
	call  string
	agent *exec.Cmd // the agent's process, when the hooks named one
}

// agentProcess starts a process that stands for an agent (it runs until
// killed or the test ends) and returns it with its ID as a hook names it.
func agentProcess(t *testing.T) (*exec.Cmd, proc.ID) {
	t.Helper()
	if _, err := proc.Of(os.Getpid()); errors.Is(err, proc.ErrUnsupported) {
		t.Skip("no process facts on this platform")
	}
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to stand for an agent: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	id, err := proc.Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, id
}

func newPushCard(t *testing.T, call string) *pushCard {
	t.Helper()
	return newPushCardFrom(t, call, nil)
}

// newPushCardFrom is newPushCard whose first hook carries hdr (a
// Notch-Proc naming the agent's process, for one).
func newPushCardFrom(t *testing.T, call string, hdr map[string]string) *pushCard {
	t.Helper()
	n, ntfy := newStandinNtfy(t, "my-topic", "tk_secret")
	e := newEnv(t, envOpts{run: true, push: &push.Options{
		Config: push.Config{Delay: 50 * time.Millisecond, Ntfy: []push.NtfyConfig{{
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
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), hdr)
	// No PreToolUse first: for a question or a plan it already asks (the
	// row needs you before the held hook makes its card), and the push
	// could come due, after this test's short delay, before the card.
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", call))
	n.wait(t, "the needs-you push", func(pub []ntfyMessage, _ []string) bool { return len(pub) == 1 })
	n.mu.Lock()
	m := n.published[0]
	n.mu.Unlock()
	return &pushCard{e: e, n: n, msg: m, reply: reply, hook: hook, call: call}
}

func (p *pushCard) labels() []string {
	var out []string
	for _, a := range p.msg.Actions {
		if a["action"] == "http" {
			out = append(out, a["label"].(string))
		}
	}
	return out
}

func (p *pushCard) press(t *testing.T, label string) (int, string) {
	t.Helper()
	c := capOf(p.msg, label)
	if c == "" {
		t.Fatalf("the push has no %q button: %v", label, p.labels())
	}
	return postRaw(t, p.e, "/agents-notch/act", `{"cap":"`+c+`"}`, nil)
}

// Each kind of card's push carries that kind's documented buttons
// (docs/push.md): a permission's Allow once and Deny, a plan's Approve
// and Keep planning, a one-choice question's first two options (each
// answers with that option), a question that needs more than one press
// Decline alone (its answers need the board's card). Each button answers the held hook as the board's does,
// and spends its pair: the other button is then 403.
func TestPushButtonsOfEveryCardKind(t *testing.T) {
	for _, c := range []struct {
		name, call string
		labels     []string
		press      string
		outcome    string
		reply      []string // in the held hook's answer
	}{
		{"permission allow", kindBash, []string{"Allow once", "Deny"}, "Allow once", "allowed", []string{`"behavior":"allow"`}},
		{"permission deny", kindBash, []string{"Allow once", "Deny"}, "Deny", "denied", []string{`"behavior":"deny"`, "denied this"}},
		{"question option", kindQuestion, []string{"Teal", "Coral"}, "Coral", "answered", []string{`"behavior":"allow"`, `"Colour?":"Coral"`}},
		{"question decline", kindQuestionMulti, []string{"Decline"}, "Decline", "denied", []string{`"behavior":"deny"`, "declined to answer"}},
		{"plan approve", kindPlan, []string{"Approve", "Keep planning"}, "Approve", "allowed", []string{`"behavior":"allow"`}},
		{"plan keep planning", kindPlan, []string{"Approve", "Keep planning"}, "Keep planning", "denied", []string{`"behavior":"deny"`, "keep planning"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newPushCard(t, c.call)
			if got := p.labels(); !slices.Equal(got, c.labels) {
				t.Fatalf("the push's buttons: %q, want %q", got, c.labels)
			}
			st, body := p.press(t, c.press)
			if st != 200 || !strings.Contains(body, `"outcome":"`+c.outcome+`"`) {
				t.Fatalf("%s: %d %s", c.press, st, body)
			}
			select {
			case r := <-p.reply:
				for _, w := range c.reply {
					if r[0] != "200 OK" || !strings.Contains(r[1], w) {
						t.Errorf("the held hook got %v, want %s", r, w)
					}
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the held hook never got the phone's answer")
			}
			for _, l := range c.labels {
				if st, body := p.press(t, l); st != 403 {
					t.Errorf("%s after %s: %d %s, want 403", l, c.press, st, body)
				}
			}
		})
	}
}

// A press that is refused spends nothing: a card answered in the terminal
// first is 409 however often it is pressed, and one whose row was closed
// out (or whose agent ended) is 410 — the documented statuses, for every
// kind and every button.
func TestARefusedPushButtonSpendsNothing(t *testing.T) {
	for _, kind := range []struct{ name, call string }{
		{"permission", kindBash}, {"question", kindQuestion}, {"plan", kindPlan},
	} {
		for _, c := range []struct {
			name   string
			status int
			agent  bool // the hooks name a real process as the agent
			end    func(p *pushCard)
		}{
			{"answered in the terminal", 409, false, func(p *pushCard) {
				postRaw(t, p.e, "/agents-notch/hooks/claude-code", p.hook("PostToolUse", p.call+`,"tool_use_id":"t1","tool_response":{}`), nil)
			}},
			{"row closed out", 410, false, func(p *pushCard) { p.e.board.Retire("s") }},
			// The agent's process ends with no SessionEnd (killed): the
			// host's watch settles the row and takes its card.
			{"agent ended", 410, true, func(p *pushCard) { p.agent.Process.Kill() }},
		} {
			t.Run(kind.name+"/"+c.name, func(t *testing.T) {
				var p *pushCard
				if c.agent {
					agent, id := agentProcess(t)
					p = newPushCardFrom(t, kind.call, map[string]string{proc.Header: id.Encode()})
					p.agent = agent
				} else {
					p = newPushCard(t, kind.call)
				}
				c.end(p)
				<-p.reply
				p.n.wait(t, "the push withdrawn", func(_ []ntfyMessage, cl []string) bool { return len(cl) == 1 })
				for range 2 {
					for _, l := range p.labels() {
						if st, body := p.press(t, l); st != c.status {
							t.Errorf("%s: %d %s, want %d", l, st, body, c.status)
						}
					}
				}
			})
		}
	}
}

// Opening an agent and leaving it at its prompt is not "finished": a new
// session's row starts as done, and only a turn's end is pushed. The new
// session comes due first, so once the other's push arrives, its would
// have.
func TestANewSessionIsNotPushedAsFinished(t *testing.T) {
	n, ntfy := newStandinNtfy(t, "my-topic", "tk_secret")
	e := newEnv(t, envOpts{run: true, push: &push.Options{
		Config: push.Config{Delay: 50 * time.Millisecond, Ntfy: []push.NtfyConfig{{
			Name: "phone", URL: ntfy.URL + "/my-topic", Token: "tk_secret",
			ChannelConfig: push.ChannelConfig{Send: []string{push.KindFinished}},
		}}},
		BoardURL: "https://laptop.example/agents-notch/", ActURL: "https://laptop.example/agents-notch/act",
		Gap: -1,
	}})
	hook := func(session, cwd, event string) string {
		tr := filepath.Join(e.home, session+".jsonl")
		os.WriteFile(tr, nil, 0o644)
		return `{"session_id":"` + session + `","transcript_path":"` + tr + `","cwd":"` + cwd + `","hook_event_name":"` + event + `"}`
	}
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("idle", "/src/idle", "SessionStart"), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("busy", "/src/busy", "SessionStart"), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("busy", "/src/busy", "UserPromptSubmit"), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("busy", "/src/busy", "Stop"), nil)
	n.wait(t, "the finished push", func(pub []ntfyMessage, _ []string) bool { return len(pub) >= 1 })
	// One more after it: the channel sends in order, so anything about
	// the idle session was sent before this one arrives.
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("last", "/src/last", "UserPromptSubmit"), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("last", "/src/last", "Stop"), nil)
	n.wait(t, "the last finished push", func(pub []ntfyMessage, _ []string) bool {
		return slices.ContainsFunc(pub, func(m ntfyMessage) bool { return strings.HasPrefix(m.Title, "last") })
	})
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range n.published {
		if strings.HasPrefix(m.Title, "idle") {
			t.Errorf("pushed %q (%s), want only the session that ran a turn", m.Title, m.Body)
		}
	}
}
