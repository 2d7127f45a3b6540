package install

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/gemini"
)

const base = "http://127.0.0.1:7340"

// opts are Options for agent over a temp home and project, with a fixed
// clock so that backup names are known.
func opts(t *testing.T, agent string) Options {
	t.Helper()
	return Options{
		Agent: agent, Home: t.TempDir(), Dir: t.TempDir(), URL: base, Exe: "/opt/notch web/bin/notch-web",
		Now: func() time.Time { return time.UnixMilli(1_790_000_000_000) },
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustInstall(t *testing.T, o Options) Result {
	t.Helper()
	res, err := Install(o)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	return res
}

func mustUninstall(t *testing.T, o Options) Result {
	t.Helper()
	res, err := Uninstall(o)
	if err != nil {
		t.Fatalf("Uninstall: %v", err)
	}
	return res
}

// userSettings is a Claude Code settings file as a user keeps it: four
// spaces, keys in their own order, their own hooks (one of them in an event
// notch-web also uses), permissions and env.
const userSettings = `{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(go test:*)", "Read(~/src/**)"],
        "deny": []
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "~/bin/guard.sh", "timeout": 10}
                ]
            }
        ],
        "PreCompact": [
            {"hooks": [{"type": "command", "command": "say compacting"}]}
        ]
    },
    "env": {"FOO": "bar & baz"},
    "statusLine": {"type": "command", "command": "~/bin/status"}
}
`

func TestInstallClaudeCode(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	write(t, path, userSettings)

	res := mustInstall(t, o)
	if len(res.Changes) != 1 || !res.Changes[0].Changed || res.Changes[0].Path != path {
		t.Fatalf("changes %+v", res.Changes)
	}
	got := read(t, path)
	// Every event notch-web maps has its http hook, once.
	for _, e := range claudecode.Events {
		d, _ := newDoc([]byte(got))
		hooks, _ := hooksObject(d)
		n := 0
		for _, x := range claudeFormat(base, claudeCmd).find(hooks) {
			if x.event == e {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s has %d of our hooks, want 1", e, n)
		}
	}
	if !strings.Contains(got, `"url": "http://127.0.0.1:7340/agents-notch/hooks/claude-code"`) ||
		!strings.Contains(got, `"matcher": "permission_prompt"`) {
		t.Errorf("no http hook or matcher in\n%s", got)
	}
	// The user's lines are all still there, in order, byte for byte: the
	// change only adds lines (and a comma).
	var kept []string
	for _, l := range strings.Split(got, "\n") {
		kept = append(kept, strings.TrimSuffix(l, ","))
	}
	j := 0
	for _, l := range strings.Split(userSettings, "\n") {
		for j < len(kept) && kept[j] != strings.TrimSuffix(l, ",") {
			j++
		}
		if j == len(kept) {
			t.Fatalf("the user's line %q is gone or moved:\n%s", l, got)
		}
	}
	// The backup is the old file.
	backup := path + ".bak-1790000000000"
	if res.Changes[0].Backup != backup || read(t, backup) != userSettings {
		t.Errorf("backup %q", res.Changes[0].Backup)
	}
	// Four-space indentation, as the file had it.
	if !strings.Contains(got, "\n        \"SessionStart\": [\n            {\n                \"hooks\": [") {
		t.Errorf("not laid out as the file is:\n%s", got)
	}

	// A second install changes nothing and writes no backup.
	os.Remove(backup)
	res = mustInstall(t, o)
	if res.Changes[0].Changed || read(t, path) != got {
		t.Error("a second install changed the file")
	}
	if _, err := os.Stat(backup); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a second install wrote a backup")
	}

	// Uninstall gives the user's file back, byte for byte.
	res = mustUninstall(t, o)
	if !res.Changes[0].Changed || read(t, path) != userSettings {
		t.Errorf("uninstall left\n%s", read(t, path))
	}
	if res = mustUninstall(t, o); res.Changes[0].Changed {
		t.Error("a second uninstall changed the file")
	}
}

// TestRoundTrip: for settings files laid out in many ways, install then
// uninstall gives the file back byte for byte, and a second install is a
// no-op.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty object", "{}\n", ""},
		{"empty object, no newline", "{}", ""},
		// An empty "hooks" or event of the user's is not kept: after
		// uninstall nothing of ours, nor an empty shell, is left.
		{"one line", `{"model":"opus","hooks":{}}`, `{"model":"opus"}`},
		{"two spaces", "{\n  \"model\": \"opus\"\n}\n", ""},
		{"tabs", "{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"Stop\": [],\n\t\t\"PreCompact\": []\n\t}\n}\n",
			"{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"PreCompact\": []\n\t}\n}\n"},
		{"CRLF", "{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"Stop\": [\r\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}\r\n    ]\r\n  }\r\n}\r\n", ""},
		{"trailing comments", "{\n  \"model\": \"opus\" // the big one\n}\n", ""},
		{"comments inside hooks are kept", "{\n  \"hooks\": {\n    // nothing yet\n  }\n}\n", ""},
		{"comments inside an event are kept", "{\n  \"hooks\": {\n    \"Stop\": [\n      // later\n    ]\n  }\n}\n", ""},
		{"block comment after the last member", "{\n  \"a\": 1 /* one */\n}\n", ""},
		{"closing on the last line", "{\n  \"a\": 1}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := claudeFormat(base, claudeCmd)
			in, err := f.installHooks([]byte(tc.src))
			if err != nil {
				t.Fatalf("install: %v", err)
			}
			if _, err := parseJSONC(in); err != nil {
				t.Fatalf("installed text does not parse: %v\n%s", err, in)
			}
			if strings.Contains(tc.src, "\r\n") && strings.Count(string(in), "\n") != strings.Count(string(in), "\r\n") {
				t.Errorf("mixed line breaks:\n%q", in)
			}
			again, err := f.installHooks(in)
			if err != nil || string(again) != string(in) {
				t.Fatalf("a second install changed it (%v)", err)
			}
			out, err := f.uninstallHooks(in)
			if err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			want := tc.want
			if want == "" {
				want = tc.src
			}
			if string(out) != want {
				t.Errorf("round trip\n got %q\nwant %q\nvia %q", out, want, in)
			}
		})
	}
}

func TestInstallRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		err       error
	}{
		{"not JSON", "{\n  \"model\": \"opus\",\n}\n", ErrSyntax},
		{"truncated", `{"hooks": {"Stop": [`, ErrSyntax},
		{"not an object", `["hooks"]`, ErrUnsupported},
		{"hooks not an object", `{"hooks": []}`, ErrUnsupported},
		{"hooks twice", `{"hooks": {}, "hooks": {}}`, ErrUnsupported},
		{"an event not a list", `{"hooks": {"Stop": {"hooks": []}}}`, ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(t, ClaudeCode)
			path := filepath.Join(o.Home, ".claude", "settings.json")
			write(t, path, tc.src)
			before, _ := os.Stat(path)
			_, err := Install(o)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "left untouched") {
				t.Errorf("the error does not say which file and that it is untouched: %v", err)
			}
			after, _ := os.Stat(path)
			if read(t, path) != tc.src || !after.ModTime().Equal(before.ModTime()) {
				t.Error("the file was touched")
			}
			if m, _ := filepath.Glob(path + ".bak-*"); len(m) > 0 {
				t.Error("a refused file was backed up")
			}
		})
	}
}

func TestInstallDryRun(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	write(t, path, userSettings)
	o.DryRun = true
	res := mustInstall(t, o)
	ch := res.Changes[0]
	if !ch.Changed || ch.Backup != "" || read(t, path) != userSettings {
		t.Fatalf("a dry run wrote: %+v", ch)
	}
	if !strings.HasPrefix(ch.Diff, "--- "+path+"\n+++ "+path+"\n@@ ") ||
		!strings.Contains(ch.Diff, "\n+                        \"url\": \"http://127.0.0.1:7340/agents-notch/hooks/claude-code\",\n") {
		t.Errorf("diff:\n%s", ch.Diff)
	}
	// A dry run on a missing file says it would create it.
	o2 := opts(t, ClaudeCode)
	o2.DryRun = true
	res = mustInstall(t, o2)
	if ch := res.Changes[0]; !ch.Created || !ch.Changed || !strings.Contains(ch.Diff, "@@ -0,0 +1,") {
		t.Errorf("%+v", ch)
	}
	if _, err := os.Stat(filepath.Join(o2.Home, ".claude")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a dry run created the directory")
	}
}

