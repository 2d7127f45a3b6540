package web

import (
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// fakeRemote is another machine's rows as host.Remote: the ids "box/…".
type fakeRemote struct{ rows []state.Session }

func (fakeRemote) Attach(func()) {}
func (r fakeRemote) Compose(d state.Document, _ time.Time) state.Document {
	return state.Compose(d, r.rows, true)
}
func (fakeRemote) Owns(id string) bool      { return strings.HasPrefix(id, "box/") }
func (fakeRemote) Unknown() map[string]bool { return nil }
func (fakeRemote) Retire(...string) bool    { return false }

// TestOpenRefusesRemoteRows: the opener acts on this machine; a remote
// row's Open is refused with the reason, never forwarded.
func TestOpenRefusesRemoteRows(t *testing.T) {
	e := newEnv(t, envOpts{openURL: "http://127.0.0.1:9/open", remote: fakeRemote{rows: []state.Session{{ID: "box/a", Status: state.StatusWorking}}}})
	status, body := e.do(t, "POST", "/agents-notch/open", `{"sessionId":"box/a"}`, nil)
	if status != 409 || !strings.Contains(body["error"].(string)+"", "another machine") {
		t.Errorf("open of a remote row: %d %v; want 409 saying it runs on another machine", status, body)
	}
}
