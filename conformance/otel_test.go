//go:build conformance

package conformance

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/otlp"
	"github.com/notch-web/notch-web/state"
)

// otlpPath is where the host takes OpenTelemetry exports (host/otlp).
const otlpPath = "/agents-notch/otlp/"

// otlpExport is one OTLP/HTTP request an agent sent.
type otlpExport struct {
	path, contentType, encoding string
	body                        []byte
}

// exports is a copy of what the agent has exported so far.
func (r *run) exports() []otlpExport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]otlpExport(nil), r.otlp...)
}

// saveExports writes the run's exports to host/otlp/testdata/recorded/,
// one file per request, as the agent sent it (gzip and all).
func (r *run) saveExports(name string) {
	dir := filepath.Join(suite.repo, "host", "otlp", "testdata", "recorded")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	for i, e := range r.exports() {
		ext := ".pb"
		if strings.Contains(e.contentType, "json") {
			ext = ".json"
		}
		if e.encoding == "gzip" {
			ext += ".gz"
		}
		signal := strings.TrimPrefix(e.path, otlpPath+"v1/")
		file := fmt.Sprintf("%s-%02d-%s%s", name, i, signal, ext)
		if err := os.WriteFile(filepath.Join(dir, file), e.body, 0o644); err != nil {
			r.t.Error(err)
		}
	}
}

