package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const otelBase = "http://127.0.0.1:7340"

// Claude Code's env block: merged into, never a user's collector replaced
// (unless forced), and given back on uninstall.
func TestClaudeOtel(t *testing.T) {
	cases := []struct {
		name, src string
		force     bool
		want      string // a substring of the result
		err       error
		back      string // what uninstall gives back ("" = src)
	}{
		{"empty file", ``, false, `"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://127.0.0.1:7340/agents-notch/otlp/v1/logs"`, nil, "{}\n"},
		{"other env kept", "{\n  \"env\": {\n    \"FOO\": \"bar\"\n  },\n  \"model\": \"opus\"\n}\n", false, `"FOO": "bar",`, nil, ""},
		{"a console exporter gains otlp", `{"env": {"OTEL_LOGS_EXPORTER": "console"}}`, false, `"OTEL_LOGS_EXPORTER": "console,otlp"`, nil,
			// Telemetry stays on while an exporter of the user's is left.
			`{"env": {"OTEL_LOGS_EXPORTER": "console", "CLAUDE_CODE_ENABLE_TELEMETRY": "1"}}`},
		{"metrics to the user's collector stay", `{"env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}}`, false, `"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"`, nil, ""},
		{"logs to the user's collector", `{"env": {"OTEL_LOGS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}}`, false, "", ErrOtherCollector, ""},
		{"logs to the default collector", `{"env": {"OTEL_LOGS_EXPORTER": "otlp"}}`, false, "", ErrOtherCollector, ""},
		{"a logs endpoint of the user's", `{"env": {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://otel.example/v1/logs"}}`, false, "", ErrOtherCollector, ""},
		{"forced", `{"env": {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://otel.example/v1/logs"}}`, true, `/agents-notch/otlp/v1/logs`, nil, "{}"},
		{"ours on another port", `{"env": {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://127.0.0.1:9/agents-notch/otlp/v1/logs"}}`, false, `7340/agents-notch/otlp/v1/logs`, nil, "{}"},
		{"env not an object", `{"env": []}`, false, "", ErrSyntax, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := setClaudeOtel([]byte(c.src), otelBase, c.force)
			if !errors.Is(err, c.err) {
				t.Fatalf("err %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			if !strings.Contains(string(out), c.want) {
				t.Fatalf("got\n%s\nwant it to hold %s", out, c.want)
			}
			again, err := setClaudeOtel(out, otelBase, c.force)
			if err != nil || string(again) != string(out) {
				t.Errorf("a second install changed the file (%v):\n%s", err, again)
			}
			back, err := removeClaudeOtel(out)
			want := c.back
			if want == "" {
				want = c.src
			}
			if err != nil || strings.TrimSpace(string(back)) != strings.TrimSpace(want) {
				t.Errorf("uninstall gave\n%s\nwant\n%s", back, want)
			}
		})
	}
}

