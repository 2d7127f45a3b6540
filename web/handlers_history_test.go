package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// An unfolded row's history: the last events, newest first, escaped; the
// board's own render carries none of it; a session not on the board is
// 404, and what is not a session id 400.
func TestGetHistory(t *testing.T) {
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	if _, err := e.board.Ingest([]state.Event{
		{Type: "session.opened", Session: "h1", Cwd: "/src/a"},
		{Type: "turn.started", Session: "h1"},
		{Type: "tool.started", Session: "h1", Tool: `<img src=x onerror=alert(1)>`},
		{Type: "tool.ended", Session: "h1", Tool: `<img src=x onerror=alert(1)>`, Outcome: "error"},
		{Type: "session.opened", Session: "h2", Cwd: "/src/a"},
	}, time.Now()); err != nil {
		t.Fatal(err)
	}
	code, body := getPage(t, e, "/agents-notch/history?session=h1")
	if code != http.StatusOK {
		t.Fatalf("history: %d %s", code, body)
	}
	for _, want := range []string{`class="hist"`, `>tool ended<`, `data-outcome="error"`, `&lt;img src=x onerror=alert(1)&gt;`, `The last 4 events`} {
		if !strings.Contains(body, want) {
			t.Errorf("history lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<img") {
		t.Error("a tool name was drawn as markup")
	}
	if i, j := strings.Index(body, "tool ended"), strings.Index(body, "session opened"); i < 0 || j < i {
		t.Error("the history is not newest first")
	}
	if _, body := getPage(t, e, "/agents-notch/history?session=h2"); !strings.Contains(body, "session opened") {
		t.Errorf("h2's history: %s", body)
	}
	if _, page := getPage(t, e, "/agents-notch/"); strings.Contains(page, `class="hist`) {
		t.Error("the board's own render carries a history")
	}
	for _, tc := range []struct {
		q    string
		want int
	}{
		{"session=nobody", http.StatusNotFound},
		{"session=", http.StatusBadRequest},
		{"session=" + url.QueryEscape(strings.Repeat("x", 5000)), http.StatusBadRequest},
		// Without session= it is the History page (history_test.go).
		{"", http.StatusOK},
	} {
		if code, _ := getPage(t, e, "/agents-notch/history?"+tc.q); code != tc.want {
			t.Errorf("history?%.40s: %d, want %d", tc.q, code, tc.want)
		}
	}
	// Finished, the row and its history go.
	e.board.Ingest([]state.Event{{Type: "session.finished", Session: "h1"}}, time.Now())
	if code, _ := getPage(t, e, "/agents-notch/history?session=h1"); code != http.StatusNotFound {
		t.Errorf("a finished row's history: %d, want 404", code)
	}
}