// TestOtel: the real Claude Code, Codex and Gemini CLI, each with
// "hooks install <agent> --otel", and GitHub Copilot CLI with the variable
// its refused --otel names (in JSON and in protobuf), run one plain turn
// against the stand-in:
// their OpenTelemetry reaches the host, every model call it reports is the
// tokens the stand-in served, and the row shows their sum (and Claude
// Code's cost). With -record the exports are written to
// host/otlp/testdata/recorded/ as the agents sent them.
func TestOtel(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T) *run
		env  func() []string
		cli  string
		args []string
		cost bool
		api  string // the stand-in's API the agent calls (standin.Request.API)
	}{
		{"claude-code", claudeRun, claudeEnv, "claude", []string{"-p", "scenario:plain Say hello."}, true, "anthropic"},
		{"codex", codexRun, codexEnv, "codex", []string{"exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "scenario:plain Say hello."}, false, "openai"},
		{"gemini", geminiRun, geminiEnv, "gemini", []string{"-p", "scenario:plain Say hello."}, false, "gemini"},
		// Copilot CLI reads its exporter only from its environment: --otel
		// refuses it and names the variable, which the run then sets, as a
		// user would. Its default protocol is http/json.
		{"copilot", copilotRun, copilotEnv, "copilot", []string{"-p", "scenario:plain Say hello."}, false, "anthropic"},
		{"copilot-protobuf", copilotRun, func() []string {
			return append(copilotEnv(), "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
		}, "copilot", []string{"-p", "scenario:plain Say hello."}, false, "anthropic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Copilot's runs call the stand-in's Anthropic API, as Claude
			// Code does: they run alone, before the parallel ones, so the
			// calls served in a run are the run's own.
			if c.cli != "copilot" {
				t.Parallel()
			}
			r := c.run(t)
			r.noRecord = true
			r.final = "settled 1 " + state.StatusDone
			env := c.env()
			out, err := r.notch("hooks", "install", r.agent, "--url", r.proxy, "--otel")
			if r.agent == "copilot" {
				// Refused in one line that says what to set; nothing written.
				set := "OTEL_EXPORTER_OTLP_ENDPOINT=" + r.proxy + otlpPath[:len(otlpPath)-1]
				if err == nil || !strings.Contains(out, "start it with "+set+" ") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
					t.Fatalf("hooks install copilot --otel: %v, want one line refusing it that names %s:\n%s", err, set, out)
				}
				env = append(env, set)
			} else if err != nil {
				t.Fatalf("hooks install %s --otel: %v\n%s", r.agent, err, out)
			}
			from := len(suite.standin.Requests())
			out, code := r.exec(2*time.Minute, env, c.cli, c.args...)
			if code != 0 {
				t.Fatalf("%s exited %d:\n%s", c.cli, code, out)
			}
			// The model calls the stand-in served this agent (the three
			// run in parallel, each on its own API; a token count is no
			// model call), each InputTokens(0) in and OutputTokens out.
			var served int64
			for _, q := range suite.standin.Requests()[from:] {
				if q.API == c.api && q.Status == 200 && !strings.Contains(strings.ToLower(q.Path), "count") {
					served++
				}
			}
			if served == 0 {
				t.Fatalf("the stand-in served %s no model call", c.cli)
			}
			d := r.waitBoard("after the turn", 10*time.Second, settled(1, state.StatusDone))
			if len(d.Sessions) != 1 {
				return
			}
			// What the agent reported, call by call, from its own exports.
			var want host.Spent
			reported := func() bool {
				want = host.Spent{}
				for _, e := range r.exports() {
					sig, ok := otlp.ParseSignal(strings.TrimPrefix(e.path, otlpPath))
					enc, _ := otlp.ParseContentType(e.contentType)
					body, err := otlp.ReadBody(bytes.NewReader(e.body), e.encoding, otlp.MaxBody)
					if !ok || err != nil {
						t.Fatalf("an export the test cannot read: %s %v", e.path, err)
					}
					req, err := otlp.Decode(sig, enc, body)
					if err != nil {
						t.Fatalf("%s sent an export that does not decode: %v", c.cli, err)
					}
					for _, u := range otlp.Map(req).Usage {
						if u.Session != d.Sessions[0].ID {
							t.Errorf("a call of session %q; the row is %q", u.Session, d.Sessions[0].ID)
						}
						if u.InputTokens+u.CacheReadTokens != int64(standin.InputTokens(0)) || u.OutputTokens != int64(standin.OutputTokens) {
							t.Errorf("a call of %d in (+%d cached), %d out; the stand-in served %d and %d", u.InputTokens, u.CacheReadTokens, u.OutputTokens, standin.InputTokens(0), standin.OutputTokens)
						}
						want.Calls++
						want.InputTokens += u.InputTokens
						want.CacheReadTokens += u.CacheReadTokens
						want.OutputTokens += u.OutputTokens
						want.CostUSD += u.CostUSD
						want.HasCost = want.HasCost || u.HasCost
					}
				}
				return want.Calls >= served
			}
			r.waitFor(fmt.Sprintf("the agent's OpenTelemetry export of the %d model calls the stand-in served", served), 30*time.Second, reported)
			// Every call the stand-in served, counted once: the session's
			// tokens are what the stand-in served, no more, no less.
			if want.Calls != served || want.InputTokens+want.CacheReadTokens != served*int64(standin.InputTokens(0)) || want.OutputTokens != served*int64(standin.OutputTokens) {
				t.Errorf("%s reported %d calls, %d in (+%d cached), %d out; the stand-in served %d calls, %d in, %d out", c.cli,
					want.Calls, want.InputTokens, want.CacheReadTokens, want.OutputTokens, served, served*int64(standin.InputTokens(0)), served*int64(standin.OutputTokens))
			}
			if want.HasCost != c.cost {
				t.Errorf("%s reported a cost: %v, want %v", c.cli, want.HasCost, c.cost)
			}
			title := fmt.Sprintf(`class="spent" title="%s in · %s out · `, commas(want.InputTokens), commas(want.OutputTokens))
			r.waitFor("the row's spend on the board ("+title+")", 10*time.Second, func() bool { return strings.Contains(r.boardPage(), title) })
			if want.HasCost {
				if page := r.boardPage(); !strings.Contains(page, fmt.Sprintf("$%.2f</span>", want.CostUSD)) {
					t.Errorf("the row does not show the cost $%.2f:\n%s", want.CostUSD, section(page, `class="spent"`, "</span>"))
				}
			}
			t.Logf("%d calls (the stand-in served %d): %d in, %d out, $%g; %d exports", want.Calls, served, want.InputTokens, want.OutputTokens, want.CostUSD, len(r.exports()))
			if *record {
				enc := "protobuf"
				if ex := r.exports(); strings.Contains(ex[0].contentType, "json") {
					enc = "json"
				}
				r.saveExports(r.agent + "-" + enc)
			}
		})
	}
}

