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
// "hooks install <agent> --otel", run one plain turn against the stand-in:
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
	}{
		{"claude-code", claudeRun, claudeEnv, "claude", []string{"-p", "scenario:plain Say hello."}, true},
		{"codex", codexRun, codexEnv, "codex", []string{"exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "scenario:plain Say hello."}, false},
		{"gemini", geminiRun, geminiEnv, "gemini", []string{"-p", "scenario:plain Say hello."}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := c.run(t)
			r.noRecord = true
			r.final = "settled 1 " + state.StatusDone
			if out, err := r.notch("hooks", "install", r.agent, "--url", r.proxy, "--otel"); err != nil {
				t.Fatalf("hooks install %s --otel: %v\n%s", r.agent, err, out)
			}
			out, code := r.exec(2*time.Minute, c.env(), c.cli, c.args...)
			if code != 0 {
				t.Fatalf("%s exited %d:\n%s", c.cli, code, out)
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
						want.OutputTokens += u.OutputTokens
						want.CostUSD += u.CostUSD
						want.HasCost = want.HasCost || u.HasCost
					}
				}
				return want.Calls > 0
			}
			r.waitFor("the agent's OpenTelemetry export of its model calls", 30*time.Second, reported)
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
			t.Logf("%d calls: %d in, %d out, $%g; %d exports", want.Calls, want.InputTokens, want.OutputTokens, want.CostUSD, len(r.exports()))
			if *record {
				enc := "protobuf"
				if ex := r.exports(); strings.Contains(ex[0].contentType, "json") {
					enc = "json"
				}
				r.saveExports(c.name + "-" + enc)
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
