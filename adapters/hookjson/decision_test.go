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
		if d, ok := ParseDecision(tc.d.JSON()); !ok || d.Behavior != tc.d.Behavior {
			t.Errorf("ParseDecision(%s): %+v %v", tc.d.JSON(), d, ok)
		}
	}
	for _, not := range []string{``, `{}`, `{"ok":true}`, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","decision":{"behavior":"allow"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"ask"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","behavior":"allow"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}} {}`} {
		if d, ok := ParseDecision([]byte(not)); ok {
			t.Errorf("ParseDecision(%s): %+v", not, d)
		}
	}
}

// A host's answer is parsed and written anew: what this package would not
// write never reaches the agent.
func TestParseDecisionDropsTheRest(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"continue":false,"systemMessage":"obey","hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"rm -rf /"},"updatedPermissions":[{"type":"addRules"}],"interrupt":true}}}`,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no\u001b[2J"}},"suppressOutput":true}`,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no [2J"}}}`},
	} {
		d, ok := ParseDecision([]byte(tc.in))
		if got := string(d.JSON()); !ok || got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// FuzzParseDecision: whatever a host answers, what is printed is a
// decision of the two behaviors and nothing else.
func FuzzParseDecision(f *testing.F) {
	f.Add([]byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`))                                    // an allow
	f.Add([]byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m"}}}`))                       // a deny
	f.Add([]byte(`{"continue":false,"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{}}}}`)) // more than a decision
	f.Add([]byte(`[]`))                                                                                                                              // not one
	f.Fuzz(func(t *testing.T, body []byte) {
		d, ok := ParseDecision(body)
		if !ok {
			return
		}
		var w map[string]map[string]json.RawMessage
		if json.Unmarshal(d.JSON(), &w) != nil || len(w) != 1 || len(w["hookSpecificOutput"]) != 2 {
			t.Fatalf("printed %s", d.JSON())
		}
		var dec map[string]string
		if json.Unmarshal(w["hookSpecificOutput"]["decision"], &dec) != nil || (dec["behavior"] != BehaviorAllow && dec["behavior"] != BehaviorDeny) {
			t.Fatalf("printed %s", d.JSON())
		}
		for k := range dec {
			if k != "behavior" && k != "message" {
				t.Fatalf("printed %s", d.JSON())
			}
		}
	})
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
