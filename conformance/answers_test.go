//go:build conformance

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// post sends a JSON body to one of the board's write routes exactly as the
// page does (a same-origin fetch) and returns the status and body.
func (r *run) post(path string, payload any) (int, string) {
	r.t.Helper()
	return r.postTo(r.host, path, payload)
}

// postTo posts as the board's page of the notch-web at base does (a hub's,
// say).
func (r *run) postTo(base, path string, payload any) (int, string) {
	r.t.Helper()
	body, _ := json.Marshal(payload)
	req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	u, _ := url.Parse(base)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://"+u.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Sec-Fetch-Mode", "cors")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(out)
}

// wantPost posts and fails the test unless the status is want.
func (r *run) wantPost(step, path string, payload any, want int) {
	r.t.Helper()
	if got, body := r.post(path, payload); got != want {
		r.t.Errorf("%s: POST %s answered %d, want %d: %s", step, path, got, want, strings.TrimSpace(body))
	}
}

// replyWhenReady posts a Reply as a person does once the agent's input is
// empty on its screen: the host refuses a reply over what the input holds
// (409, docs/terminal.md), and an agent redraws its input a moment after
// its turn's last hook, so a 409 for a non-empty input is asked again
// until it clears, within 30 s; any other answer is the step's.
func (r *run) replyWhenReady(step, id, text string) {
	r.t.Helper()
	r.replyWhenReadyAt(r.host, step, id, text)
}

// replyWhenReadyAt is replyWhenReady on the board at base (a hub's).
func (r *run) replyWhenReadyAt(base, step, id, text string) {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, body := r.postTo(base, "/agents-notch/reply", map[string]string{"sessionId": id, "text": text})
		if got == http.StatusConflict && strings.Contains(body, "input is not empty") && time.Now().Before(deadline) {
			time.Sleep(250 * time.Millisecond)
			continue
		}
		if got != http.StatusOK {
			r.t.Errorf("%s: POST /agents-notch/reply answered %d, want %d: %s", step, got, http.StatusOK, strings.TrimSpace(body))
		}
		return
	}
}

// kindCard waits for the board's waiting card of a kind, of a call not in
// seen.
func (r *run) kindCard(step, kind string, seen map[string]bool) boardCard {
	r.t.Helper()
	var got boardCard
	r.waitCards(step, 20*time.Second, func(cs []boardCard) error {
		for _, c := range cs {
			if c.State == "waiting" && c.Nonce != "" && c.Kind == kind && !seen[c.Call] {
				got = c
				return nil
			}
		}
		return errf("no waiting %s card", kind)
	})
	if got.Nonce == "" {
		r.t.FailNow()
	}
	seen[got.Call] = true
	return got
}

