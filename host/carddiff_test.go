package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/udiff"
)

// TestCardChange: each agent's edit tool, as its hook sends it, becomes
// the diff its card shows — over the file's own lines when the file is in
// the session's folder, the edit alone when it cannot be read.
func TestCardChange(t *testing.T) {
	dir := t.TempDir()
	lines := make([]string, 40)
	for i := range lines {
		lines[i] = "line " + strconv.Itoa(i+1)
	}
	text := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("do not show\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	in := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	main := filepath.Join(dir, "main.go")
	for _, tc := range []struct {
		name, tool string
		input      json.RawMessage
		path       string
		status     string
		note       string
		added      int
		removed    int
		line       udiff.Line // a line the diff must show
	}{
		{"Claude Code's Edit, numbered as the file", "Edit", in(map[string]any{"file_path": main, "old_string": "line 30\n", "new_string": "line thirty\n"}),
			"main.go", udiff.FileModified, "", 1, 1, udiff.Line{Op: udiff.Added, New: 30, Text: "line thirty"}},
		{"MultiEdit, both edits", "MultiEdit", in(map[string]any{"file_path": main, "edits": []any{
			map[string]any{"old_string": "line 2\n", "new_string": ""}, map[string]any{"old_string": "line 39", "new_string": "line 39\nline 39½"}}}),
			"main.go", udiff.FileModified, "", 1, 1, udiff.Line{Op: udiff.Added, New: 39, Text: "line 39½"}},
		{"Write over a file in the folder", "Write", in(map[string]any{"file_path": main, "content": "short\n"}),
			"main.go", udiff.FileModified, "", 1, 40, udiff.Line{Op: udiff.Removed, Old: 40, Text: "line 40"}},
		{"Write a new file", "write_file", in(map[string]any{"file_path": filepath.Join(dir, "new.txt"), "content": "a\nb\n"}),
			"new.txt", udiff.FileAdded, "", 2, 0, udiff.Line{Op: udiff.Added, New: 2, Text: "b"}},
		{"an edit whose text is not in the file", "replace", in(map[string]any{"file_path": main, "old_string": "gone", "new_string": "here"}),
			"main.go", udiff.FileModified, noteSnippet, 1, 1, udiff.Line{Op: udiff.Added, New: 1, Text: "here"}},
		{"a link out of the folder is not read", "Write", in(map[string]any{"file_path": filepath.Join(dir, "link.txt"), "content": "x\n"}),
			"link.txt", udiff.FileModified, noteOutside, 1, 0, udiff.Line{Op: udiff.Added, New: 1, Text: "x"}},
		{"a file outside the folder is not read", "Edit", in(map[string]any{"file_path": outside, "old_string": "do not show", "new_string": "y"}),
			outside, udiff.FileModified, noteSnippet, 1, 1, udiff.Line{Op: udiff.Removed, Old: 1, Text: "do not show"}},
		{"Copilot CLI's edit, a relative path", "edit", in(map[string]any{"path": "main.go", "old_str": "line 1\n", "new_str": "\u202eline 1\n"}),
			"main.go", udiff.FileModified, "", 1, 1, udiff.Line{Op: udiff.Added, New: 1, Text: `\u202eline 1`}},
		{"OpenCode's own diff", "edit", in(map[string]any{"filepath": main, "diff": "Index: " + main + "\n===\n--- " + main + "\n+++ " + main + "\n@@ -3,1 +3,1 @@\n-line 3\n+line three\n"}),
			"main.go", udiff.FileModified, "", 1, 1, udiff.Line{Op: udiff.Added, New: 3, Text: "line three"}},
		{"Codex's apply_patch", "apply_patch", in(map[string]any{"input": "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** End Patch\n"}),
			"hello.txt", udiff.FileAdded, "", 1, 0, udiff.Line{Op: udiff.Added, Text: "Hello"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := cardChange(tc.tool, tc.input, dir)
			if len(files) != 1 {
				t.Fatalf("%d files: %+v", len(files), files)
			}
			f := files[0]
			if f.Path != tc.path || f.Status != tc.status || f.Note != tc.note || f.Added != tc.added || f.Removed != tc.removed {
				t.Errorf("got %q %s note %q +%d −%d; want %q %s note %q +%d −%d", f.Path, f.Status, f.Note, f.Added, f.Removed, tc.path, tc.status, tc.note, tc.added, tc.removed)
			}
			found := false
			for _, l := range f.Lines {
				found = found || l == tc.line
				if strings.Contains(l.Text, "do not show") && tc.note == noteOutside {
					t.Errorf("a file outside the folder was read: %q", l.Text)
				}
			}
			if !found {
				t.Errorf("no line %+v in %+v", tc.line, f.Lines)
			}
		})
	}
	if files := cardChange("Bash", in(map[string]any{"command": "rm -rf /"}), dir); files != nil {
		t.Errorf("a shell call is no edit: %+v", files)
	}
}

// TestCardCommand: a shell card shows the whole command, its lines kept,
// escapes shown as text.
func TestCardCommand(t *testing.T) {
	cmd := "cat <<'EOF' > x\n" + strings.Repeat("long ", 200) + "\nEOF\n\x1b[31mred\u202e"
	got := cardCommand(json.RawMessage(`{"command":` + jsonString(cmd) + `}`))
	if !strings.Contains(got, strings.Repeat("long ", 200)) || !strings.Contains(got, "\nEOF\n") || !strings.Contains(got, `\x1b[31mred\u202e`) {
		t.Errorf("command shown as %q", got)
	}
	if got := cardCommand(json.RawMessage(`{"command":` + jsonString(strings.Repeat("x", 3*maxCommand)) + `}`)); len(got) > maxCommand+len("…") {
		t.Errorf("a huge command is %d bytes shown", len(got))
	}
}

// TestEditCardShowsTheDiff: a Claude Code PermissionRequest for Edit
// makes a card that carries the diff and the folder.
func TestEditCardShowsTheDiff(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := `{"session_id":"s1","transcript_path":` + jsonString(e.transcript) + `,"cwd":` + jsonString(dir) +
		`,"hook_event_name":"PermissionRequest","tool_name":"Edit","tool_input":{"file_path":` + jsonString(filepath.Join(dir, "a.txt")) +
		`,"old_string":"two","new_string":"2"}}`
	if _, err := e.h.Hook("claude-code", []byte(payload), time.Now()); err != nil {
		t.Fatal(err)
	}
	c := waitCards(t, e.h, func(c []Card) bool { return len(c) == 1 })[0]
	if len(c.Files) != 1 || c.Files[0].Path != "a.txt" || c.Files[0].Added != 1 || c.Files[0].Removed != 1 || c.Cwd != dir {
		t.Fatalf("card %+v", c)
	}
}
