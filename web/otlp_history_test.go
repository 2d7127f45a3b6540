package web

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"testing"
	"time"
)

// An OpenTelemetry export reaches the lasting history (issue 52): the
// session's tokens and cost, once per export, on the History page's day
// by agent; an export taken twice adds twice (each record is a call),
// and a session's statusline total after its telemetry is not counted
// again (the ledger keeps one way per session).
func TestOTLPExportKeptInTheHistory(t *testing.T) {
	st := runningStore(t)
	e := newEnv(t, envOpts{run: true})
	e.board.SetRecorder(st)
	const s = "otel-hist"
	if status, _ := postRaw(t, e, "/agents-notch/hooks/claude-code", claude(s, "UserPromptSubmit", `,"prompt":"hi"`), nil); status != 200 {
		t.Fatal("hook refused")
	}
	export := otlpLoad(t, s, 3) // three calls of 2000 in, 12 out, $0.00824
	post := func() {
		res, err := http.Post(e.base+"/agents-notch/otlp/v1/logs", "application/x-protobuf", bytes.NewReader(export))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("export answered %d", res.StatusCode)
		}
	}
	post()
	post()
	// The statusline's running total of the same session: the ledger
	// counts the session by its calls already, so no tokens come of it.
	if status, _ := postRaw(t, e, "/agents-notch/statusline", `{"session":"`+s+`","costUsd":9}`, nil); status != 200 {
		t.Fatal("statusline refused")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := st.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		days, err := st.AgentDays(t.Context(), time.Now(), 1)
		if err != nil {
			t.Fatal(err)
		}
		var tokens int64
		var cost float64
		for _, u := range days[0].Agents {
			if u.Agent == "claude-code" && u.Tokens != nil && u.CostUSD != nil {
				tokens, cost = *u.Tokens, *u.CostUSD
			}
		}
		// The cost is the session's last reported running cost: the
		// statusline's $9 (the history keeps what the agent reported).
		if tokens == 6*2012 && math.Abs(cost-9) < 1e-9 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the history's day for claude-code: %d tokens, $%v; want %d and $9 (%+v)", tokens, cost, 6*2012, days[0].Agents)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