// promptWith waits until the stand-in has been sent, after the from'th
// request, a prompt holding want (what the agent sent of a typed reply).
func promptWith(t *testing.T, from int, want string, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		reqs := suite.standin.Requests()
		for _, q := range reqs[min(from, len(reqs)):] {
			if strings.Contains(q.Prompt, want) {
				return true
			}
		}
		if time.Now().After(deadline) {
			var seen []string
			for _, q := range reqs[min(from, len(reqs)):] {
				if q.Prompt != "" {
					seen = append(seen, fmt.Sprintf("%.80q", q.Prompt))
				}
			}
			t.Errorf("no request to the model carried the prompt %q within %v; prompts: %s", want, within, strings.Join(seen, ", "))
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// replyAndStop checks Reply and Stop from the board on a done session in
// tmux: a reply (two lines where the agent takes them) starts a new turn —
// the row goes working, the stand-in receives the text — and ends done; a
// reply that starts a slow turn is stopped with Stop, and the row ends
// done, not error.
func replyAndStop(t *testing.T, r *run, event string, twoLines bool, afterStop func()) {
	t.Helper()
	r.waitBoard("before the reply", 30*time.Second, oneMain(state.StatusDone))
	r.orStop() // no row to answer
	d, _ := r.board()
	mains, _ := mainRows(d)
	id := mains[0].ID
	text := "scenario:plain Reply from the board"
	want := text
	if twoLines {
		text += "\nand its second line"
		want = text
	}
	from := len(suite.standin.Requests())
	before := r.count(event)
	sent := time.Now()
	r.replyWhenReady("Reply", id, text)
	r.waitFor("the reply's "+event, 30*time.Second, func() bool { return r.count(event) > before })
	t.Logf("Reply: %s %v after the POST", event, time.Since(sent).Round(10*time.Millisecond))
	promptWith(t, from, want, 30*time.Second)
	r.waitBoard("after the reply", 60*time.Second, oneMain(state.StatusDone))

	// Stop while the model holds its answer.
	r.replyWhenReady("Reply (slow)", id, r.slow)
	r.waitFor("the model holding the slow turn", 60*time.Second, func() bool { return suite.standin.Held(r.slow) > 0 })
	r.waitBoard("while the model streams", 30*time.Second, oneMain(state.StatusWorking))
	r.wantPost("Reply while working", "/agents-notch/reply", map[string]string{"sessionId": id, "text": "more"}, http.StatusConflict)
	stopped := time.Now()
	r.wantPost("Stop", "/agents-notch/stop", map[string]string{"sessionId": id}, http.StatusOK)
	r.waitBoard("after Stop", 20*time.Second, oneMain(state.StatusDone))
	t.Logf("Stop: the row done %v after the POST", time.Since(stopped).Round(10*time.Millisecond))
	r.holdBoard("after Stop", 3*time.Second, oneMain(state.StatusDone))
	if afterStop != nil {
		afterStop()
	}
	r.wantPost("Stop when done", "/agents-notch/stop", map[string]string{"sessionId": id}, http.StatusConflict)
}

// TestClaudeAnswers answers Claude Code's AskUserQuestion from the board
// in the real TUI (its own question form on screen): a single choice and a
// multi-select, each POSTed as the card's Submit does; the model receives
// exactly the chosen answers. Then Reply and Stop from the board.
func TestClaudeAnswers(t *testing.T) {
	r := claudeRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "answers"
	r.noRecord = true
	tm := r.tmux(claudeEnv(), "claude", "--permission-mode", "default")
	tm.waitScreen("Claude Code starts", 60*time.Second, shows("manual mode on"))
	seen := map[string]bool{}

	from := len(suite.standin.Requests())
	tm.typeLine("scenario:ask Pick a colour.", "UserPromptSubmit")
	tm.waitScreen("the question", 60*time.Second, shows(standin.AskQuestion))
	r.waitBoard("at the question", 10*time.Second, oneMain(state.StatusAttention))
	c := r.kindCard("the question card", "question", seen)
	r.wantPost("Submit (single)", "/agents-notch/approve", map[string]any{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce,
		"decision": "answer", "answers": []map[string]any{{"options": []int{1}}}}, http.StatusOK)
	if res, ok := resultWith(t, from, `"`+standin.AskQuestion+`"="Coral"`, 30*time.Second); ok {
		t.Logf("the model got: %q", res.Text)
	}
	tm.waitScreen("the answered turn", 60*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoard("after the answer", 10*time.Second, oneMain(state.StatusDone))
	r.waitCards("after the answer", 10*time.Second, noCards)
	r.wantPost("Submit replayed", "/agents-notch/approve", map[string]any{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce,
		"decision": "answer", "answers": []map[string]any{{"options": []int{0}}}}, http.StatusForbidden)
	tm.waitQuiet("after the answer", "esc to interrupt", 30*time.Second)

	from = len(suite.standin.Requests())
	tm.typeLine("scenario:askmulti Pick the checks.", "UserPromptSubmit")
	tm.waitScreen("the multi-select", 60*time.Second, shows(standin.AskMultiQuestion))
	c = r.kindCard("the multi-select card", "question", seen)
	r.wantPost("Submit (multi and words)", "/agents-notch/approve", map[string]any{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce,
		"decision": "answer", "answers": []map[string]any{{"options": []int{0, 2}}}}, http.StatusOK)
	if res, ok := resultWith(t, from, `"`+standin.AskMultiQuestion+`"="Lint, Browser tests"`, 30*time.Second); ok {
		t.Logf("the model got: %q", res.Text)
	}
	tm.waitScreen("the multi-select turn", 60*time.Second, tm.count(standin.FinalText, 2))
	tm.waitQuiet("after the multi-select", "esc to interrupt", 30*time.Second)

	// Claude Code puts a prompt interrupted before any output back in its
	// input box: cleared here, as a human would, before /exit.
	replyAndStop(t, r, "UserPromptSubmit", true, func() {
		tm.waitScreen("the interrupted prompt back in the input", 10*time.Second, func(s string) bool {
			return strings.Contains(inputBox(s), "scenario:slow")
		})
		tm.keys("-N", strconv.Itoa(len(r.slow)+10), "BSpace") // the slow prompt, and some
	})

	tm.exit("/exit", 30*time.Second)
	r.waitBoard("after /exit", 10*time.Second, settled(1, state.StatusDone))
}

// TestClaudePlan approves a plan from the board with auto-accept edits:
// the TUI leaves plan mode into accept edits, and the plan's edit (a
// Write) runs with no permission dialog and no PermissionRequest.
func TestClaudePlan(t *testing.T) {
	r := claudeRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "plan"
	r.noRecord = true
	tm := r.tmux(claudeEnv(), "claude", "--permission-mode", "plan")
	tm.waitScreen("Claude Code starts", 60*time.Second, shows("plan mode on"))
	tm.typeLine("scenario:plan Make a plan.", "UserPromptSubmit")
	tm.waitScreen("the plan", 60*time.Second, shows("Ready to code?"))
	c := r.kindCard("the plan card", "plan", map[string]bool{})
	asks := r.count("PermissionRequest")
	r.wantPost("Approve and auto-accept edits", "/agents-notch/approve", map[string]any{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce, "decision": "mode"}, http.StatusOK)
	marker := filepath.Join(r.work, standin.PlanFile)
	r.waitFor("the plan's edit", 60*time.Second, func() bool { return exists(marker) })
	tm.waitScreen("the plan's turn", 60*time.Second, tm.count(standin.FinalText, 1))
	if n := r.count("PermissionRequest"); n != asks {
		t.Errorf("the edit after the plan asked (%d PermissionRequest after the plan's), want none: edits should be accepted", n-asks)
	}
	if s := tm.screen(); !strings.Contains(s, "accept edits on") {
		t.Errorf("the TUI is not in accept edits after the plan:\n%s", footer(s))
	}
	r.waitBoard("after the plan", 10*time.Second, oneMain(state.StatusDone))
	r.waitCards("after the plan", 10*time.Second, noCards)
}

// TestClaudeKeepPlanning sends a plan back from the board with a reason:
// the model receives the reason as the call's result, nothing is edited,
// plan mode goes on.
func TestClaudeKeepPlanning(t *testing.T) {
	r := claudeRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "keep_planning"
	r.noRecord = true
	tm := r.tmux(claudeEnv(), "claude", "--permission-mode", "plan")
	tm.waitScreen("Claude Code starts", 60*time.Second, shows("plan mode on"))
	from := len(suite.standin.Requests())
	tm.typeLine("scenario:plan Make a plan.", "UserPromptSubmit")
	tm.waitScreen("the plan", 60*time.Second, shows("Ready to code?"))
	c := r.kindCard("the plan card", "plan", map[string]bool{})
	reason := fmt.Sprintf("Keep planning: cover the docs too (%d)", time.Now().UnixNano()%100000)
	r.wantPost("Keep planning", "/agents-notch/approve", map[string]any{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce, "decision": "deny", "message": reason}, http.StatusOK)
	if res, ok := resultWith(t, from, reason, 30*time.Second); ok && !res.IsError {
		t.Errorf("the reason came as a result that is not an error: %+v", res)
	}
	tm.waitScreen("the turn after Keep planning", 60*time.Second, tm.count(standin.FinalText, 1))
	if exists(filepath.Join(r.work, standin.PlanFile)) {
		t.Errorf("sent back to planning, yet the plan's edit ran")
	}
	if s := tm.screen(); !strings.Contains(s, "plan mode on") {
		t.Errorf("the TUI left plan mode:\n%s", footer(s))
	}
	r.waitBoard("after Keep planning", 10*time.Second, oneMain(state.StatusDone))
}

// TestCodexReply types a reply from the board into a done Codex TUI: a
// new turn, the stand-in receives the text; Stop ends a working turn done.
func TestCodexReply(t *testing.T) {
	r := codexRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "reply"
	r.noRecord = true
	tm := r.tmux(codexEnv(), "codex")
	tm.waitScreen("the hooks review", 120*time.Second, shows("Hooks need review", "Trust all and continue"))
	tm.trustCodexHooks("hooks trusted")
	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	replyAndStop(t, r, "UserPromptSubmit", os.Getenv("CONFORMANCE_TWO_LINES") != "", nil)
}

// TestGeminiReply types a reply from the board into a done Gemini CLI:
// a new turn, the stand-in receives the text; Stop ends a working turn
// done.
func TestGeminiReply(t *testing.T) {
	r := geminiRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "reply"
	r.noRecord = true
	tm := r.tmux(geminiEnv(), "gemini")
	tm.waitScreen("Gemini CLI starts", 90*time.Second, shows("Type your message"))
	r.waitFor("SessionStart", 60*time.Second, func() bool { return r.count("SessionStart") > 0 })
	time.Sleep(2 * time.Second)
	tm.typeLine("scenario:plain Say hello.", "BeforeAgent")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	replyAndStop(t, r, "BeforeAgent", os.Getenv("CONFORMANCE_TWO_LINES") != "", nil)
}

// TestCodexAskUser: Codex 0.169 offers request_user_input in its default
// TUI, but there it shows no question form: the call fires PreToolUse and
// returns at once, and the model's turn goes on. No hook can carry an
// answer, so the board never holds a card for it; the row ends done.
func TestCodexAskUser(t *testing.T) {
	r := codexRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "askuser"
	r.noRecord = true
	tm := r.tmux(codexEnv(), "codex")
	tm.waitScreen("the hooks review", 120*time.Second, shows("Hooks need review", "Trust all and continue"))
	tm.trustCodexHooks("hooks trusted")
	tm.typeLine("scenario:askuser Pick a colour.", "UserPromptSubmit")
	tm.waitScreen("the turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoard("after the turn", 10*time.Second, oneMain(state.StatusDone))
	r.waitCards("after the turn", 5*time.Second, noCards)
	if r.count("PreToolUse") == 0 || r.count("PermissionRequest") != 0 {
		t.Errorf("hooks: %s; want a PreToolUse for request_user_input and no PermissionRequest", strings.Join(r.events(), " "))
	}
	if strings.Contains(tm.history(), standin.AskQuestion) {
		t.Errorf("the TUI showed the question (a form in the default mode?):\n%s", tm.screen())
	}
	t.Logf("hooks: %s", strings.Join(r.events(), " "))
}
