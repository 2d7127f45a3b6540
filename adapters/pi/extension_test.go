package pi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtensionSource: the extension starts with the marker and holds the
// executable and URL as JavaScript strings, whatever they contain.
func TestExtensionSource(t *testing.T) {
	src := Extension("/opt/it's \"odd\"/\u2028notch-web", "http://127.0.0.1:7340")
	if !bytes.HasPrefix(src, []byte(Marker+"\n")) {
		t.Fatal("the extension does not start with its marker")
	}
	for _, want := range []string{`const EXE = "/opt/it's \"odd\"/\u2028notch-web"`, `const URL_FLAG = "http://127.0.0.1:7340"`, `"/agents-notch/hooks/" + AGENT`, `const AGENT = "pi"`} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the extension lacks %s", want)
		}
	}
	if bytes.Contains(src, []byte("__EXE__")) || bytes.Contains(src, []byte("__URL__")) {
		t.Error("a placeholder is left")
	}
	for _, e := range Events {
		if !bytes.Contains(src, []byte(`"`+e+`"`)) {
			t.Errorf("the extension sends no %s", e)
		}
	}
}

// TestExtensionParses: the extension is a JavaScript module node accepts
// (Pi loads it with jiti, TypeScript whose every line here is also
// JavaScript); skipped where node is not installed.
func TestExtensionParses(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	path := filepath.Join(t.TempDir(), "notch-web.mjs")
	if err := os.WriteFile(path, Extension("/usr/bin/notch-web", ""), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
		t.Errorf("node --check: %v\n%s", err, strings.TrimSpace(string(out)))
	}
}
