package ocplugin

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginSource: the plugin starts with its agent's marker and holds
// the agent's name, the executable and the URL as JavaScript strings,
// whatever they contain.
func TestPluginSource(t *testing.T) {
	exe := "/opt/it's \"odd\"/\u2028notch-web"
	for _, a := range []struct{ name, display string }{{"opencode", "OpenCode"}, {"kilo", "Kilo Code CLI"}} {
		src := Plugin(a.name, a.display, exe, "http://127.0.0.1:7340")
		if !bytes.HasPrefix(src, []byte(Marker(a.name, a.display)+"\n")) {
			t.Fatalf("%s: the plugin does not start with its marker", a.name)
		}
		for _, want := range []string{`const EXE = "/opt/it's \"odd\"/\u2028notch-web"`, `const URL_FLAG = "http://127.0.0.1:7340"`,
			`const AGENT = "` + a.name + `"`, `/agents-notch/hooks/` + a.name} {
			if !bytes.Contains(src, []byte(want)) {
				t.Errorf("%s: the plugin lacks %s", a.name, want)
			}
		}
		if bytes.Contains(src, []byte("__")) {
			t.Errorf("%s: a placeholder is left", a.name)
		}
	}
	// The marker of the plugin an older notch-web wrote for OpenCode.
	if got, want := Marker("opencode", "OpenCode"), `// notch-web: this OpenCode plugin is notch-web's ("notch-web hooks uninstall opencode" removes it; an install rewrites it).`; got != want {
		t.Errorf("OpenCode's marker is %q, want %q", got, want)
	}
}

// TestPluginParses: the plugin is a JavaScript module node accepts (the
// syntax OpenCode's Bun runs); skipped where node is not installed.
func TestPluginParses(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	path := filepath.Join(t.TempDir(), "notch-web.mjs")
	if err := os.WriteFile(path, Plugin("kilo", "Kilo Code CLI", "/usr/bin/notch-web", ""), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
		t.Errorf("node --check: %v\n%s", err, strings.TrimSpace(string(out)))
	}
}