// TestInstallNewURL: installing with another URL replaces our hooks (one
// per event) and leaves the user's alone; uninstall finds ours on any URL.
func TestInstallNewURL(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	write(t, path, userSettings)
	mustInstall(t, o)
	o.URL = "http://127.0.0.1:9999/"
	mustInstall(t, o)
	got := read(t, path)
	// Every event's http hook, and SessionStart's command hook, on the new URL.
	if strings.Contains(got, ":7340") || strings.Count(got, "127.0.0.1:9999/agents-notch/hooks/claude-code") != len(claudecode.Events)-1 ||
		!strings.Contains(got, `"command": "'/opt/notch web/bin/notch-web' hook claude-code --url http://127.0.0.1:9999"`) {
		t.Errorf("not replaced:\n%s", got)
	}
	o.URL = base
	mustUninstall(t, o)
	if read(t, path) != userSettings {
		t.Errorf("uninstall left\n%s", read(t, path))
	}
}

// TestUninstallOnlyOurs: a user who put their own hook next to ours keeps
// it, and keeps a command hook that merely mentions notch-web.
func TestUninstallOnlyOurs(t *testing.T) {
	src := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "http", "url": "http://127.0.0.1:7340/agents-notch/hooks/claude-code", "timeout": 2},
          {"type": "command", "command": "notify-send done"}
        ]
      },
      {"matcher": "", "hooks": [{"type": "command", "command": "echo notch-web is great"}]}
    ],
    "SessionEnd": [
      {"hooks": [{"type": "command", "command": "/usr/local/bin/notch-web hook claude-code"}]}
    ]
  }
}
`
	out, err := claudeFormat(base, claudeCmd).uninstallHooks([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "notify-send done"}
        ]
      },
      {"matcher": "", "hooks": [{"type": "command", "command": "echo notch-web is great"}]}
    ]
  }
}
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestInstallKeepsModeAndSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes and symlinks")
	}
	o := opts(t, ClaudeCode)
	dotfiles := filepath.Join(o.Home, "dotfiles", "claude-settings.json")
	write(t, dotfiles, "{\n  \"model\": \"opus\"\n}\n")
	os.Chmod(dotfiles, 0o600)
	link := filepath.Join(o.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Fatal(err)
	}
	res := mustInstall(t, o)
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if !strings.Contains(read(t, dotfiles), "agents-notch/hooks/claude-code") {
		t.Error("the link's target was not updated")
	}
	if fi, _ := os.Stat(dotfiles); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(res.Changes[0].Backup); fi == nil || fi.Mode().Perm() != 0o600 || filepath.Dir(res.Changes[0].Backup) != filepath.Dir(dotfiles) {
		t.Errorf("backup %q should sit by the real file, 0600", res.Changes[0].Backup)
	}
}

func TestSettingsPaths(t *testing.T) {
	o := opts(t, ClaudeCode)
	for _, tc := range []struct {
		agent, scope, env, want string
	}{
		{ClaudeCode, "", "", filepath.Join(o.Home, ".claude", "settings.json")},
		{ClaudeCode, ScopeProject, "", filepath.Join(o.Dir, ".claude", "settings.json")},
		{ClaudeCode, ScopeLocal, "", filepath.Join(o.Dir, ".claude", "settings.local.json")},
		{ClaudeCode, ScopeUser, "/etc/claude", filepath.Join("/etc/claude", "settings.json")},
		{Gemini, ScopeUser, "", filepath.Join(o.Home, ".gemini", "settings.json")},
		{Gemini, ScopeProject, "", filepath.Join(o.Dir, ".gemini", "settings.json")},
		{Codex, ScopeUser, "", filepath.Join(o.Home, ".codex", "hooks.json")},
		{Codex, ScopeUser, "/srv/codex", filepath.Join("/srv/codex", "hooks.json")},
	} {
		o := o
		o.Agent, o.Scope = tc.agent, tc.scope
		o.Getenv = func(k string) string {
			if k == "CLAUDE_CONFIG_DIR" || k == "CODEX_HOME" {
				return tc.env
			}
			return ""
		}
		if runtime.GOOS == "windows" && tc.env != "" {
			continue
		}
		got, err := o.settingsPath(o.scope())
		if err != nil || got != tc.want {
			t.Errorf("%s %s: %q, %v; want %q", tc.agent, tc.scope, got, err, tc.want)
		}
	}
	for _, bad := range []Options{
		{Agent: "cursor", Home: "/h"},
		{Agent: Codex, Scope: ScopeProject, Home: "/h", Dir: "/d"},
		{Agent: Gemini, Scope: ScopeLocal, Home: "/h", Dir: "/d"},
		{Agent: ClaudeCode, Home: ""},
	} {
		if _, err := Install(bad); !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: %v, want ErrUsage", bad, err)
		}
	}
}

// geminiSettings is a Gemini CLI settings file with comments (which its
// reader allows) and keys of its own inside "hooks".
const geminiSettings = `// Gemini CLI settings
{
  "theme": "GitHub", // light in the day
  /* hooks */
  "hooksConfig": {"enabled": false},
  "hooks": {
    "disabled": ["secret-scanner"],
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [{"name": "secret-scanner", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh"}]
      }
    ]
  }
}
`

func TestInstallGemini(t *testing.T) {
	skipOnWindows(t)
	o := opts(t, Gemini)
	o.Scope = ScopeProject
	path := filepath.Join(o.Dir, ".gemini", "settings.json")
	write(t, path, geminiSettings)
	res := mustInstall(t, o)
	got := read(t, path)
	for _, want := range []string{
		"// Gemini CLI settings\n", `"theme": "GitHub", // light in the day`, "/* hooks */",
		`"name": "notch-web"`, `"command": "'/opt/notch web/bin/notch-web' hook gemini --url http://127.0.0.1:7340"`,
		`"timeout": 3000`, `"matcher": "ToolPermission"`, `"disabled": ["secret-scanner"]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	if n := strings.Count(got, `"name": "notch-web"`); n != len(gemini.Events) {
		t.Errorf("%d hooks, want %d", n, len(gemini.Events))
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "hooksConfig.enabled") {
		t.Errorf("notes %q", res.Notes)
	}
	if mustInstall(t, o).Changes[0].Changed {
		t.Error("a second install changed the file")
	}
	mustUninstall(t, o)
	if read(t, path) != geminiSettings {
		t.Errorf("uninstall left\n%s", read(t, path))
	}
}

// codexConfig is a Codex config.toml with comments, a multi-line array and
// tables.
const codexConfig = `# Codex settings
model = "gpt-5-codex"   # the default
approval_policy = "on-request"
trusted = [
  "~/src",   # mine
  "~/work",
]

