//go:build conformance

package conformance

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// TestOpenCodeApprovals answers OpenCode's permission asks from the board,
// in the real TUI with its own prompt on screen (the plugin holds each ask
// on the host and replies with the board's answer through its client): an
// Allow POSTed as the board's button does runs the tool, which the model
// gets the result of, and the row goes on to done; a Deny rejects the call
// (OpenCode ends the turn, and the model is told at the next prompt that
// the user rejected it); an Allow in the terminal first makes the card say
// so, and a click after it is told 409.
func TestOpenCodeApprovals(t *testing.T) { ocApprovals(t, openCode) }

// ocApprovals is TestOpenCodeApprovals for an OpenCode. Not parallel: an
// Allow is proved by the first tool result the stand-in is sent after the
// click, which carries no id of the run (OpenCode's card names its own
// permission id, not the model's call), so no other test may send one
// meanwhile — a parallel Kilo run's rejection was once taken for it.
// Serial tests run before the parallel ones resume.
func ocApprovals(t *testing.T, a ocAgent) {
	r := ocRun(t, a, "ask")
	r.scenario = "tui_approvals"
	tm := ocTUI(r, a)
	marker := filepath.Join(r.work, "conformance-tool.txt")
	seen := map[string]bool{}

	// a. Allow once, from the board, while the TUI shows its prompt.
	from := len(suite.standin.Requests())
	tm.ocType("scenario:tool Create the marker file.")
	tm.waitScreen("the permission prompt", 60*time.Second, shows("Permission required", "Allow once"))
	r.waitBoard("at the permission prompt", 30*time.Second, asks("bash"))
	card := r.waitingCard("the card to allow", seen)
	clicked := time.Now()
	r.wantAnswer("Allow once", card, "allow", "", http.StatusNoContent)
	if res, ok := resultWith(t, from, "", 60*time.Second); ok {
		t.Logf("Allow from the board: the model got the call's result %v after the click (is_error=%v): %q", time.Since(clicked).Round(100*time.Millisecond), res.IsError, res.Text)
		if res.IsError {
			t.Errorf("allowed from the board, but the call's result is an error: %q", res.Text)
		}
	}
	r.waitBoard("after Allow from the board", 60*time.Second, approvedRow)
	if !exists(marker) {
		t.Errorf("allowed from the board, but the tool did not run: no %s", filepath.Base(marker))
	}
	r.waitCards("after Allow from the board", 10*time.Second, noCards)
	r.wantAnswer("Allow replayed", card, "allow", "", http.StatusForbidden) // the nonce is spent

	// b. Deny, from the board: OpenCode's reject.
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	tm.ocType("scenario:tool Create it again.")
	tm.waitScreen("the second permission prompt", 60*time.Second, shows("Permission required", "Reject"))
	card = r.waitingCard("the card to deny", seen)
	r.wantAnswer("Deny", card, "deny", "", http.StatusNoContent)
	d := r.waitBoard("after Deny from the board", 60*time.Second, oneMain(state.StatusDone))
	if m, _ := mainRows(d); len(m) == 1 && m[0].ErrorStreak != 1 {
		t.Errorf("after Deny from the board: errorStreak %d, want 1 (the refused call)", m[0].ErrorStreak)
	}
	r.waitCards("after Deny from the board", 10*time.Second, noCards)
	if exists(marker) {
		t.Errorf("denied from the board, but the tool ran: %s exists", filepath.Base(marker))
	}

	// c. Allow once in the terminal while the card waits: the card says
	// it was answered there, and a click after it is 409. The model's
	// next request carries the refusal of b.
	from = len(suite.standin.Requests())
	tm.ocType("scenario:tool Create it a third time.")
	if res, ok := resultWith(t, from, "rejected permission", 60*time.Second); ok {
		t.Logf("the model was told of the refusal: %q", res.Text)
	}
	tm.waitScreen("the third permission prompt", 60*time.Second, shows("Permission required", "Allow once"))
	card = r.waitingCard("the card answered in the terminal", seen)
	tm.keys("Enter") // Allow once
	at := time.Now()
	r.waitCards("after Allow in the terminal", 10*time.Second, noneWaiting)
	t.Logf("after Allow in the terminal the card stopped offering an answer within %v", time.Since(at).Round(10*time.Millisecond))
	r.wantAnswer("Allow after the terminal's", card, "allow", "", http.StatusConflict)
	r.waitBoard("after Allow in the terminal", 60*time.Second, approvedRow)
	r.waitCards("after Allow in the terminal", 10*time.Second, noCards)
	if !exists(marker) {
		t.Errorf("allowed in the terminal, but the tool did not run: no %s", filepath.Base(marker))
	}

	tm.ocQuit(a, "^C")
	r.waitBoard("after ^C", 10*time.Second, settled(1, state.StatusDone))
	r.logEvents()
	if t.Failed() {
		t.Logf("screen:\n%s", strings.TrimSpace(tm.screen()))
	}
}
