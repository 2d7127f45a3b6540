package opencode

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginSource: the plugin starts with the marker and holds the
// executable and URL as JavaScript strings, whatever they contain.
func TestPluginSource(t *testing.T) {
	exe := "/opt/it's \"odd\"/\u2028notch-web"
	src := Plugin(exe, "http://127.0.0.1:7340")
	if !bytes.HasPrefix(src, []byte(Marker+"\n")) {
		t.Fatal("the plugin does not start with its marker")
	}
	for _, want := range []string{`const EXE = "/opt/it's \"odd\"/\u2028notch-web"`, `const URL_FLAG = "http://127.0.0.1:7340"`} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the plugin lacks %s", want)
		}
	}
	if bytes.Contains(src, []byte("__EXE__")) || bytes.Contains(src, []byte("__URL__")) {
		t.Error("a placeholder is left")
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
	if err := os.WriteFile(path, Plugin("/usr/bin/notch-web", ""), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
		t.Errorf("node --check: %v\n%s", err, strings.TrimSpace(string(out)))
	}
}
