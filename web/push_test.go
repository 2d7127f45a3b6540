package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// standinNtfy follows ntfy's documented publish API as far as notch-web
// uses it (docs.ntfy.sh/publish): POST /<topic> with the message in the
// body and Title, Tags, Priority, Click, Actions (JSON), X-Sequence-ID and
// a bearer token in headers; PUT /<topic>/<sequence-id>/clear (2.16+).
type standinNtfy struct {
	topic, token string
	mu           sync.Mutex
	published    []ntfyMessage
	cleared      []string
	wake         chan struct{}
}

type ntfyMessage struct {
	Title, Body, Tags, Priority, Click, Sequence string
	Actions                                      []map[string]any
}

func newStandinNtfy(t *testing.T, topic, token string) (*standinNtfy, *httptest.Server) {
	n := &standinNtfy{topic: topic, token: token, wake: make(chan struct{}, 16)}
	srv := httptest.NewServer(n)
	t.Cleanup(srv.Close)
	return n, srv
}

func (n *standinNtfy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+n.token {
		http.Error(w, `{"code":40101,"http":401,"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodPost && len(parts) == 1 && parts[0] == n.topic:
		body, _ := io.ReadAll(r.Body)
		m := ntfyMessage{Title: r.Header.Get("Title"), Body: string(body), Tags: r.Header.Get("Tags"),
			Priority: r.Header.Get("Priority"), Click: r.Header.Get("Click"), Sequence: r.Header.Get("X-Sequence-ID")}
		if a := r.Header.Get("Actions"); a != "" {
			if err := json.Unmarshal([]byte(a), &m.Actions); err != nil {
				http.Error(w, `{"code":40018,"http":400,"error":"invalid request: actions invalid"}`, http.StatusBadRequest)
				return
			}
		}
		n.mu.Lock()
		n.published = append(n.published, m)
		n.mu.Unlock()
		io.WriteString(w, `{"id":"xE73Iyuabi","event":"message","topic":"`+n.topic+`"}`)
	case r.Method == http.MethodPut && len(parts) == 3 && parts[0] == n.topic && parts[2] == "clear":
		n.mu.Lock()
		n.cleared = append(n.cleared, parts[1])
		n.mu.Unlock()
		io.WriteString(w, `{"event":"message_clear"}`)
	default:
		http.NotFound(w, r)
	}
	n.wake <- struct{}{}
}

// wait returns once cond holds of what arrived, or fails after a while.
func (n *standinNtfy) wait(t *testing.T, what string, cond func(pub []ntfyMessage, cleared []string) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		n.mu.Lock()
		ok := cond(n.published, n.cleared)
		n.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-n.wake:
		case <-deadline:
			t.Fatalf("ntfy never got %s: %+v %v", what, n.published, n.cleared)
		}
	}
}

func capOf(m ntfyMessage, label string) string {
	for _, a := range m.Actions {
		if a["label"] == label {
			var b struct{ Cap string }
			json.Unmarshal([]byte(a["body"].(string)), &b)
			return b.Cap
		}
	}
	return ""
}

// A permission card nobody answers reaches ntfy after the delay, labelled,
// with Allow once / Deny buttons; Deny from the phone answers the held hook
// and the message is cleared; a replay is 403. The next card, answered in
// the terminal first, is cleared too, and its button is then a 409.
func TestPushReachesNtfyAndItsButtonsAnswer(t *testing.T) {
	n, ntfy := newStandinNtfy(t, "my-topic", "tk_secret")
	e := newEnv(t, envOpts{run: true, push: &push.Options{
		Config: push.Config{Delay: 200 * time.Millisecond, Ntfy: []push.NtfyConfig{{
			Name: "phone", URL: ntfy.URL + "/my-topic", Token: "tk_secret",
			ChannelConfig: push.ChannelConfig{Send: []string{push.KindNeedsYou}},
		}}},
		BoardURL: "https://laptop.example/agents-notch/", ActURL: "https://laptop.example/agents-notch/act",
	}})
	rec := recordAnswers(e)
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	bash := `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))

	n.wait(t, "the needs-you push", func(pub []ntfyMessage, _ []string) bool { return len(pub) == 1 })
	m := n.published[0]
	if m.Title != "argon · Claude Code" || m.Body != "Bash: rm -rf build" || m.Priority != "high" ||
		m.Click != "https://laptop.example/agents-notch/" || len(m.Actions) != 2 || m.Sequence == "" {
		t.Fatalf("the push: %+v", m)
	}
	if m.Actions[0]["url"] != "https://laptop.example/agents-notch/act" || m.Actions[0]["method"] != "POST" {
		t.Fatalf("the buttons post to the act route: %+v", m.Actions)
	}
	deny := capOf(m, "Deny")

	if st, body := postRaw(t, e, "/agents-notch/act", `{"cap":"forged"}`, nil); st != 403 {
		t.Fatalf("a forged capability: %d %s", st, body)
	}
	if st, body := postRaw(t, e, "/agents-notch/act", `{"cap":"`+deny+`","more":1}`, nil); st != 400 {
		t.Fatalf("an unknown field: %d %s", st, body)
	}
	if st, body := postRaw(t, e, "/agents-notch/act", `{"cap":"`+deny+`"}`, nil); st != 200 || !strings.Contains(body, `"outcome":"denied"`) {
		t.Fatalf("deny from the phone: %d %s", st, body)
	}
	select {
	case r := <-reply:
		if r[0] != "200 OK" || !strings.Contains(r[1], `"behavior":"deny"`) {
			t.Fatalf("the held hook got %v", r)
		}
	case <-time.After(waitfor.Patience):
		t.Fatal("the held hook never got the phone's answer")
	}
	// ntfy's app posts with no device: the history names the channel.
	if a := rec.answered(t, 1); a.By != host.ByPush || a.Device != "ntfy phone" {
		t.Fatalf("recorded %+v, want by push through ntfy phone", a)
	}
	if st, _ := postRaw(t, e, "/agents-notch/act", `{"cap":"`+deny+`"}`, nil); st != 403 {
		t.Fatalf("a replay: %d", st)
	}
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PostToolUseFailure", bash+`,"tool_use_id":"t1","error":"denied"`), nil)
	n.wait(t, "the clear of the answered push", func(_ []ntfyMessage, cl []string) bool { return len(cl) == 1 && cl[0] == m.Sequence })

	// The next call is answered in the terminal before anyone taps.
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t2"`), nil)
	reply = heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
	n.wait(t, "the second push", func(pub []ntfyMessage, _ []string) bool { return len(pub) == 2 })
	allow := capOf(n.published[1], "Allow once")
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PostToolUse", bash+`,"tool_use_id":"t2","tool_response":{}`), nil)
	<-reply
	n.wait(t, "the clear after the terminal answered", func(_ []ntfyMessage, cl []string) bool { return len(cl) == 2 })
	if st, body := postRaw(t, e, "/agents-notch/act", `{"cap":"`+allow+`"}`, nil); st != 409 {
		t.Fatalf("a button after the terminal answered: %d %s", st, body)
	}
}

