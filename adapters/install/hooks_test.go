package install

import (
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"testing"
)

// skipOnWindows skips a test whose expectations are POSIX shell quoting.
func skipOnWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("command hooks are quoted for cmd.exe there")
	}
}

func TestOurCommand(t *testing.T) {
	skipOnWindows(t)
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"/usr/local/bin/notch-web hook codex", true},
		{"'/opt/notch web/bin/notch-web' hook codex --url http://127.0.0.1:7340", true},
		{`"/opt/notch web/notch-web" hook codex`, true},
		{`/opt/notch\ web/notch-web hook codex`, true},
		{"/usr/local/bin/notch-web hook codex --url http://127.0.0.1:7341 --verbose", true},
		{"notch-web.exe hook codex", true},
		{"notch-web hook gemini", false}, // another agent's
		{"notch-web hooks install codex", false},
		{"echo notch-web hook codex", false},
		// Issue 19: a program whose name merely contains notch-web, or
		// "hook codex" somewhere among its words, is the user's.
		{"notch-web-linux-amd64 hook codex", false},
		{"/home/me/bin/my-notch-web-wrapper hook codex", false},
		{"/home/me/bin/notch-web-audit --log hook codex", false},
		{"notch-web --log /tmp/x hook codex", false},
		{"notch-web hook codex && ~/bin/mine", false},
		{"notch-web hook codex; rm -rf ~/x", false},
		{"notch-web hook codex --url", false},
		{"notch-web hook codex extra", false},
		{"notch-web hook codex --wait 10s", true},
		{"notch-web hook codex --wait", false},
		{"notch-webx hook codex", false},
		{"/usr/bin/python3 ~/notify.py", false},
		{"", false},
	} {
		if got := ourCommand(tc.cmd, Codex); got != tc.want {
			t.Errorf("ourCommand(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	skipOnWindows(t)
	for in, want := range map[string]string{
		"/usr/local/bin/notch-web": "/usr/local/bin/notch-web",
		"/opt/notch web/notch-web": "'/opt/notch web/notch-web'",
		"/tmp/it's/notch-web":      `'/tmp/it'\''s/notch-web'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
		if f := shellFields(shellQuote(in) + " hook codex"); len(f) != 3 || f[0] != in {
			t.Errorf("shellFields does not read back %q: %q", in, f)
		}
	}
}

// FuzzInstallHooks: a settings file is outside input. Install either
// refuses it (ErrSyntax, ErrUnsupported) or returns a file that parses,
// keeps every other top-level key's value, holds exactly our hooks, and is
// left alone by a second install; uninstall then leaves none of ours and is
// left alone by a second uninstall.
func FuzzInstallHooks(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		userSettings,
		geminiSettings,
		`{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"http://h:1/agents-notch/hooks/claude-code"}]},{"matcher":"x"}]}}`,
		"{\n\t\"a\": [1,\n\t2], // c\n\t\"hooks\": {\"Stop\": [ /* x */ ]}}",
		"{\"hooks\":{\"Notification\":[{\"matcher\":\"permission_prompt\",\"hooks\":[1,{\"type\":\"command\",\"command\":\"notch-web hook claude-code\"}]}]}}\r\n",
		`[]`, `{"hooks":[]}`, `{"hooks":{"Stop":{}}}`, `{"a":1,}`,
	} {
		f.Add([]byte(seed))
	}
	format := claudeFormat(base, claudeCmd)
	f.Fuzz(func(t *testing.T, src []byte) {
		in, err := format.installHooks(src)
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("install: %v", err)
			}
			return
		}
		d, err := newDoc(in)
		if err != nil {
			t.Fatalf("installed text does not parse: %v\n%s", err, in)
		}
		hooks, _ := hooksObject(d)
		if !format.installed(hooks) {
			t.Fatalf("not installed:\n%s", in)
		}
		if len(trimSpace(src)) > 0 {
			before, _ := newDoc(src)
			for _, m := range before.root.members {
				if m.key != "hooks" && !reflect.DeepEqual(before.root.get(m.key).value(), d.root.get(m.key).value()) {
					t.Fatalf("%q changed", m.key)
				}
			}
		}
		if again, err := format.installHooks(in); err != nil || string(again) != string(in) {
			t.Fatalf("a second install changed it (%v)", err)
		}
		out, err := format.uninstallHooks(in)
		if err != nil {
			t.Fatalf("uninstall: %v", err)
		}
		d, err = newDoc(out)
		if err != nil {
			t.Fatalf("uninstalled text does not parse: %v\n%s", err, out)
		}
		if hooks, _ := hooksObject(d); len(format.find(hooks)) != 0 {
			t.Fatalf("ours left:\n%s", out)
		}
		if again, err := format.uninstallHooks(out); err != nil || string(again) != string(out) {
			t.Fatalf("a second uninstall changed it (%v)", err)
		}
	})
}

// TestOursHTTP: an http hook is ours when its URL's path is exactly our
// endpoint (any host, any port), nothing else.
func TestOursHTTP(t *testing.T) {
	ours := oursFor(ClaudeCode)
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:7340/agents-notch/hooks/claude-code", true},
		{"http://build-box:9000/agents-notch/hooks/claude-code/", true},
		{"https://notch.example/agents-notch/hooks/claude-code", true},
		{"http://127.0.0.1:7340/mine/agents-notch/hooks/claude-code", false},
		{"http://127.0.0.1:7340/log?next=/agents-notch/hooks/claude-code", false},
		{"http://127.0.0.1:7340/x#/agents-notch/hooks/claude-code", false},
		{"http://127.0.0.1:7340/agents-notch/hooks/claude-code?tee=1", false},
		{"ftp://h/agents-notch/hooks/claude-code", false},
		{"/agents-notch/hooks/claude-code", false},
		{"http://127.0.0.1:7340/agents-notch/hooks/codex", false},
	} {
		d, err := newDoc([]byte(`{"type": "http", "url": ` + strconv.Quote(tc.url) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := ours(d.root); got != tc.want {
			t.Errorf("%s: ours = %v, want %v", tc.url, got, tc.want)
		}
	}
}

// TestUninstallKeepsLookalikes: a user's hook that looks like ours but is
// not (issue 19) survives install and uninstall.
func TestUninstallKeepsLookalikes(t *testing.T) {
	skipOnWindows(t)
	src := `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "/home/me/bin/my-notch-web-wrapper --log hook codex"}]},
      {"hooks": [{"type": "command", "command": "notch-web hook codex && ~/bin/mine"}]}
    ]
  }
}
`
	f := codexFormat(hookCommand("/usr/local/bin/notch-web", Codex, ""))
	in, err := f.installHooks([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.uninstallHooks(in)
	if err != nil || string(out) != src {
		t.Errorf("round trip lost the user's hooks (%v):\n%s", err, out)
	}
}

// FuzzOurCommand: a command hook's command is outside input. Whatever the
// folder notch-web lives in and the URL it was given, the command Install
// writes is recognised as ours (so a second install replaces it and
// uninstall removes it); and a command recognised as ours runs notch-web's
// hook for that agent and nothing else.
func FuzzOurCommand(f *testing.F) {
	for _, seed := range [][2]string{
		{"/usr/local/bin", ""},
		{"/opt/notch web/bin", "http://127.0.0.1:7340"},
		{"/tmp/it's", "http://h:1/?a=1&b=$x"},
		{"/home/me/$(rm -rf ~)", "`id`"},
		{"/a;b|c", "x\ny"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, dir, url string) {
		if runtime.GOOS == "windows" {
			t.Skip()
		}
		cmd := hookCommand(dir+"/notch-web", Codex, url)
		if !ourCommand(cmd, Codex) {
			t.Fatalf("our own command is not ours: %q", cmd)
		}
		if ourCommand(cmd, Gemini) {
			t.Fatalf("codex's command taken for gemini's: %q", cmd)
		}
		words, plain := shellWords(cmd)
		if !plain || words[0] != dir+"/notch-web" || (url != "" && words[len(words)-1] != url) {
			t.Fatalf("%q reads back as %q (plain %v)", cmd, words, plain)
		}
		// Anything after it makes it the user's.
		if ourCommand(cmd+" && echo x", Codex) || ourCommand(cmd+"; x", Codex) || ourCommand(cmd+" extra", Codex) {
			t.Fatalf("a longer command taken for ours: %q", cmd)
		}
	})
}
