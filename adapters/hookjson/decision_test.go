package hookjson

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/textrule"
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
		{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*","extra":"x"},{"toolName":"Read"}],"behavior":"allow","destination":"localSettings","more":true}]`)
	a, ok := Suggestion(raw)
	if !ok || a.Label != "Bash(npm test:*), Read" || !slices.Equal(a.Rules, []string{"Bash(npm test:*)", "Read"}) {
		t.Fatalf("%+v %v", a, ok)
	}
	// The echo is rebuilt from the rules shown: nothing else rides along.
	if want := `{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*"},{"toolName":"Read"}],"behavior":"allow","destination":"session"}`; string(a.Echo) != want {
		t.Fatalf("echo %s\nwant %s", a.Echo, want)
	}
	for _, none := range []string{``, `null`, `[]`, `{}`, `[{"type":"addRules","rules":[],"behavior":"allow"}]`,
		// a rule that cannot be shown as it is offers nothing
		`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls \u202e"}],"behavior":"allow"}]`,
		`[{"type":"addRules","rules":[{"toolName":"Read"},{"toolName":"Bash","ruleContent":"a\nb"}],"behavior":"allow"}]`,
		`[{"type":"addRules","rules":[{"toolName":" ","ruleContent":"x"}],"behavior":"allow"}]`,
	} {
		if a, ok := Suggestion(json.RawMessage(none)); ok {
			t.Errorf("%s offered %+v", none, a)
		}
	}
}

// Rules that do not fit the label are counted there, and every one is kept.
func TestSuggestionManyRules(t *testing.T) {
	var rules []string
	for i := range 30 {
		rules = append(rules, `{"toolName":"Bash","ruleContent":"make target-`+strconv.Itoa(i)+`:*"}`)
	}
	rules = append(rules, `{"toolName":"Bash"}`) // the bare rule: every command
	a, ok := Suggestion(json.RawMessage(`[{"type":"addRules","rules":[` + strings.Join(rules, ",") + `],"behavior":"allow"}]`))
	if !ok || a.Label != "31 rules" || len(a.Rules) != 31 || a.Rules[30] != "Bash" {
		t.Fatalf("%q %d rules %v", a.Label, len(a.Rules), ok)
	}
}

// Suggestion never panics; an offer it makes is scoped to the session,
// bounded, and grants exactly the rules it names, each shown as it is.
func FuzzSuggestion(f *testing.F) {
	f.Add([]byte(`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"x"}],"behavior":"allow","destination":"userSettings"}]`)) // the common offer
	f.Add([]byte(`[{"type":"addRules","rules":"no","behavior":"allow"}]`))                                                                 // rules of the wrong type
	f.Add([]byte(`[1,"a",null]`))                                                                                                          // junk
	f.Add([]byte(`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"\u2066x"}],"behavior":"allow"}]`))                        // a hidden character
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, ok := Suggestion(raw)
		if !ok {
			return
		}
		var m struct {
			Destination string
			Rules       []suggestionRule
		}
		if json.Unmarshal(a.Echo, &m) != nil || m.Destination != "session" || len(a.Label) > MaxReason || len(a.Echo) > 2*MaxSuggestion {
			t.Fatalf("offer %s %q", a.Echo, a.Label)
		}
		if len(m.Rules) != len(a.Rules) {
			t.Fatalf("echo grants %d rules, the card shows %d", len(m.Rules), len(a.Rules))
		}
		for i, r := range m.Rules {
			n := r.ToolName
			if r.RuleContent != "" {
				n += "(" + r.RuleContent + ")"
			}
			if n != a.Rules[i] || textrule.Has(n) {
				t.Fatalf("rule %d granted %q, shown %q", i, n, a.Rules[i])
			}
		}
	})
}
