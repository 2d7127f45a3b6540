package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestAllowedHostAloneReadsNothing: with --allow-host phone.example, a
// client that sends that Host and no Origin (anyone on that network, or
// anything behind the user's proxy) reads neither the board, its state nor
// its stream, and its settings POST is not taken: it holds no paired
// device. Before the gate all four answered 200.
func TestAllowedHostAloneReadsNothing(t *testing.T) {
	e := newEnv(t, envOpts{allowHosts: []string{"phone.example"}})
	phone := map[string]string{"Host": "phone.example"}
	for _, path := range []string{"/agents-notch/", "/agents-notch/pane", "/agents-notch/state", "/agents-notch/settings", "/agents-notch/stream?page=board", "/healthz"} {
		if st := e.status(t, path, phone); st != http.StatusUnauthorized {
			t.Errorf("GET %s with Host phone.example: %d, want 401", path, st)
		}
	}
	if st, _ := e.do(t, http.MethodPost, "/agents-notch/settings", `{"maxRows": 3}`, phone); st != http.StatusUnauthorized {
		t.Errorf("POST /agents-notch/settings with Host phone.example: %d, want 401", st)
	}
	if got := e.paneFile(t); strings.Contains(got, "maxRows") {
		t.Errorf("the refused POST was taken: settings.json = %s", got)
	}
	// The same requests with a loopback Host are plainly local.
	if st, _ := e.do(t, http.MethodGet, "/agents-notch/state", "", nil); st != http.StatusOK {
		t.Errorf("GET /agents-notch/state from loopback: %d, want 200", st)
	}
}

// status is the status of a GET, its body left unread (a stream's never
// ends).
func (e *testEnv) status(t testing.TB, path string, hdr map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