// commas is n as the board writes a count (2,000).
func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestOtelCopilotSpans: GitHub Copilot CLI's spans for a turn with a tool
// (two model calls: each chat span is one Usage, the invoke_agent span's
// sum is not counted again) and for a model call the stand-in fails
// (HTTP 400: the chat span's error status is one ModelError, no Usage),
// each tied to the row its hooks opened (the row shows the calls' sum; the
// host logs the failed call of a row's session). With -record the exports are
// written to host/otlp/testdata/recorded/ (copilot-tool-*, copilot-error-*).
func TestOtelCopilotSpans(t *testing.T) {
	cases := []struct {
		name          string
		args          []string
		code          int
		status        string
		calls, errors int
	}{
		{"tool", []string{"-p", "scenario:tool Create the marker file.", "--allow-all-tools"}, 0, state.StatusDone, 2, 0},
		{"error", []string{"-p", "scenario:error400 Fail, please."}, 1, state.StatusError, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := copilotRun(t)
			r.noRecord = true
			r.final = "settled 1 " + c.status
			env := append(copilotEnv(), "OTEL_EXPORTER_OTLP_ENDPOINT="+r.proxy+otlpPath[:len(otlpPath)-1], "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
			out, code := r.exec(2*time.Minute, env, "copilot", c.args...)
			if code != c.code {
				t.Fatalf("copilot exited %d, want %d:\n%s", code, c.code, out)
			}
			d := r.waitBoard("after the turn", 10*time.Second, settled(1, c.status))
			if len(d.Sessions) != 1 {
				return
			}
			var b otlp.Batch
			r.waitFor("Copilot's spans", 30*time.Second, func() bool {
				b = otlp.Batch{}
				for _, e := range r.exports() {
					sig, _ := otlp.ParseSignal(strings.TrimPrefix(e.path, otlpPath))
					enc, _ := otlp.ParseContentType(e.contentType)
					req, err := otlp.Decode(sig, enc, e.body)
					if err != nil {
						t.Fatalf("an export that does not decode: %v", err)
					}
					m := otlp.Map(req)
					b.Usage, b.Errors = append(b.Usage, m.Usage...), append(b.Errors, m.Errors...)
				}
				return len(b.Usage) >= c.calls && len(b.Errors) >= c.errors && (c.calls > 0 || c.errors > 0)
			})
			if len(b.Usage) != c.calls || len(b.Errors) != c.errors {
				t.Errorf("%d usages and %d errors, want %d and %d", len(b.Usage), len(b.Errors), c.calls, c.errors)
			}
			for i, u := range b.Usage {
				if u.Session != d.Sessions[0].ID || u.InputTokens != int64(standin.InputTokens(i)) || u.OutputTokens != int64(standin.OutputTokens) {
					t.Errorf("call %d: %+v; want session %s, %d in, %d out", i, u, d.Sessions[0].ID, standin.InputTokens(i), standin.OutputTokens)
				}
			}
			for _, e := range b.Errors {
				if e.Session != d.Sessions[0].ID || e.Message == "" {
					t.Errorf("model error %+v; want session %s and a message", e, d.Sessions[0].ID)
				}
			}
			// The row: the calls' sum, or the failed call's words.
			var in int64
			for i := 0; i < c.calls; i++ {
				in += int64(standin.InputTokens(i))
			}
			want := fmt.Sprintf(`class="spent" title="%s in · %s out · `, commas(in), commas(int64(c.calls*standin.OutputTokens)))
			if c.errors == 0 {
				r.waitFor("the row's spend on the board ("+want+")", 10*time.Second, func() bool { return strings.Contains(r.boardPage(), want) })
			} else {
				// A row with failed calls and none that answered draws no
				// spend (the board's rule for every agent); the host logs a
				// failed call only when its session is a row's.
				r.waitFor("the host's log of the failed call of the row's session", 10*time.Second, func() bool {
					b, _ := os.ReadFile(filepath.Join(r.root, "notch-web.log"))
					for _, line := range strings.Split(string(b), "\n") {
						if strings.Contains(line, "a model call failed") && strings.Contains(line, "copilot") {
							return true
						}
					}
					return false
				})
			}
			t.Logf("%d usages, %d errors: %+v %+v", len(b.Usage), len(b.Errors), b.Usage, b.Errors)
			if *record {
				r.saveExports("copilot-" + c.name + "-protobuf")
			}
		})
	}
}

// TestOtelCopilotTUI: Copilot CLI's TUI in tmux exports its chat spans
// while it runs, not only at exit: after one plain turn the row shows the
// call's tokens while the TUI still waits at its prompt; /exit adds none.
func TestOtelCopilotTUI(t *testing.T) {
	r := copilotRun(t)
	r.noRecord = true
	r.final = "settled 1 " + state.StatusDone
	tm := r.tmux(append(copilotEnv(), "OTEL_EXPORTER_OTLP_ENDPOINT="+r.proxy+otlpPath[:len(otlpPath)-1]), "copilot")
	tm.waitScreen("Copilot CLI starts", 90*time.Second, shows(copilotIdle))
	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	title := fmt.Sprintf(`class="spent" title="%s in · %s out · `, commas(int64(standin.InputTokens(0))), commas(standin.OutputTokens))
	start := time.Now()
	r.waitFor("the chat span's tokens on the row while the TUI runs ("+title+")", 30*time.Second, func() bool { return strings.Contains(r.boardPage(), title) })
	t.Logf("the tokens were on the row %v after the turn's answer was on screen; %d exports", time.Since(start).Round(100*time.Millisecond), len(r.exports()))
	tm.exit("/exit", 30*time.Second)
	r.waitBoard("after /exit", 10*time.Second, settled(1, state.StatusDone))
	if page := r.boardPage(); !strings.Contains(page, title) {
		t.Errorf("after /exit the row's spend is not one call's (%s):\n%s", title, section(page, `class="spent"`, "</span>"))
	}
}
