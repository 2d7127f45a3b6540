//go:build conformance

package conformance

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
)

// TestClaudeMCPListSessions: the real Claude Code, given notch-web mcp as
// an MCP server, calls list_sessions, and the board's rows (its own
// session among them) reach the model as the tool's result.
func TestClaudeMCPListSessions(t *testing.T) {
	r := claudeRun(t)
	r.final = "settled 1 done"
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"notch-web": map[string]any{"command": suite.notchWeb, "args": []string{"mcp", "--url", r.host}},
	}})
	path := filepath.Join(r.root, "mcp.json")
	r.writeFile(path, string(cfg))
	from := len(suite.standin.Requests())
	// MCP tools are otherwise deferred behind ToolSearch (Claude Code 2.1).
	env := append(claudeEnv(), "ENABLE_TOOL_SEARCH=false")
	out, code := r.exec(2*time.Minute, env, "claude", "-p", "scenario:mcp List the sessions.",
		"--mcp-config", path, "--allowedTools", standin.MCPListSessions)
	if code != 0 || !strings.Contains(out, standin.FinalText) {
		t.Fatalf("claude -p exited %d:\n%s", code, out)
	}
	res, ok := resultWith(t, from, `"sessions"`, 10*time.Second)
	if !ok {
		for _, q := range suite.standin.Requests()[from:] {
			t.Logf("the model was offered: %s", strings.Join(q.Tools, " "))
		}
	}
	t.Logf("list_sessions gave the model: %.300s", res.Text)
	if ok && (res.IsError || !strings.Contains(res.Text, `"status"`) || !strings.Contains(res.Text, r.work[strings.LastIndex(r.work, "/")+1:])) {
		t.Errorf("list_sessions' result: error %v, %.400s", res.IsError, res.Text)
	}
}
