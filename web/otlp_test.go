package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/host"
)

// postExport posts one recorded OTLP export (host/otlp/testdata/recorded)
// as the agent sent it.
func postExport(t *testing.T, e *testEnv, name string, hdr map[string]string) (int, []byte) {
	t.Helper()
	body, err := os.ReadFile("../host/otlp/testdata/recorded/" + name)
	if err != nil {
		t.Fatal(err)
	}
	signal := name[strings.LastIndex(name, "-")+1 : strings.Index(name, ".")]
	req, _ := http.NewRequest("POST", e.base+"/agents-notch/otlp/v1/"+signal, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/x-protobuf")
	if strings.Contains(name, ".json") {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// Claude Code's recorded export, posted to the host's own listener: before
// any hook its session is counted, not a row; once a hook has opened the
// row, the call's tokens and cost are on it and on the board page.
func TestOTLPExportSummedOnTheRow(t *testing.T) {
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	const s = "bf07db73-c819-4cf2-ac2f-0715074e0d5e" // the recorded session
	const export = "claude-code-protobuf-04-logs.pb"

	if status, _ := postExport(t, e, export, nil); status != 200 {
		t.Fatalf("export before any hook answered %d, want 200", status)
	}
	if doc, _ := e.board.Snapshot(e.srv.Now()); len(doc.Sessions) != 0 {
		t.Fatalf("an export made a row: %+v", doc.Sessions)
	}
	if n := e.host.OTLPUnknown(); n != 1 {
		t.Errorf("unknown sessions counted %d, want 1", n)
	}

	if status, _ := postRaw(t, e, "/agents-notch/hooks/claude-code", claude(s, "UserPromptSubmit", `,"prompt":"hi"`), nil); status != 200 {
		t.Fatal("hook refused")
	}
	if status, _ := postExport(t, e, export, nil); status != 200 {
		t.Fatal("export refused")
	}
	sp := e.board.Spent()[s]
	if sp.Calls != 1 || sp.InputTokens != 2000 || sp.OutputTokens != 12 || !sp.HasCost || sp.CostUSD != 0.00824 {
		t.Fatalf("spent %+v, want one call of 2000 in, 12 out, $0.00824", sp)
	}
	if _, page := getPage(t, e, "/agents-notch/"); !strings.Contains(page, `class="spent" title="2,000 in · 12 out`) || !strings.Contains(page, `$0.01</span>`) {
		t.Errorf("the board page does not show the row's spend:\n%s", section(page, `class="spent"`))
	}

	var health struct {
		OTLP struct {
			Exports, Usage, UnknownSessions int64
		} `json:"otlp"`
	}
	res, err := http.Get(e.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(&health); err != nil || health.OTLP.Exports != 2 || health.OTLP.Usage != 2 || health.OTLP.UnknownSessions != 1 {
		t.Errorf("/healthz otlp %+v (%v), want 2 exports, 2 usage, 1 unknown", health.OTLP, err)
	}
}

// The receiver is behind the hooks' locks: a browser page of another
// origin is refused before anything is read.
func TestOTLPLocks(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, hdr := range []map[string]string{
		{"Origin": "https://evil.example"},
		{"Sec-Fetch-Site": "cross-site"},
		{"Host": "evil.example"},
	} {
		if status, _ := postExport(t, e, "claude-code-protobuf-04-logs.pb", hdr); status != http.StatusForbidden {
			t.Errorf("%v: answered %d, want 403", hdr, status)
		}
	}
	if e.host.OTLP().Stats().Exports != 0 {
		t.Error("a refused export was taken")
	}
}

// section is the part of page around marker, for a failure's message.
func section(page, marker string) string {
	i := strings.Index(page, marker)
	if i < 0 {
		return "(" + marker + " not found)"
	}
	return page[max(0, i-200):min(len(page), i+400)]
}
