package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// A board click's operation id (X-Operation-Id, the id of its completion
// record) reaches the answer's row in the lasting history.
func TestAClicksOperationIDReachesTheHistory(t *testing.T) {
	st := runningStore(t)
	e := newEnv(t, envOpts{run: true, store: st})
	e.board.SetRecorder(st)
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	bash := `,"tool_name":"Bash","tool_input":{"command":"make"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
	c := waitCard(t, e, host.CardWaiting)

	req, _ := http.NewRequest(http.MethodPost, e.base+"/agents-notch/approve", strings.NewReader(answerBody(c, "allow", "")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", e.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	op := res.Header.Get("X-Operation-Id")
	if res.StatusCode != 200 || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(op) {
		t.Fatalf("allow: %d, operation id %q", res.StatusCode, op)
	}
	<-reply
	var ans []store.Answer
	waitfor.Until(t, "the answer in the history", func() bool {
		ans, _ = st.Answers(context.Background(), store.Local, "s")
		return len(ans) == 1
	})
	if ans[0].OperationID != op || ans[0].By != host.ByBoard {
		t.Errorf("the history's answer %+v, want operation id %s", ans[0], op)
	}
}
