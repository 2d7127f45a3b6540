package templates

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/host/store"
)

// The History page's tokens and cost by agent: each agent in the chart of
// what it told (Codex tokens, Claude Code cost, Gemini CLI tokens), one
// colour for an agent in both, stacked per day; an agent's day with
// nothing told is "—" in the table, never 0 or a price; a hostile agent
// name from another machine's store is text.
func TestHistoryAgents(t *testing.T) {
	v := historyFixture()
	i64 := func(n int64) *int64 { return &n }
	f64 := func(x float64) *float64 { return &x }
	v.ByAgent = make([]store.AgentDay, len(v.Bars))
	for i, b := range v.Bars {
		v.ByAgent[i].Day = b.Day
	}
	n := len(v.ByAgent)
	v.ByAgent[n-2].Agents = []store.AgentUse{{Agent: "codex", Tokens: i64(4000)}, {Agent: "gemini", Tokens: i64(12000)}}
	v.ByAgent[n-1].Agents = []store.AgentUse{
		{Agent: "<b>x</b>\u202e", Tokens: i64(10)},
		{Agent: "claude-code", CostUSD: f64(1.25)},
		{Agent: "codex", Tokens: i64(2500)},
	}
	page := string(render(t, HistoryAgents(v)))
	golden(t, "history_agents", []byte(page))
	for _, want := range []string{
		`data-metric="tokens-agent"`, `data-metric="cost-agent"`,
		`Codex <span class="ba-total">7k</span>`, `Gemini CLI <span class="ba-total">12k</span>`, `Claude Code <span class="ba-total">$1.25</span>`,
		`<th scope="col">Claude Code, cost</th>`, `&lt;b&gt;x&lt;/b&gt;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the charts lack %s", want)
		}
	}
	for _, bad := range []string{"<b>x", "\u202e", "Claude Code, tokens", "Codex, cost", "Gemini CLI, cost"} {
		if strings.Contains(page, bad) {
			t.Errorf("the charts carry %q", bad)
		}
	}
	// Tokens: two agents the day before, two the last day (the hostile
	// one's 10 tokens drawn at the least height); cost: one bar.
	tok := page[strings.Index(page, `data-metric="tokens-agent"`):strings.Index(page, `data-metric="cost-agent"`)]
	if c := strings.Count(tok, `<rect class="bar`); c != 4 {
		t.Errorf("%d token bars, want 4", c)
	}
	cost := page[strings.Index(page, `data-metric="cost-agent"`):strings.Index(page, `chart-note`)]
	if c := strings.Count(cost, `<rect class="bar`); c != 1 {
		t.Errorf("%d cost bars, want 1", c)
	}
	// One colour per agent, the same in both charts: Claude Code is the
	// first agent by name ("<b>…" sorts before it), so ag-1 in both.
	if !strings.Contains(cost, `ba-key ag-1`) || !strings.Contains(tok, `ba-key ag-2`) {
		t.Errorf("an agent's colour differs between the charts")
	}

	// No agent told anything in the days: one plain line, no chart.
	v.ByAgent = nil
	none := string(render(t, HistoryAgents(v)))
	if strings.Contains(none, "<svg") || !strings.Contains(none, "No agent told its tokens or cost in these days") {
		t.Errorf("with nothing told: %s", none)
	}
}
