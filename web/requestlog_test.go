package web

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// records parses the JSON lines of a log.
func records(t *testing.T, log *syncbuf.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r map[string]any
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// Every request leaves one completion record with its operation id —
// writes, reads, and a stream when it closes — and the id is the answer's
// X-Operation-Id.
func TestEveryRequestHasACompletionRecord(t *testing.T) {
	log := &syncbuf.Buffer{}
	e := newEnv(t, envOpts{log: log})
	cases := []struct{ method, path, body string }{
		{"GET", "/agents-notch/state", ""},
		{"GET", "/agents-notch/settings", ""},
		{"POST", "/agents-notch/settings", `{"scale":1.25}`},
		{"GET", "/agents-notch/", ""},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, e.base+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		id := res.Header.Get("X-Operation-Id")
		if len(id) != 16 {
			t.Fatalf("%s %s: X-Operation-Id %q", tc.method, tc.path, id)
		}
		waitfor.Until(t, "the record of "+tc.method+" "+tc.path, func() bool {
			for _, r := range records(t, log) {
				d, _ := r["data"].(map[string]any)
				if r["log_type"] == "dsh.http.request.v1" && r["operation_id"] == id && d["path"] == tc.path && d["method"] == tc.method && r["level"] == "INFO" {
					return true
				}
			}
			return false
		})
	}
}

// A handler's panic is the standard fatal ERROR record, then the exit —
// not a WARNING from http.Server's logger with the host carrying on.
func TestHandlerPanicIsTheFatalRecord(t *testing.T) {
	log := &syncbuf.Buffer{}
	e := newEnv(t, envOpts{log: log})
	var mu sync.Mutex
	code := -1
	e.srv.Exit = func(c int) { mu.Lock(); code = c; mu.Unlock() }
	e.srv.echo.GET("/agents-notch/boom", func(echo.Context) error { panic("the board's brush was nil") })
	res, err := http.Get(e.base + "/agents-notch/boom")
	if err == nil {
		res.Body.Close()
	}
	waitfor.Until(t, "the exit", func() bool { mu.Lock(); defer mu.Unlock(); return code == 2 })
	var fatal map[string]any
	for _, r := range records(t, log) {
		if r["fatal"] == true {
			fatal = r
		}
	}
	er, _ := fatal["error"].(map[string]any)
	if fatal == nil || fatal["level"] != "ERROR" || er["name"] != "Panic" || er["message"] != "the board's brush was nil" || !strings.Contains(er["stack"].(string), "requestlog_test.go") {
		t.Errorf("the fatal record: %v", fatal)
	}
}

// One operation id ties a board click to what it causes: the click's
// completion record, the approval's record (and its history row), and the
// held hook's completion record, which names the click as releasedBy.
func TestOperationIDTiesAClickToTheHookItReleases(t *testing.T) {
	log := &syncbuf.Buffer{}
	e := newEnv(t, envOpts{run: true, log: log})
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	bash := `,"tool_name":"Bash","tool_input":{"command":"make"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
	c := waitCard(t, e, host.CardWaiting)
	req, _ := http.NewRequest("POST", e.base+"/agents-notch/approve", strings.NewReader(answerBody(c, "allow", "")))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	op := res.Header.Get("X-Operation-Id")
	if got := <-reply; !strings.Contains(got[1], "allow") {
		t.Fatalf("the hook's reply: %v", got)
	}
	waitfor.Until(t, "the approval's and the hook's records with the click's id", func() bool {
		var approval, hookDone bool
		for _, r := range records(t, log) {
			d, _ := r["data"].(map[string]any)
			if r["log_type"] == "agents-notch.approval.v1" && r["operation_id"] == op {
				approval = true
			}
			if r["log_type"] == "dsh.http.request.v1" && d["path"] == "/agents-notch/hooks/claude-code" && d["releasedBy"] == op && r["operation_id"] != op {
				hookDone = true
			}
		}
		return approval && hookDone
	})
}
