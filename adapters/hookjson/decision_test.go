package hookjson

import (
	"encoding/json"
	"testing"
)

func TestDecisionJSON(t *testing.T) {
	for _, tc := range []struct {
		d    Decision
		want string
	}{
		{Decision{Behavior: BehaviorAllow}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{Decision{Behavior: BehaviorDeny, Message: "not\non main"}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}`},
		{Decision{Behavior: BehaviorAllow, Always: json.RawMessage(`{"type":"addRules"}`)}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules"}]}}}`},
		{Decision{Behavior: BehaviorDeny, Message: "m", Always: json.RawMessage(`{}`)}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m"}}}`},
	} {
		if got := string(tc.d.JSON()); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.d, got, tc.want)
		}
		if !IsDecision(tc.d.JSON()) {
			t.Errorf("IsDecision(%s) false", tc.d.JSON())
		}
	}
	for _, not := range []string{``, `{}`, `{"ok":true}`, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","decision":{"behavior":"allow"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"ask"}}}`} {
		if IsDecision([]byte(not)) {
			t.Errorf("IsDecision(%s)", not)
		}
	}
}

func TestSuggestion(t *testing.T) {
	raw := json.RawMessage(`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"deny-me"}],"behavior":"deny","destination":"localSettings"},
		{"type":"setMode","mode":"acceptEdits","destination":"session"},
		{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*"},{"toolName":"Read"}],"behavior":"allow","destination":"localSettings"}]`)
	echo, label, ok := Suggestion(raw)
	if !ok || label != "Bash(npm test:*), Read" {
		t.Fatalf("%s %q %v", echo, label, ok)
	}
	var m map[string]any
	json.Unmarshal(echo, &m)
	if m["destination"] != "session" || m["behavior"] != "allow" {
		t.Fatalf("echo %s: not scoped to the session", echo)
	}
	for _, none := range []string{``, `null`, `[]`, `{}`, `[{"type":"addRules","rules":[],"behavior":"allow"}]`} {
		if _, _, ok := Suggestion(json.RawMessage(none)); ok {
			t.Errorf("%s offered a suggestion", none)
		}
	}
}

// Suggestion never panics; an offer it makes is scoped to the session and
// bounded.
func FuzzSuggestion(f *testing.F) {
	f.Add([]byte(`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"x"}],"behavior":"allow","destination":"userSettings"}]`)) // the common offer
	f.Add([]byte(`[{"type":"addRules","rules":"no","behavior":"allow"}]`))                                                                 // rules of the wrong type
	f.Add([]byte(`[1,"a",null]`))                                                                                                          // junk
	f.Fuzz(func(t *testing.T, raw []byte) {
		echo, label, ok := Suggestion(raw)
		if !ok {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(echo, &m) != nil || string(m["destination"]) != `"session"` || len(label) > MaxReason || len(echo) > MaxSuggestion+64 {
			t.Fatalf("offer %s %q", echo, label)
		}
	})
}
