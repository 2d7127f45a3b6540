//go:build conformance

package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// userLine is what the user's own statusline prints: notch-web's chains it.
const userLine = "my-own-statusline ok"

// TestClaudeStatusline: "hooks install claude-code --statusline" over a
// user's own statusLine, then the real TUI for one turn. Claude Code runs
// notch-web statusline, which prints the user's line unchanged (on the
// TUI's screen) and reports to the host: the context window fills the
// row's context bar, and the plan windows show as bars when Claude Code
// sends rate_limits, else as "—" (an API-key user's, as here, gets none in
// 2.1.328: docs/agents.md).
func TestClaudeStatusline(t *testing.T) {
	r := claudeRun(t)
	r.noRecord = true // statusline posts are not hooks: nothing to replay
	// The user's statusline keeps the JSON Claude Code hands it (this
	// test's witness of what a statusline gets), then prints its line.
	input := filepath.Join(r.root, "statusline-input.json")
	settingsPath := filepath.Join(r.home, ".claude", "settings.json")
	var settings map[string]any
	if b, err := os.ReadFile(settingsPath); err != nil || json.Unmarshal(b, &settings) != nil {
		t.Fatalf("reading the settings hooks install wrote: %v", err)
	}
	settings["statusLine"] = map[string]any{"type": "command", "command": fmt.Sprintf("cat > '%s'; echo '%s'", input, userLine)}
	b, _ := json.MarshalIndent(settings, "", "  ")
	r.writeFile(settingsPath, string(b))
	if out, err := r.notch("hooks", "install", "claude-code", "--url", r.proxy, "--statusline"); err != nil {
		t.Fatalf("hooks install --statusline: %v\n%s", err, out)
	}
	b, _ = os.ReadFile(settingsPath)
	var after struct {
		StatusLine struct{ Command string } `json:"statusLine"`
	}
	if json.Unmarshal(b, &after) != nil || !strings.Contains(after.StatusLine.Command, " statusline ") || !strings.Contains(after.StatusLine.Command, "--chain ") {
		t.Fatalf("hooks install --statusline did not chain the user's statusLine: %s", b)
	}

	tm := r.tmux(claudeEnv(), "claude", "--permission-mode", "default")
	tm.waitScreen("Claude Code starts", 60*time.Second, shows("manual mode on"))
	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))

	// The user's own line, unchanged, on Claude Code's screen.
	tm.waitScreen("the user's chained statusline", 30*time.Second, shows(userLine))
	tm.log("with the statusline")

	// What Claude Code handed the statusline after the reply.
	var in struct {
		SessionID     string          `json:"session_id"`
		ContextWindow json.RawMessage `json:"context_window"`
		RateLimits    json.RawMessage `json:"rate_limits"`
		Cost          json.RawMessage `json:"cost"`
	}
	r.waitFor("a statusline input after the reply", 30*time.Second, func() bool {
		b, err := os.ReadFile(input)
		var cost struct {
			Cost struct {
				APIMs float64 `json:"total_api_duration_ms"`
			} `json:"cost"`
		}
		return err == nil && json.Unmarshal(b, &in) == nil && json.Unmarshal(b, &cost) == nil &&
			len(in.ContextWindow) > 0 && string(in.ContextWindow) != "null" && cost.Cost.APIMs > 0
	})
	raw, _ := os.ReadFile(input)
	t.Logf("statusline input from Claude Code (API key):\n%s", raw)
	rateLimits := len(in.RateLimits) > 0 && string(in.RateLimits) != "null"
	t.Logf("rate_limits sent: %v; context_window: %s; cost: %s", rateLimits, in.ContextWindow, in.Cost)

	// The host got the report, from notch-web statusline through the
	// proxy (no retries: a later statusline brings it if one was late).
	r.waitFor("the statusline report at the host", 30*time.Second, func() bool { return r.count("statusline") > 0 })

	// The board: the row's context bar against the window Claude Code
	// reports, and the plan windows.
	mains, _ := mainRows(r.waitBoard("the row", 5*time.Second, oneMain(state.StatusDone)))
	var page string
	r.waitFor("the context bar against the reported window", 20*time.Second, func() bool {
		page = r.boardPage()
		return strings.Contains(page, `class="ctx"`) && strings.Contains(page, "(the window Claude Code reports)") &&
			(!rateLimits || strings.Contains(page, `id="plan"`))
	})
	bar := section(page, `<span class="ctx"`, `</span></span>`)
	if strings.Contains(bar, `--fill:0.000;`) || !strings.Contains(bar, `--fill:`) {
		t.Errorf("the context bar is not filled: %s", bar)
	}
	if len(mains) == 1 && !strings.Contains(page, `data-session-id="`+mains[0].ID+`"`) {
		t.Errorf("the board page has no row for %s", short(mains[0].ID))
	}
	plan := section(page, `id="plan"`, `</div></div>`)
	if rateLimits {
		if !strings.Contains(plan, `class="plan-bar"`) {
			t.Errorf("Claude Code sent rate_limits, but the plan shows no bar:\n%s", plan)
		}
	} else if strings.Contains(page, `id="plan"`) {
		// The ledger's strip draws only windows an agent told: none
		// invented, no empty bars (docs/ledger.md).
		t.Errorf("no rate_limits sent, yet the board draws a plan strip:\n%s", plan)
	}
	t.Logf("board: %s", rowsText(r.waitBoard("the row", 5*time.Second, oneMain(state.StatusDone))))
	t.Logf("context bar: %s", bar)
	t.Logf("plan: %s", plan)

	tm.exit("/exit", 30*time.Second)
	r.waitBoard("after /exit", 10*time.Second, settled(1, state.StatusDone))
	r.logEvents()
}

// boardPage is the board page as a browser gets it ("" on an error).
func (r *run) boardPage() string {
	resp, err := http.Get(r.host + "/agents-notch/")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return string(b)
}

// section is page from the first start to the end after it, for a log.
func section(page, start, end string) string {
	i := strings.Index(page, start)
	if i < 0 {
		return "(no " + start + ")"
	}
	j := strings.Index(page[i:], end)
	if j < 0 {
		return page[i:]
	}
	return page[i : i+j+len(end)]
}
