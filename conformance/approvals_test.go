//go:build conformance

package conformance

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// boardCard is an approval card as the board page draws it: its state and
// the data a click sends (the nonce is there only while the board can
// answer).
type boardCard struct {
	State, Session, Call, Nonce, Kind string
}

var (
	cardTagRE  = regexp.MustCompile(`<div class="card[" ][^>]*>`)
	cardAttrRE = regexp.MustCompile(`\s(data-[a-z]+)="([^"]*)"`)
)

// cards reads the approval cards off the board page, as a browser gets it.
func (r *run) cards() ([]boardCard, error) {
	resp, err := http.Get(r.host + "/agents-notch/")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /agents-notch/: %s", resp.Status)
	}
	var out []boardCard
	for _, tag := range cardTagRE.FindAllString(string(page), -1) {
		var c boardCard
		for _, m := range cardAttrRE.FindAllStringSubmatch(tag, -1) {
			v := html.UnescapeString(m[2])
			switch m[1] {
			case "data-state":
				c.State = v
			case "data-session":
				c.Session = v
			case "data-call":
				c.Call = v
			case "data-nonce":
				c.Nonce = v
			case "data-kind":
				c.Kind = v
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func cardsText(cs []boardCard) string {
	if len(cs) == 0 {
		return "no cards"
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s[%s call=%s nonce=%t]", short(c.Session), c.State, c.Call, c.Nonce != ""))
	}
	return strings.Join(parts, " ")
}

// waitCards polls the board page until check passes, failing the test at
// the deadline with the cards and the hooks received; it returns the cards.
func (r *run) waitCards(step string, within time.Duration, check func([]boardCard) error) []boardCard {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for {
		cs, err := r.cards()
		if err == nil {
			if err = check(cs); err == nil {
				return cs
			}
		}
		if time.Now().After(deadline) {
			r.t.Errorf("%s: after %v: %v\n  cards: %s\n  hooks: %s", step, within, err, cardsText(cs), strings.Join(r.events(), " "))
			return cs
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitingCard waits for the one card the board can answer, of a call not
// in seen, and returns it.
func (r *run) waitingCard(step string, seen map[string]bool) boardCard {
	r.t.Helper()
	var got boardCard
	r.waitCards(step, 15*time.Second, func(cs []boardCard) error {
		for _, c := range cs {
			if c.State == "waiting" && c.Nonce != "" && !seen[c.Call] {
				got = c
				return nil
			}
		}
		return errf("no card the board can answer")
	})
	if got.Nonce == "" {
		r.t.FailNow()
	}
	seen[got.Call] = true
	return got
}

// noCards: the board page shows no approval card.
func noCards(cs []boardCard) error {
	if len(cs) > 0 {
		return errf("%d cards left on the board", len(cs))
	}
	return nil
}

// noneWaiting: no card on the board offers an answer.
func noneWaiting(cs []boardCard) error {
	for _, c := range cs {
		if c.State == "waiting" || c.Nonce != "" {
			return errf("a card still offers an answer")
		}
	}
	return nil
}

// answer POSTs a card's answer exactly as the board page's buttons do
// (Datastar's @post: a JSON body, Datastar-Request) with the headers a
// browser adds to a same-origin fetch, and returns the status and body.
func (r *run) answer(c boardCard, decision, message string) (int, string) {
	r.t.Helper()
	payload := map[string]string{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce, "decision": decision}
	if decision == "deny" {
		payload["message"] = message
	}
	body, _ := json.Marshal(payload)
	req, err := http.NewRequest(http.MethodPost, r.host+"/agents-notch/approve", bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	u, _ := url.Parse(r.host)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	req.Header.Set("Origin", "http://"+u.Host)
	req.Header.Set("Referer", r.host+"/agents-notch/")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Sec-Fetch-Mode", "cors")
	req.Header.Set("Sec-Fetch-Dest", "empty")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("POST /agents-notch/approve: %v", err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(out)
}

// wantAnswer posts an answer and fails the test unless it gets status (a
// Datastar request's success is 204: the page's update comes on its stream).
func (r *run) wantAnswer(step string, c boardCard, decision, message string, status int) {
	r.t.Helper()
	if got, body := r.answer(c, decision, message); got != status {
		r.t.Errorf("%s: POST /agents-notch/approve (%s) answered %d, want %d: %s", step, decision, got, status, strings.TrimSpace(body))
	}
}

// approvedRow: the run's one row is done and a human allowed a call in
// its turn (approvedAt).
func approvedRow(d state.Document) error {
	if err := oneMain(state.StatusDone)(d); err != nil {
		return err
	}
	if mains, _ := mainRows(d); mains[0].ApprovedAt == nil {
		return errf("row %s has no approvedAt after an allow", short(mains[0].ID))
	}
	return nil
}

// resultWith waits until the stand-in has been sent, after the from'th
// request, a tool result whose text holds want, and returns it.
func resultWith(t *testing.T, from int, want string, within time.Duration) (standin.ToolResult, bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		reqs := suite.standin.Requests()
		for _, q := range reqs[min(from, len(reqs)):] {
			for _, res := range q.Results {
				if strings.Contains(res.Text, want) {
					return res, true
				}
			}
		}
		if time.Now().After(deadline) {
			var seen []string
			for _, q := range reqs[min(from, len(reqs)):] {
				for _, res := range q.Results {
					seen = append(seen, fmt.Sprintf("%q", res.Text))
				}
			}
			t.Errorf("no request to the model carried a tool result with %q within %v; results sent: %s", want, within, strings.Join(seen, ", "))
			return standin.ToolResult{}, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestClaudeApprovals answers Claude Code's permission requests from the
// board, in the real TUI with its dialog on screen: an Allow POSTed as the
// board's button does runs the tool; a Deny with a reason reaches the
// model as the call's result; an Esc in the terminal clears the card, and
// a click after it is told 409. The board is checked after each.
func TestClaudeApprovals(t *testing.T) {
	r := claudeRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "approvals"
	tm := r.tmux(claudeEnv(), "claude", "--permission-mode", "default")
	tm.waitScreen("Claude Code starts", 60*time.Second, shows("manual mode on"))
	marker := filepath.Join(r.work, "conformance-tool.txt")
	seen := map[string]bool{}

	// a. Allow once, from the board, while the terminal shows its dialog.
	tm.typeLine("scenario:tool Create the marker file.", "UserPromptSubmit")
	tm.waitScreen("the permission dialog", 60*time.Second, shows("Do you want to proceed?"))
	r.waitBoard("at the permission dialog", 10*time.Second, oneMain(state.StatusAttention))
	card := r.waitingCard("the card to allow", seen)
	if card.Call == "" {
		t.Errorf("the card has no call id: the PermissionRequest was not matched to its PreToolUse")
	}
	clicked := time.Now()
	r.wantAnswer("Allow once", card, "allow", "", http.StatusNoContent)
	tm.waitScreen("the tool turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	t.Logf("Allow from the board: the turn's answer on screen %v after the click", time.Since(clicked).Round(100*time.Millisecond))
	if !exists(marker) {
		t.Errorf("allowed from the board, but the tool did not run: no %s", filepath.Base(marker))
	}
	r.waitBoard("after Allow from the board", 10*time.Second, approvedRow)
	r.waitCards("after Allow from the board", 10*time.Second, noCards)
	r.wantAnswer("Allow replayed", card, "allow", "", http.StatusForbidden) // the nonce is spent
	tm.waitQuiet("after Allow from the board", "esc to interrupt", 30*time.Second)

	// b. Deny with a reason, from the board: Claude sends the reason to
	// the model as the refused call's result, and the turn goes on.
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, 4)
	_, _ = rand.Read(nonce)
	reason := "Not now: use the staging copy (" + hex.EncodeToString(nonce) + ")"
	from := len(suite.standin.Requests())
	tm.typeLine("scenario:tool Create it again.", "UserPromptSubmit")
	tm.waitScreen("the second permission dialog", 60*time.Second, shows("Do you want to proceed?"))
	r.waitBoard("at the second permission dialog", 10*time.Second, oneMain(state.StatusAttention))
	card = r.waitingCard("the card to deny", seen)
	r.wantAnswer("Deny with a reason", card, "deny", reason, http.StatusNoContent)
	if res, ok := resultWith(t, from, reason, 30*time.Second); ok {
		t.Logf("the model got the refusal: tool_result(%s, is_error=%v): %q", res.ID, res.IsError, res.Text)
		if res.ID != card.Call {
			t.Errorf("the reason came back as the result of %s, want the denied call %s", res.ID, card.Call)
		}
	}
	tm.waitScreen("the denied turn's answer", 60*time.Second, tm.count(standin.FinalText, 2))
	if exists(marker) {
		t.Errorf("denied from the board, but the tool ran: %s exists", filepath.Base(marker))
	}
	r.waitBoard("after Deny from the board", 10*time.Second, oneMain(state.StatusDone))
	r.waitCards("after Deny from the board", 10*time.Second, noCards)
	r.wantAnswer("Deny replayed", card, "allow", "", http.StatusForbidden)
	tm.waitQuiet("after Deny from the board", "esc to interrupt", 30*time.Second)

	// c. Esc in the terminal while the card is shown: the card stops
	// offering an answer at once and goes, and a click after it is 409.
	tm.typeLine("scenario:tool Create it a third time.", "UserPromptSubmit")
	tm.waitScreen("the third permission dialog", 60*time.Second, shows("Do you want to proceed?"))
	card = r.waitingCard("the card at Esc", seen)
	tm.keys("Escape") // No
	tm.waitScreen("the refusal", 20*time.Second, shows("Interrupted"))
	escAt := time.Now()
	r.waitCards("after Esc in the terminal", 5*time.Second, noneWaiting)
	t.Logf("after Esc in the terminal the card stopped offering an answer within %v", time.Since(escAt).Round(10*time.Millisecond))
	r.wantAnswer("Allow after Esc", card, "allow", "", http.StatusConflict)
	r.waitBoard("after Esc in the terminal", 5*time.Second, notBusy)
	r.waitCards("after Esc in the terminal", 10*time.Second, noCards)
	r.holdBoard("after Esc in the terminal", 8*time.Second, notBusy)
	if exists(marker) {
		t.Errorf("refused in the terminal, but the tool ran: %s exists", filepath.Base(marker))
	}

	tm.exit("/exit", 30*time.Second)
	r.waitBoard("after /exit", 10*time.Second, settled(1, state.StatusDone))
	r.logEvents()
}

// TestClaudeHeadlessAllowedFromBoard: claude -p cannot show a dialog, but
// its PermissionRequest hook is held like the TUI's, so the board's Allow
// is a real way to let a headless run use a tool (without it, -p refuses
// once the hold ends: headless_tool_refused).
func TestClaudeHeadlessAllowedFromBoard(t *testing.T) {
	r := claudeRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "headless_tool_allowed_from_board"
	type result struct {
		out  string
		code int
	}
	done := make(chan result, 1)
	go func() {
		out, code := r.exec(2*time.Minute, claudeEnv(), "claude", "-p", "scenario:tool Create the marker file.")
		done <- result{out, code}
	}()
	card := r.waitingCard("the card of claude -p", map[string]bool{})
	r.wantAnswer("Allow once", card, "allow", "", http.StatusNoContent)
	res := <-done
	if res.code != 0 || !strings.Contains(res.out, standin.FinalText) {
		t.Errorf("claude -p exited %d:\n%s", res.code, res.out)
	}
	if !exists(filepath.Join(r.work, "conformance-tool.txt")) {
		t.Errorf("allowed from the board, but claude -p did not run the tool")
	}
	r.waitBoard("after claude -p exited", 10*time.Second, settled(1, state.StatusDone))
	r.waitCards("after claude -p exited", 10*time.Second, noCards)
	r.logEvents()
}