func TestGeminiOtel(t *testing.T) {
	cases := []struct {
		name, src string
		force     bool
		err       error
		back      string
	}{
		{"auth kept", "{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}\n}\n", false, nil, ""},
		{"the user's endpoint", `{"telemetry": {"enabled": true, "otlpEndpoint": "http://collector:4317"}}`, false, ErrOtherCollector, ""},
		{"the user's outfile", `{"telemetry": {"enabled": true, "outfile": "/tmp/t.log"}}`, false, ErrOtherCollector, ""},
		{"gcp", `{"telemetry": {"target": "gcp"}}`, false, ErrOtherCollector, ""},
		{"forced", `{"telemetry": {"enabled": true, "otlpEndpoint": "http://collector:4317", "useCollector": false}}`, true, nil, `{"telemetry": {"useCollector": false}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := setGeminiOtel([]byte(c.src), otelBase, c.force)
			if !errors.Is(err, c.err) {
				t.Fatalf("err %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			for _, want := range []string{`"otlpEndpoint": "http://127.0.0.1:7340/agents-notch/otlp"`, `"otlpProtocol": "http"`, `"logPrompts": false`, `"enabled": true`} {
				if !strings.Contains(string(out), want) {
					t.Fatalf("got\n%s\nwant %s", out, want)
				}
			}
			back, err := removeGeminiOtel(out)
			want := c.back
			if want == "" {
				want = c.src
			}
			if err != nil || strings.Join(strings.Fields(string(back)), "") != strings.Join(strings.Fields(want), "") {
				t.Errorf("uninstall gave\n%s\nwant\n%s", back, want)
			}
		})
	}
}

func TestCodexOtel(t *testing.T) {
	line := codexOtelLine(otelBase)
	cases := []struct {
		name, src string
		force     bool
		want      string
		err       error
		back      string
	}{
		{"no otel", "model = \"o3\"\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n", false,
			"model = \"o3\"\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n\n[otel]\n" + line + "\n", nil, "model = \"o3\"\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n\n"},
		{"otel without exporter", "[otel]\nlog_user_prompt = false\n", false, "[otel]\n" + line + "\nlog_user_prompt = false\n", nil, ""},
		{"the user's exporter", "[otel]\nexporter = { otlp-http = { endpoint = \"https://otel.example/v1/logs\", protocol = \"binary\" } }\n", false, "", ErrOtherCollector, ""},
		{"forced", "[otel]\nexporter = \"none\"\n", true, "[otel]\n" + line + "\n", nil, "\n"},
		{"a sub-table", "[otel.exporter.otlp-http]\nendpoint = \"x\"\n", false, "", ErrTOMLLayout, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := setCodexOtel(c.src, otelBase, c.force)
			if !errors.Is(err, c.err) {
				t.Fatalf("err %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			if out != c.want {
				t.Fatalf("got\n%q\nwant\n%q", out, c.want)
			}
			if again, _ := setCodexOtel(out, otelBase, false); again != out || !codexOtelInstalled(out) {
				t.Errorf("a second install changed it, or status does not see it:\n%s", again)
			}
			back, err := removeCodexOtel(out)
			want := c.back
			if want == "" {
				want = c.src
			}
			if err != nil || strings.TrimSpace(back) != strings.TrimSpace(want) {
				t.Errorf("uninstall gave %q, want %q", back, want)
			}
		})
	}
}

// Install with --otel over real files: the settings keep their mode, a
// backup is written, uninstall takes out what was put in; a Codex whose
// [otel] exporter is the user's is refused before anything is written, in
// one line that names it.
func TestInstallOtelFiles(t *testing.T) {
	t.Run("claude-code", func(t *testing.T) {
		o := opts(t, ClaudeCode)
		o.Otel, o.OtelURL = true, base
		path := filepath.Join(o.Home, ".claude", "settings.json")
		user := "{\n  \"env\": {\"FOO\": \"1\"}\n}\n"
		write(t, path, user)
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		res, err := Install(o)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || res.Changes[0].Backup == "" {
			t.Errorf("mode %v, backup %q: want 0600 kept and a backup", fi.Mode().Perm(), res.Changes[0].Backup)
		}
		got := read(t, path)
		if !strings.Contains(got, `"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://127.0.0.1:7340/agents-notch/otlp/v1/logs"`) || !strings.Contains(got, `"FOO": "1"`) {
			t.Fatalf("settings:\n%s", got)
		}
		st, _ := Status(o)
		if !strings.Contains(strings.Join(st[0].Notes, " "), "OpenTelemetry → notch-web") {
			t.Errorf("status notes %q do not say where the telemetry goes", st[0].Notes)
		}
		o.Otel = false
		if _, err := Uninstall(o); err != nil {
			t.Fatal(err)
		}
		if got := read(t, path); strings.Contains(got, "OTEL") || !strings.Contains(got, `"FOO": "1"`) {
			t.Errorf("after uninstall:\n%s", got)
		}
	})
	t.Run("codex refused", func(t *testing.T) {
		o := opts(t, Codex)
		o.Otel, o.OtelURL = true, base
		cfg := filepath.Join(o.Home, ".codex", "config.toml")
		user := "[otel]\nexporter = { otlp-http = { endpoint = \"https://otel.example/v1/logs\", protocol = \"json\" } }\n"
		write(t, cfg, user)
		_, err := Install(o)
		if !errors.Is(err, ErrOtherCollector) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "https://otel.example/v1/logs") || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("err %v: want one line naming the user's exporter and --force", err)
		}
		if _, err := os.Stat(filepath.Join(o.Home, ".codex", "hooks.json")); !errors.Is(err, os.ErrNotExist) || read(t, cfg) != user {
			t.Error("a refused install wrote something")
		}
		o.Force = true
		if _, err := Install(o); err != nil {
			t.Fatal(err)
		}
		if got := read(t, cfg); !strings.Contains(got, "/agents-notch/otlp/v1/logs") {
			t.Errorf("forced:\n%s", got)
		}
		o.Otel, o.Force = false, false
		if _, err := Uninstall(o); err != nil {
			t.Fatal(err)
		}
		if got := read(t, cfg); strings.Contains(got, "agents-notch") {
			t.Errorf("after uninstall:\n%s", got)
		}
	})
	t.Run("opencode has none", func(t *testing.T) {
		o := opts(t, "opencode")
		o.Otel, o.OtelURL = true, base
		if _, err := Install(o); !errors.Is(err, ErrUsage) {
			t.Errorf("err %v, want a usage error", err)
		}
	})
}
