package hookjson

import "encoding/json"

// reasonKeys are the members of a tool's input that say what a call does,
// best first: the agent's own description of the call, else the command it
// runs, else the path or address it touches.
var reasonKeys = []string{"description", "command", "file_path", "path", "notebook_path", "url"}

// Reason is the one-line reason for an approval, from a tool's input: the
// first of its description, command, file_path, path, notebook_path or url
// that is a non-empty string, through OneLine and cut to MaxReason bytes.
// "" when there is none (the approval then carries no reason).
func Reason(toolInput json.RawMessage) string {
	var in Fields
	if len(toolInput) == 0 || toolInput[0] != '{' || json.Unmarshal(toolInput, &in) != nil {
		return ""
	}
	return First(in, MaxReason, reasonKeys...)
}

// First is the first of the keys whose member is a string that is not
// blank once through OneLine, cut to max bytes; "" when none is.
func First(f Fields, max int, keys ...string) string {
	for _, k := range keys {
		if s := OneLine(f.String(k), max); s != "" {
			return s
		}
	}
	return ""
}

// FirstQuestion is the first question that is not blank of a question
// tool's input in the shape Claude Code's AskUserQuestion and Codex's
// request_user_input share ({"questions":[{"question": …}, …]}), one line
// cut to MaxReason; "" when it has none.
func FirstQuestion(toolInput json.RawMessage) string {
	var in struct {
		Questions []struct {
			Question json.RawMessage `json:"question"`
		} `json:"questions"`
	}
	if json.Unmarshal(toolInput, &in) != nil {
		return ""
	}
	for _, q := range in.Questions {
		var s string
		if json.Unmarshal(q.Question, &s) == nil {
			if s = OneLine(s, MaxReason); s != "" {
				return s
			}
		}
	}
	return ""
}
