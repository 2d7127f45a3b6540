//go:build conformance

package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// ledgerWindows reads the ledger's windows (GET /agents-notch/ledger as
// JSON).
func (r *run) ledgerWindows() ([]ledgerWin, error) {
	req, _ := http.NewRequest(http.MethodGet, r.host+"/agents-notch/ledger", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Windows []ledgerWin `json:"windows"`
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /agents-notch/ledger: %s", resp.Status)
	}
	// Decoded first: "return out.Windows, Decode(&out)" would read
	// out.Windows in an order Go leaves unspecified.
	err = json.NewDecoder(resp.Body).Decode(&out)
	return out.Windows, err
}

type ledgerWin struct {
	Agent    string   `json:"agent"`
	Window   string   `json:"window"`
	Minutes  int      `json:"minutes"`
	UsedPct  *float64 `json:"usedPct"`
	State    string   `json:"state"`
	ResetsAt string   `json:"resetsAt"`
}

// TestCodexLedger: the stand-in's rate-limit headers (x-codex-primary-…,
// x-codex-secondary-…) make Codex write rate_limits into its rollout; the
// host reads them at the turn's end and the ledger shows both windows with
// their use and their reset.
func TestCodexLedger(t *testing.T) {
	r := codexRun(t)
	r.final = "ledger windows"
	out, code := r.exec(2*time.Minute, codexEnv(), "codex", "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "scenario:plain Say hello.")
	if code != 0 {
		t.Fatalf("codex exec exited %d:\n%s", code, out)
	}
	r.wantStandinWindows()
	r.passed("ledger windows")
}

// wantStandinWindows waits for the ledger's two Codex windows and checks
// them against the stand-in's rate-limit headers: use, length, reset,
// fresh.
func (r *run) wantStandinWindows() {
	t := r.t
	want := suite.standin.Limits()
	deadline := time.Now().Add(15 * time.Second)
	var got []ledgerWin
	var err error
	for {
		got, err = r.ledgerWindows()
		if err == nil && len(got) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ledger's windows after the turn: %+v, %v; want the stand-in's two", got, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i, w := range []struct {
		name    string
		pct     float64
		minutes int
		reset   time.Time
	}{{"primary", want.PrimaryPct, want.PrimaryMinutes, want.PrimaryReset}, {"secondary", want.SecondaryPct, want.SecondaryMinutes, want.SecondaryReset}} {
		g := got[i]
		if g.Agent != "codex" || g.Window != w.name || g.UsedPct == nil || *g.UsedPct != w.pct || g.Minutes != w.minutes ||
			g.ResetsAt != w.reset.UTC().Format(time.RFC3339) || g.State != "fresh" {
			t.Errorf("window %d: %+v (usedPct %v), want %s at %v%% of %d min resetting %s, fresh", i, g, deref(g.UsedPct), w.name, w.pct, w.minutes, w.reset.UTC().Format(time.RFC3339))
		}
	}
}

// TestCodexLedgerTUI: the same through Codex's TUI, whose turns run in its
// app-server daemon (the TUI is its client): the daemon writes the rollout's
// rate_limits, and the ledger shows the stand-in's two windows with their
// reset. (notch-web reads the rollout, not the app-server's own
// rate-limit notification: docs/ledger.md.)
func TestCodexLedgerTUI(t *testing.T) {
	r := codexRun(t)
	r.final = "ledger windows"
	tm := r.tmux(codexEnv(), "codex")
	tm.waitScreen("the hooks review", 120*time.Second, shows("Hooks need review", "Trust all and continue"))
	tm.trustCodexHooks("hooks trusted")
	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	r.wantStandinWindows()
	r.passed("ledger windows")
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
