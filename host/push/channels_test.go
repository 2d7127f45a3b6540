package push

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// recorder is a stand-in for a push service's HTTP side: it records every
// request (method, path, the headers that matter, the body) and answers
// with status and body.
type recorder struct {
	mu     sync.Mutex
	reqs   []string
	status int
	answer string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", req.Method, req.URL.RequestURI())
	var keys []string
	for k := range req.Header {
		switch k {
		case "User-Agent", "Accept-Encoding", "Content-Length":
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(req.Header[k], ", "))
	}
	fmt.Fprintf(&b, "\n%s\n", body)
	r.mu.Lock()
	r.reqs = append(r.reqs, b.String())
	status, answer := r.status, r.answer
	r.mu.Unlock()
	if status == 0 {
		status = 200
	}
	w.WriteHeader(status)
	io.WriteString(w, answer)
}

func (r *recorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.reqs, "----\n")
}

// hostileTitle carries markup, a mention, markdown and a bidi override.
const hostileTitle = `laptop · <b>proj</b> & co · Claude Code — @everyone *fix* <!channel> ` + "\u202e" + `txt`

func testMint(recipient, device string) []Action {
	return []Action{
		{ID: "allow", Label: "Allow once", URL: "https://board.example/agents-notch/act", Cap: "cap-allow-" + recipient},
		{ID: "deny", Label: "Deny", URL: "https://board.example/agents-notch/act", Cap: "cap-deny-" + recipient},
	}
}

// optionMint is a question's buttons: its first two options.
func optionMint(recipient, device string) []Action {
	return []Action{
		{ID: "option-0", Label: "Teal", URL: "https://board.example/agents-notch/act", Cap: "cap-opt0-" + recipient},
		{ID: "option-1", Label: "Coral", URL: "https://board.example/agents-notch/act", Cap: "cap-opt1-" + recipient},
	}
}

// replyMint is a settled row's Reply: a link, no capability.
func replyMint(string, string) []Action {
	return []Action{{ID: ActionReply, Label: "Reply", URL: ReplyURL("https://board.example/agents-notch/", "s-2")}}
}

func messages() []Message {
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	return []Message{
		{Tag: "s-1", Kind: KindNeedsYou, Title: cutLine(hostileTitle, maxTitle), Body: "Bash: rm -rf build", URL: "https://board.example/agents-notch/", At: at, Mint: testMint},
		{Tag: "s-2", Kind: KindFinished, Title: "notch-web · Codex — tests", Body: "done", URL: "https://board.example/agents-notch/", At: at, Mint: replyMint},
		{Tag: "s-3", Kind: KindNeedsYou, Title: "argon · Claude Code", Body: "AskUserQuestion: Colour?", URL: "https://board.example/agents-notch/", At: at, Mint: optionMint},
		{Tag: SummaryTag, Kind: KindSummary, Title: "3 sessions: 2 need you, 1 failed", Body: "a; b; c", URL: "https://board.example/agents-notch/", At: at},
	}
}

func check(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	golden.Check(t, path, path+".actual", []byte(got), *update)
}

func TestNtfyMessages(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	n := NewNtfy(NtfyConfig{Name: "phone", URL: srv.URL + "/my-topic", Token: "tk_secret"}, srv.Client())
	ctx := context.Background()
	for _, m := range messages() {
		if err := n.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Withdraw(ctx, "s-1"); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(rec.all(), srv.URL, "http://ntfy.test")
	check(t, "ntfy.golden", got)
	if strings.Contains(got, "\u202e") {
		t.Error("a bidi override reached ntfy")
	}
}

func TestNtfyRefusalIsAnErrorWithoutTheTopic(t *testing.T) {
	rec := &recorder{status: http.StatusForbidden}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	n := NewNtfy(NtfyConfig{Name: "phone", URL: srv.URL + "/secret-topic", Token: "tk_secret"}, srv.Client())
	err := n.Send(context.Background(), messages()[1])
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("a 403 is an error that names no topic or token: %v", err)
	}
	srv.Close()
	err = n.Send(context.Background(), messages()[1])
	if err == nil || strings.Contains(err.Error(), "secret-topic") {
		t.Fatalf("a dead server is an error that names no topic: %v", err)
	}
}

func TestWebhookShapes(t *testing.T) {
	for _, shape := range []string{ShapeJSON, ShapeSlack, ShapeDiscord} {
		t.Run(shape, func(t *testing.T) {
			rec := &recorder{}
			if shape == ShapeDiscord {
				rec.answer = `{"id":"1234567890123456789","content":"…"}`
			}
			srv := httptest.NewServer(rec)
			defer srv.Close()
			w := NewWebhook(WebhookConfig{Name: "team", URL: srv.URL + "/hook/abc", Shape: shape}, srv.Client())
			ctx := context.Background()
			for _, m := range messages() {
				if err := w.Send(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Withdraw(ctx, "s-1"); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(rec.all(), srv.URL, "http://hook.test")
			check(t, "webhook-"+shape+".golden", got)
			for _, line := range strings.Split(got, "\n") {
				if !strings.HasPrefix(line, "{") {
					continue
				}
				var v map[string]any
				if err := json.Unmarshal([]byte(line), &v); err != nil {
					t.Errorf("a body is not one JSON object: %v: %s", err, line)
				}
			}
		})
	}
}
