package hookjson

import (
	"encoding/json"
	"testing"
)

func TestEditOf(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name, tool, input string
		ok                bool
		want              Edit
	}{
		{"Claude Code's Edit", "Edit", `{"file_path":"/p/a.go","old_string":"a","new_string":"b","replace_all":true}`, true,
			Edit{Path: "/p/a.go", Replacements: []Replacement{{"a", "b", true}}}},
		{"Claude Code's MultiEdit", "MultiEdit", `{"file_path":"/p/a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`, true,
			Edit{Path: "/p/a.go", Replacements: []Replacement{{"a", "b", false}, {"c", "d", false}}}},
		{"Claude Code's Write", "Write", `{"file_path":"/p/n.txt","content":"hi\n"}`, true, Edit{Path: "/p/n.txt", Content: str("hi\n")}},
		{"Gemini CLI's replace", "replace", `{"file_path":"/p/a","old_string":"x","new_string":"y","expected_replacements":1}`, true,
			Edit{Path: "/p/a", Replacements: []Replacement{{"x", "y", false}}}},
		{"Gemini CLI's write_file", "write_file", `{"file_path":"/p/a","content":""}`, true, Edit{Path: "/p/a", Content: str("")}},
		{"Copilot CLI's edit", "edit", `{"path":"/p/a","old_str":"x","new_str":"y"}`, true, Edit{Path: "/p/a", Replacements: []Replacement{{"x", "y", false}}}},
		{"Copilot CLI's create", "create", `{"path":"/p/a","file_text":"t"}`, true, Edit{Path: "/p/a", Content: str("t")}},
		{"OpenCode's edit permission", "edit", `{"filepath":"/p/a","diff":"--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n"}`, true,
			Edit{Path: "/p/a", Patch: "--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n"}},
		{"Codex's apply_patch", "apply_patch", `{"input":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"}`, true,
			Edit{Patch: "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch", CodexPatch: true}},
		{"Codex's apply_patch as argv", "apply_patch", `{"command":["apply_patch","*** Begin Patch\n*** End Patch"]}`, true,
			Edit{Patch: "*** Begin Patch\n*** End Patch", CodexPatch: true}},
		{"a shell command is no edit", "Bash", `{"command":"echo hi > a","content":"x"}`, false, Edit{}},
		{"an edit with no file", "Edit", `{"old_string":"a","new_string":"b"}`, false, Edit{}},
		{"not an object", "Edit", `[1,2]`, false, Edit{}},
		{"a patch tool with no patch", "apply_patch", `{"input":"rm -rf /"}`, false, Edit{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := EditOf(tc.tool, json.RawMessage(tc.input))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Errorf("got %s\nwant %s", g, w)
			}
		})
	}
}

// FuzzEditOf: any tool input is read without a panic, and what it gives
// is at most what it was given.
func FuzzEditOf(f *testing.F) {
	f.Add("Edit", `{"file_path":"a","old_string":"x","new_string":"y"}`) // an edit
	f.Add("MultiEdit", `{"file_path":"a","edits":[{"old_string":7}]}`)   // a wrong type
	f.Add("apply_patch", `{"command":["*** Begin Patch"]}`)              // a patch as argv
	f.Add("write", `{"filepath":"a","diff":"@@"}`)                       // OpenCode's
	f.Fuzz(func(t *testing.T, tool, input string) {
		e, ok := EditOf(tool, json.RawMessage(input))
		if !ok {
			return
		}
		n := len(e.Path) + len(e.Patch)
		for _, r := range e.Replacements {
			n += len(r.Old) + len(r.New)
		}
		if e.Content != nil {
			n += len(*e.Content)
		}
		if n > 4*len(input)+16 {
			t.Fatalf("%d bytes out of %d in", n, len(input))
		}
	})
}
