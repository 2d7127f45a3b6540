//go:build conformance

package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

func TestOtelRecord(t *testing.T) {
	cases := []struct {
		name  string
		run   func(t *testing.T) *run
		setup func(r *run) []string
		cli   string
		args  []string
	}{
		{"claude-code-protobuf", claudeRun, func(r *run) []string { return claudeOtelEnv(r, "http/protobuf") }, "claude", []string{"-p", "scenario:plain Say hello."}},
		{"claude-code-json", claudeRun, func(r *run) []string { return claudeOtelEnv(r, "http/json") }, "claude", []string{"-p", "scenario:plain Say hello."}},
		{"codex-protobuf", codexRun, func(r *run) []string { codexOtel(r, "binary"); return codexEnv() }, "codex", []string{"exec", "--skip-git-repo-check", "scenario:plain Say hello."}},
		{"codex-json", codexRun, func(r *run) []string { codexOtel(r, "json"); return codexEnv() }, "codex", []string{"exec", "--skip-git-repo-check", "scenario:plain Say hello."}},
		{"gemini-json", geminiRun, func(r *run) []string { geminiOtel(r); return geminiEnv() }, "gemini", []string{"-p", "scenario:plain Say hello."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := c.run(t)
			r.noRecord = true
			env := c.setup(r)
			out, code := r.exec(2*time.Minute, env, c.cli, c.args...)
			t.Logf("exit %d:\n%s", code, out)
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				time.Sleep(500 * time.Millisecond)
			}
			for _, e := range r.exports() {
				t.Logf("%s %s %s %d bytes", e.path, e.contentType, e.encoding, len(e.body))
			}
			r.saveExports(c.name)
		})
	}
}

func claudeOtelEnv(r *run, protocol string) []string {
	return append(claudeEnv(),
		"CLAUDE_CODE_ENABLE_TELEMETRY=1",
		"OTEL_METRICS_EXPORTER=otlp",
		"OTEL_LOGS_EXPORTER=otlp",
		"OTEL_EXPORTER_OTLP_PROTOCOL="+protocol,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+r.proxy+strings.TrimSuffix(otlpPath, "/"),
		"OTEL_METRIC_EXPORT_INTERVAL=1000",
		"OTEL_LOGS_EXPORT_INTERVAL=500",
	)
}

func codexOtel(r *run, protocol string) {
	path := filepath.Join(r.home, ".codex", "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatal(err)
	}
	base := r.proxy + otlpPath + "v1/"
	add := fmt.Sprintf(`
[otel]
log_user_prompt = false
exporter = { otlp-http = { endpoint = %q, protocol = %q } }
metrics_exporter = { otlp-http = { endpoint = %q, protocol = %q } }
trace_exporter = { otlp-http = { endpoint = %q, protocol = %q } }
`, base+"logs", protocol, base+"metrics", protocol, base+"traces", protocol)
	// [otel] must come before the tables the seed wrote? No: TOML tables can come in any order.
	r.writeFile(path, string(b)+add)
}

func geminiOtel(r *run) {
	r.writeFile(filepath.Join(r.home, ".gemini", "settings.json"), fmt.Sprintf(`{"security":{"auth":{"selectedType":"gemini-api-key"}},"telemetry":{"enabled":true,"target":"local","otlpEndpoint":%q,"otlpProtocol":"http","logPrompts":false}}`, r.proxy+strings.TrimSuffix(otlpPath, "/")))
}
