package web

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// answerLog is a host.Recorder keeping only the answers.
type answerLog struct {
	mu  sync.Mutex
	got []host.RecordedAnswer
}

func (r *answerLog) RecordEvents([]host.RecordedEvent)     {}
func (r *answerLog) RecordCost(string, float64, time.Time) {}
func (r *answerLog) RecordWhy(host.RecordedWhy)            {}
func (r *answerLog) RecordAnswer(a host.RecordedAnswer) {
	r.mu.Lock()
	r.got = append(r.got, a)
	r.mu.Unlock()
}

// recordAnswers gives e's board a recorder of its answers.
func recordAnswers(e *testEnv) *answerLog {
	r := &answerLog{}
	e.board.SetRecorder(r)
	return r
}

// answered waits for the n-th answer recorded and returns it.
func (r *answerLog) answered(t *testing.T, n int) host.RecordedAnswer {
	t.Helper()
	waitfor.Until(t, "the answer in the history", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.got) >= n
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[n-1]
}

// A board click keeps the paired device it came from, by its name; a click
// from this computer's own browser keeps none. Both reach the lasting
// history, and its page says so: "board · phone", and "board" alone.
func TestApproveKeepsTheDevice(t *testing.T) {
	st := runningStore(t)
	e := newEnv(t, envOpts{run: true, allowHosts: []string{"phone.example"}, store: st})
	rec := &answerLog{}
	e.board.SetRecorder(tee{rec, st})
	devs := e.srv.Locks.Devices()
	p, err := devs.NewPairing("phone")
	if err != nil {
		t.Fatal(err)
	}
	_, cookie, err := devs.Redeem(p.Code)
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	bash := `,"tool_name":"Bash","tool_input":{"command":"make"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	for i, tc := range []struct {
		name string
		hdr  map[string]string
		want string
	}{
		{"the paired phone", map[string]string{"Host": "phone.example", "Origin": "https://phone.example", "Sec-Fetch-Site": "same-origin", "Cookie": "notch_device=" + cookie}, "phone"},
		{"this computer", map[string]string{"Origin": e.base, "Sec-Fetch-Site": "same-origin"}, ""},
	} {
		call := "t" + string(rune('1'+i))
		postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"`+call+`"`), nil)
		reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
		c := waitCard(t, e, host.CardWaiting)
		if code, body := e.do(t, http.MethodPost, "/agents-notch/approve", answerBody(c, "allow", ""), tc.hdr); code != 200 {
			t.Fatalf("%s: allow %d %v", tc.name, code, body)
		}
		if r := <-reply; !strings.Contains(r[1], `"behavior":"allow"`) {
			t.Fatalf("%s: the held hook got %v", tc.name, r)
		}
		if a := rec.answered(t, i+1); a.By != host.ByBoard || a.Device != tc.want || a.Call != call {
			t.Fatalf("%s: recorded %+v, want by board on %q", tc.name, a, tc.want)
		}
		postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PostToolUse", bash+`,"tool_use_id":"`+call+`","tool_response":{}`), nil)
		waitfor.Until(t, "the card gone", func() bool {
			for _, c := range e.board.Cards().Cards {
				if c.State == host.CardWaiting {
					return false
				}
			}
			return true
		})
	}
	var page string
	waitfor.Until(t, "both answers on the History page", func() bool {
		_, page = getWith(t, e, "/agents-notch/history", nil)
		return strings.Count(page, "<td>allowed</td>") == 2
	})
	for _, want := range []string{`<td>board · phone</td>`, `<td>board</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the History page lacks %s", want)
		}
	}
}

// tee hands the board's facts to two recorders.
type tee [2]host.Recorder

func (t tee) RecordEvents(evs []host.RecordedEvent) { t[0].RecordEvents(evs); t[1].RecordEvents(evs) }
func (t tee) RecordAnswer(a host.RecordedAnswer)    { t[0].RecordAnswer(a); t[1].RecordAnswer(a) }
func (t tee) RecordCost(s string, usd float64, at time.Time) {
	t[0].RecordCost(s, usd, at)
	t[1].RecordCost(s, usd, at)
}

func (t tee) RecordWhy(w host.RecordedWhy) {
	t[0].RecordWhy(w)
	t[1].RecordWhy(w)
}