// The looking route takes a page's word and refuses anything else.
func TestLookingRoute(t *testing.T) {
	e := newEnv(t, envOpts{push: &push.Options{}})
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"tab":"0123456789abcdef","looking":true}`, 204},
		{`{"tab":"0123456789abcdef","looking":false}`, 204},
		{`{"tab":"short","looking":true}`, 400},
		{`{"tab":"0123456789abcdef"}`, 400},
		{`{"tab":"0123456789abcdef<script>","looking":true}`, 400},
		{`{"tab":"0123456789abcdef","looking":true,"x":1}`, 400},
	} {
		if st, body := postRaw(t, e, "/agents-notch/looking", c.body, nil); st != c.want {
			t.Errorf("%s: %d %s, want %d", c.body, st, body, c.want)
		}
	}
	if st, _ := postRaw(t, e, "/agents-notch/looking", `{"tab":"0123456789abcdef","looking":true}`, map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}); st != 403 {
		t.Errorf("another site's page may not say it looks: %d", st)
	}
}

// On a hub, another machine's session pushes from the hub (its row's
// project already names the machine), and its button's answer goes to
// that machine, as a board click on its card would.
func TestAHubPushesAnotherMachinesCard(t *testing.T) {
	n, ntfy := newStandinNtfy(t, "t", "tk")
	var got []host.AnswerRequest
	r := fakeRemote{
		rows:  []state.Session{{ID: "box/a", Title: "fix the build", Project: "box · argon", Status: state.StatusAttention, Since: time.Now().Add(50 * time.Millisecond).UnixMilli()}},
		cards: []host.Card{{Key: "box-k", Session: "box/a", Call: "c1", Tool: "Bash", Detail: "make", State: host.CardWaiting, Nonce: "n-box"}},
		answer: func(a host.AnswerRequest) (host.Card, error) {
			got = append(got, a)
			return host.Card{Session: a.Session, Outcome: host.OutcomeAllowed}, nil
		},
	}
	e := newEnv(t, envOpts{run: true, remote: r, push: &push.Options{
		Config:   push.Config{Ntfy: []push.NtfyConfig{{Name: "phone", URL: ntfy.URL + "/t", Token: "tk", ChannelConfig: push.ChannelConfig{Send: []string{push.KindNeedsYou}}}}},
		BoardURL: "https://hub.example/agents-notch/", ActURL: "https://hub.example/agents-notch/act", Machine: "hub",
	}})
	n.wait(t, "the remote row's push", func(pub []ntfyMessage, _ []string) bool { return len(pub) == 1 })
	m := n.published[0]
	if m.Title != "box · argon — fix the build" || m.Body != "Bash: make" || len(m.Actions) != 2 {
		t.Fatalf("the push of another machine's card: %+v", m)
	}
	if st, body := postRaw(t, e, "/agents-notch/act", `{"cap":"`+capOf(m, "Allow once")+`"}`, nil); st != 200 {
		t.Fatalf("allow from the phone: %d %s", st, body)
	}
	if len(got) != 1 || got[0].Session != "box/a" || got[0].Nonce != "n-box" || got[0].Decision != host.DecideAllow || got[0].By != host.ByPush {
		t.Errorf("the machine was asked %+v", got)
	}
}