# Servers below
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[features]
web_search_request = true
`

func TestInstallCodex(t *testing.T) {
	skipOnWindows(t)
	o := opts(t, Codex)
	o.URL = ""
	config := filepath.Join(o.Home, ".codex", "config.toml")
	hooksJSON := filepath.Join(o.Home, ".codex", "hooks.json")
	write(t, config, codexConfig)

	res := mustInstall(t, o)
	if len(res.Changes) != 2 || !res.Changes[0].Created || !res.Changes[1].Changed || len(res.Notes) != 1 ||
		!strings.HasPrefix(res.Notes[0], CodexTrustNote) {
		t.Fatalf("changes %+v notes %q", res.Changes, res.Notes)
	}
	want := strings.Replace(codexConfig, "  \"~/work\",\n]\n", "  \"~/work\",\n]\nnotify = [\"/opt/notch web/bin/notch-web\", \"hook\", \"codex\"]\n", 1)
	if got := read(t, config); got != want {
		t.Errorf("config.toml\n%s\nwant\n%s", got, want)
	}
	hj := read(t, hooksJSON)
	if n := strings.Count(hj, `"command": "'/opt/notch web/bin/notch-web' hook codex"`); n != 10 || !strings.Contains(hj, `"SubagentStart"`) || !strings.Contains(hj, `"SubagentStop"`) || !strings.Contains(hj, `"Interrupt"`) || !strings.Contains(hj, `"SessionEnd"`) || !strings.Contains(hj, `"timeout": 5`) {
		t.Errorf("hooks.json:\n%s", hj)
	}
	for _, ch := range mustInstall(t, o).Changes {
		if ch.Changed {
			t.Errorf("a second install changed %s", ch.Path)
		}
	}
	// A new path replaces our notify line in place.
	o.Exe = "/usr/bin/notch-web"
	mustInstall(t, o)
	if got := read(t, config); !strings.Contains(got, "]\nnotify = [\"/usr/bin/notch-web\", \"hook\", \"codex\"]\n\n# Servers below") {
		t.Errorf("not replaced in place:\n%s", got)
	}
	mustUninstall(t, o)
	if got := read(t, config); got != codexConfig {
		t.Errorf("uninstall left\n%s", got)
	}
	if got := read(t, hooksJSON); got != "{}\n" {
		t.Errorf("hooks.json left %q", got)
	}
}

func TestInstallCodexLeavesConfig(t *testing.T) {
	for _, tc := range []struct {
		name, config, note string
	}{
		{"someone else's notify", "notify = [\"python3\", \"/home/me/notify.py\"]\n", "notify already runs python3 /home/me/notify.py"},
		{"a multi-line notify", "notify = [\n  \"/opt/notch-web\", \"hook\", \"codex\",\n]\n", "not a one-line list of strings"},
		{"an unterminated string", "model = \"gpt-5\n[features]\n", "ends inside a string"},
		{"an unclosed array", "trusted = [\"a\",\n", "ends inside a string or a bracket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(t, Codex)
			config := filepath.Join(o.Home, ".codex", "config.toml")
			write(t, config, tc.config)
			res := mustInstall(t, o)
			if read(t, config) != tc.config {
				t.Error("config.toml was touched")
			}
			if len(res.Changes) != 1 || len(res.Notes) != 2 || !strings.Contains(res.Notes[0], tc.note) || !strings.HasPrefix(res.Notes[1], CodexTrustNote) ||
				!strings.Contains(res.Notes[0], `notify = ["/opt/notch web/bin/notch-web", "hook", "codex", "--url", "http://127.0.0.1:7340"]`) {
				t.Errorf("changes %+v notes %q", res.Changes, res.Notes)
			}
			mustUninstall(t, o)
			if read(t, config) != tc.config {
				t.Error("uninstall touched config.toml")
			}
		})
	}
}

func TestSetNotify(t *testing.T) {
	argv := []string{`C:\Program Files\notch-web.exe`, "hook", "codex"}
	line := `notify = ["C:\\Program Files\\notch-web.exe", "hook", "codex"]`
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", line + "\n"},
		{"only a table", "[features]\nhooks = true\n", line + "\n[features]\nhooks = true\n"},
		{"comments first", "# mine\n\n[a]\nx = 1\n", line + "\n# mine\n\n[a]\nx = 1\n"},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n" + line},
		{"CRLF", "model = \"o3\"\r\n[a]\r\n", "model = \"o3\"\r\n" + line + "\r\n[a]\r\n"},
		{"a multi-line string", "instructions = \"\"\"\n[not a table]\n\"\"\"\n[a]\n", "instructions = \"\"\"\n[not a table]\n\"\"\"\n" + line + "\n[a]\n"},
		{"already there", line + " # ours\n", line + " # ours\n"},
		{"ours, older", "notify = ['/old/notch-web', 'hook', 'codex'] # ours\n", line + " # ours\n"},
		{"a table's notify is not Codex's", "[profiles.x]\nnotify = [\"a\"]\n", line + "\n[profiles.x]\nnotify = [\"a\"]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setNotify(tc.src, argv)
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tc.want)
			}
			if back, _ := removeNotify(got); tc.name != "already there" && tc.name != "ours, older" && back != tc.src {
				t.Errorf("remove gives %q, want %q", back, tc.src)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	o := opts(t, ClaudeCode)
	mustInstall(t, o)
	write(t, filepath.Join(o.Dir, ".claude", "settings.local.json"), "{ not json")
	got, err := Status(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d scopes", len(got))
	}
	user, project, local := got[0], got[1], got[2]
	if !user.Exists || len(user.Missing) != 0 || !slices.Equal(user.Events, claudecode.Events) ||
		!slices.Equal(user.Targets, []string{claudeCmd, base + "/agents-notch/hooks/claude-code"}) {
		t.Errorf("user %+v", user)
	}
	if project.Exists || len(project.Events) != 0 || len(project.Missing) != len(claudecode.Events) {
		t.Errorf("project %+v", project)
	}
	if !local.Exists || !strings.Contains(local.Problem, "not valid JSON") {
		t.Errorf("local %+v", local)
	}

	oc := opts(t, Codex)
	write(t, filepath.Join(oc.Home, ".codex", "config.toml"), "notify = [\"python3\", \"n.py\"]\n[features]\nhooks = false\n")
	got, err = Status(oc)
	if err != nil || len(got) != 2 {
		t.Fatalf("%+v %v", got, err)
	}
	if notes := strings.Join(got[1].Notes, "; "); !strings.Contains(notes, "another program: python3 n.py") || !strings.Contains(notes, "[features] hooks = false") {
		t.Errorf("config.toml notes %q", notes)
	}
}

// claudeCmd is the SessionStart command hook opts' install writes.
var claudeCmd = hookCommand("/opt/notch web/bin/notch-web", ClaudeCode, base)
