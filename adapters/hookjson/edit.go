package hookjson

import (
	"encoding/json"
	"strings"
)

// What an edit tool's call asks to write, read from its input as the
// agents send it to their hooks (docs/board.md, "The change a card asks
// for"):
//
//	Claude Code, Qwen Code (Claude-style)  Edit {file_path, old_string, new_string, replace_all}
//	                                       MultiEdit {file_path, edits: [{old_string, new_string, replace_all}]}
//	                                       Write {file_path, content}
//	Gemini CLI, Qwen Code                  replace / edit {file_path, old_string, new_string}, write_file {file_path, content}
//	OpenCode (its permission's metadata)   edit / write {filepath, diff}: a unified diff
//	Copilot CLI                            edit / str_replace {path, old_str, new_str}, create {path, file_text}
//	Codex                                  apply_patch: its patch text ("*** Begin Patch"), in input, patch or command
//
// A tool not named here is not an edit, whatever its input holds.

// Replacement is one old → new text of an edit.
type Replacement struct {
	Old, New string
	All      bool // every occurrence (replace_all)
}

// Edit is an edit tool's call.
type Edit struct {
	Path string // the file, as the agent named it ("" for a patch that names its own)
	// Replacements are an in-place edit's, in order.
	Replacements []Replacement
	// Content is a whole file's new text (Write, write_file, create).
	Content *string
	// Patch is a patch's text: Codex's own format (CodexPatch), or a
	// unified diff (OpenCode's metadata).
	Patch      string
	CodexPatch bool
}

// maxEditInput bounds an edit's input read: a card shows a bounded diff
// of it, and a Write of megabytes is still a Write.
const maxEditInput = 4 << 20

var (
	replaceTools = []string{"Edit", "MultiEdit", "replace", "edit", "str_replace", "str_replace_editor"}
	writeTools   = []string{"Write", "write_file", "write", "create"}
	patchTools   = []string{"apply_patch", "ApplyPatch"}
)

// EditOf reads the edit a call of tool asks for from its input, and
// reports false for a tool that is not an edit or an input that says
// nothing to show.
func EditOf(tool string, input json.RawMessage) (Edit, bool) {
	if len(input) == 0 || len(input) > maxEditInput {
		return Edit{}, false
	}
	var in Fields
	if json.Unmarshal(input, &in) != nil {
		return Edit{}, false
	}
	str := func(names ...string) (string, bool) {
		for _, n := range names {
			var s string
			if raw, ok := in[n]; ok && json.Unmarshal(raw, &s) == nil {
				return s, true
			}
		}
		return "", false
	}
	path, _ := str("file_path", "filePath", "filepath", "path", "absolute_path")
	e := Edit{Path: path}
	switch {
	case has(patchTools, tool):
		for _, n := range []string{"input", "patch", "command"} {
			if s, ok := str(n); ok && strings.Contains(s, "*** Begin Patch") {
				e.Patch, e.CodexPatch = s, true
				return e, true
			}
		}
		var argv []string // a command given as argv: ["apply_patch", "*** Begin Patch…"]
		if json.Unmarshal(in["command"], &argv) == nil {
			for _, a := range argv {
				if strings.Contains(a, "*** Begin Patch") {
					e.Patch, e.CodexPatch = a, true
					return e, true
				}
			}
		}
		return Edit{}, false
	case !has(replaceTools, tool) && !has(writeTools, tool):
		return Edit{}, false
	}
	if d, ok := str("diff"); ok && strings.Contains(d, "@@") {
		e.Patch = d // OpenCode: the diff it computed itself
		return e, path != ""
	}
	if path == "" {
		return Edit{}, false
	}
	if has(writeTools, tool) {
		if c, ok := str("content", "file_text"); ok {
			e.Content = &c
			return e, true
		}
	}
	if old, ok := str("old_string", "oldString", "old_str"); ok {
		nw, _ := str("new_string", "newString", "new_str")
		var all bool
		for _, n := range []string{"replace_all", "replaceAll"} {
			if json.Unmarshal(in[n], &all) == nil && all {
				break
			}
		}
		e.Replacements = []Replacement{{Old: old, New: nw, All: all}}
		return e, true
	}
	var edits []struct {
		Old string `json:"old_string"`
		New string `json:"new_string"`
		All bool   `json:"replace_all"`
	}
	if json.Unmarshal(in["edits"], &edits) == nil && len(edits) > 0 {
		for _, x := range edits {
			e.Replacements = append(e.Replacements, Replacement{Old: x.Old, New: x.New, All: x.All})
		}
		return e, true
	}
	if c, ok := str("content", "file_text"); ok && has(writeTools, tool) {
		e.Content = &c
		return e, true
	}
	return Edit{}, false
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
