package settings

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// warningFor returns the message of the first warning about key ("" when
// none) in file.
func warningFor(v View, file, key string) string {
	for _, w := range v.Warnings {
		if w.File == file && w.Key == key {
			return w.Message
		}
	}
	return ""
}

// The mistakes a user makes with the row are said, in warnings (and so in
// the pane and the log), not silently absorbed.
func TestRowMistakesAreWarned(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, yaml, key, want string
	}{
		{"a value clamped into range", "- id: agents-notch\n  config:\n    scale: 9\n    holdMs: 10\n", "scale", "9 → 2"},
		{"a small one too", "- id: agents-notch\n  config:\n    holdMs: 10\n", "holdMs", "10 → 500"},
		{"an unknown key under context", "- id: agents-notch\n  config:\n    context: {budget: 1000, hotat: 0.7}\n", "context.hotat", "unknown"},
		{"no entry for the row id", "- id: agent-notch\n  config: {scale: 1.5}\n- id: other-row\n", "", `no entry for row "agents-notch"; the file has: agent-notch, other-row`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			patch := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yml")
			writeFile(t, patch, tc.yaml)
			v := NewService(Options{PatchPaths: []string{patch}, PanePath: filepath.Join(dir, "settings.json")}).View()
			if msg := warningFor(v, patch, tc.key); !strings.Contains(msg, tc.want) {
				t.Errorf("warning for %q = %q, want it to say %q (all: %+v)", tc.key, msg, tc.want, v.Warnings)
			}
		})
	}
	// The clamped value is still used: a warning is not a refusal.
	patch := filepath.Join(dir, "clamp.yml")
	writeFile(t, patch, "- id: agents-notch\n  config:\n    scale: 9\n")
	if v := NewService(Options{PatchPaths: []string{patch}, PanePath: filepath.Join(dir, "s.json")}).View(); v.Settings.Scale != 2 {
		t.Errorf("scale %v, want 2", v.Settings.Scale)
	}
}

// An explicit --patch that does not exist is warned about, and picked up
// when it appears; the default patch file missing is normal and silent.
func TestMissingExplicitPatch(t *testing.T) {
	dir := t.TempDir()
	patch := filepath.Join(dir, "later", "cordis.patch.yml")
	svc := NewService(Options{PatchPaths: []string{patch}, ExplicitPatches: true, PanePath: filepath.Join(dir, "settings.json")})
	if msg := warningFor(svc.View(), patch, ""); !strings.Contains(msg, "does not exist") {
		t.Fatalf("warnings %+v, want one saying the patch does not exist", svc.View().Warnings)
	}
	quiet := NewService(Options{PatchPaths: []string{patch}, PanePath: filepath.Join(dir, "s2.json")})
	if len(quiet.View().Warnings) != 0 {
		t.Errorf("the default patch file missing warned: %+v", quiet.View().Warnings)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go svc.Watch(ctx)
	writeFile(t, patch, "- id: agents-notch\n  config: {scale: 1.5}\n")
	deadline := time.Now().Add(10 * time.Second)
	for svc.View().Settings.Scale != 1.5 {
		if time.Now().After(deadline) {
			t.Fatal("the patch file that appeared was never read")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(svc.View().Warnings) != 0 {
		t.Errorf("warnings after it appeared: %+v", svc.View().Warnings)
	}
}
