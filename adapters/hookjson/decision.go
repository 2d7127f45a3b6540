package hookjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/textrule"
)

// Behaviors a permission decision takes: the human's answer to an agent's
// PermissionRequest, given from the board.
const (
	BehaviorAllow = "allow"
	BehaviorDeny  = "deny"
)

// MaxDecisionMessage bounds the one-line reason a deny carries to the agent.
const MaxDecisionMessage = 500

// MaxSuggestion bounds one permission suggestion kept to echo back ("always
// allow"): a rule or two, never a document.
const MaxSuggestion = 4 << 10

// Decision is the answer to a held PermissionRequest hook, in the shape
// Claude Code documents for its hooks (and Codex reads from a command hook's
// stdout):
//
//	{"hookSpecificOutput":{"hookEventName":"PermissionRequest",
//	  "decision":{"behavior":"allow"|"deny","message":"…","updatedPermissions":[…]}}}
//
// A deny's message is what the model reads as the tool's result; Always
// echoes one of the payload's permission_suggestions as updatedPermissions.
type Decision struct {
	Behavior string
	Message  string          // deny only; one line, ≤ MaxDecisionMessage
	Always   json.RawMessage // allow only: one permission suggestion to echo, or nil
	// Mode (allow only) is a setMode permission update (Mode.Echo,
	// AcceptEdits), or nil.
	Mode json.RawMessage
	// Input (allow only) is the tool's input as the agent is to run it:
	// a question's input with its answers (Ask.Answer), a plan's echoed
	// (Plan.Input); nil runs the call as it asked.
	Input json.RawMessage
}

type decisionWire struct {
	HookSpecificOutput struct {
		HookEventName string `json:"hookEventName"`
		Decision      struct {
			Behavior           string            `json:"behavior"`
			Message            string            `json:"message,omitempty"`
			UpdatedInput       json.RawMessage   `json:"updatedInput,omitempty"`
			UpdatedPermissions []json.RawMessage `json:"updatedPermissions,omitempty"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// JSON is the decision as the hook's response body.
func (d Decision) JSON() []byte {
	var w decisionWire
	w.HookSpecificOutput.HookEventName = "PermissionRequest"
	w.HookSpecificOutput.Decision.Behavior = d.Behavior
	if d.Behavior == BehaviorDeny {
		w.HookSpecificOutput.Decision.Message = OneLine(d.Message, MaxDecisionMessage)
	}
	if d.Behavior == BehaviorAllow {
		for _, p := range []json.RawMessage{d.Always, d.Mode} {
			if len(p) > 0 {
				w.HookSpecificOutput.Decision.UpdatedPermissions = append(w.HookSpecificOutput.Decision.UpdatedPermissions, p)
			}
		}
		if len(d.Input) > 0 {
			w.HookSpecificOutput.Decision.UpdatedInput = d.Input
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		panic(err) // strings and a validated raw object: cannot fail
	}
	return b
}

// ParseDecision reads a host's answer to a held PermissionRequest as the
// decision this package would write itself: one JSON object (nothing after
// it, no key given twice) naming PermissionRequest, with a behavior of
// allow or deny. Only the behavior and a deny's message are taken, so its
// JSON is all "notch-web hook --wait" ever prints to an agent: whatever
// else the answer holds (updatedInput, updatedPermissions, interrupt,
// continue, systemMessage, …) is dropped. ok is false for anything else.
func ParseDecision(body []byte) (d Decision, ok bool) {
	var w struct {
		HookSpecificOutput struct {
			HookEventName string `json:"hookEventName"`
			Decision      struct {
				Behavior string `json:"behavior"`
				Message  string `json:"message"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if jsonx.DecodeOne(body, &w, jsonx.Options{}) != nil || w.HookSpecificOutput.HookEventName != "PermissionRequest" {
		return Decision{}, false
	}
	switch b := w.HookSpecificOutput.Decision; b.Behavior {
	case BehaviorAllow:
		return Decision{Behavior: BehaviorAllow}, true
	case BehaviorDeny:
		return Decision{Behavior: BehaviorDeny, Message: b.Message}, true
	}
	return Decision{}, false
}

// Always is the "always allow" a card offers: the rules it grants, shown
// in full, and the suggestion echoed to grant exactly those.
type Always struct {
	// Echo is the updatedPermissions entry: {"type":"addRules","rules":
	// [{"toolName":…,"ruleContent":…}…],"behavior":"allow","destination":
	// "session"}, rebuilt from Rules alone (nothing else the payload put in
	// the suggestion rides along).
	Echo json.RawMessage
	// Rules are every rule granted, as shown: "Bash(npm test:*)", "Read".
	Rules []string
	// Label is Rules joined, when that fits MaxReason whole; else their
	// count ("12 rules"), and the card unfolds the list.
	Label string
}

// AlwaysLabel is the label of "always allow" for rules: the rules joined,
// when that fits MaxReason whole; else their count ("12 rules"), and the
// card unfolds the list. "" when there is no rule, or a rule cannot be
// shown as it is (textrule's hidden characters, invalid UTF-8): then
// nothing is offered.
func AlwaysLabel(rules []string) string {
	if len(rules) == 0 {
		return ""
	}
	for _, r := range rules {
		if strings.TrimSpace(r) == "" || textrule.Has(r) {
			return ""
		}
	}
	label := strings.Join(rules, ", ")
	if len(label) > MaxReason {
		label = strconv.Itoa(len(rules)) + " rules"
	}
	return label
}

// suggestionRule is one rule of an addRules suggestion, as Claude Code
// writes it.
type suggestionRule struct {
	ToolName    string `json:"toolName"`
	RuleContent string `json:"ruleContent,omitempty"`
}

// Suggestion is the permission suggestion "Always allow" offers, from a
// PermissionRequest payload's permission_suggestions: the first that adds
// allow rules, scoped to the session (so "always" lasts as long as the
// session, never written to a settings file by a click on a board). A
// suggestion with a rule that cannot be shown as it is (a character
// internal/textrule hides, invalid UTF-8, an empty tool name) is never
// offered: a click grants only what the card shows. ok is false when the
// payload offers none.
func Suggestion(raw json.RawMessage) (a Always, ok bool) {
	var list []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return Always{}, false
	}
	for _, s := range list {
		if len(s) > MaxSuggestion {
			continue
		}
		var f map[string]json.RawMessage
		if json.Unmarshal(s, &f) != nil {
			continue
		}
		var typ, behavior string
		json.Unmarshal(f["type"], &typ)
		json.Unmarshal(f["behavior"], &behavior)
		if typ != "addRules" || behavior != BehaviorAllow {
			continue
		}
		var rules []suggestionRule
		if json.Unmarshal(f["rules"], &rules) != nil || len(rules) == 0 {
			continue
		}
		names := make([]string, 0, len(rules))
		for _, r := range rules {
			n := r.ToolName
			if strings.TrimSpace(r.ToolName) == "" {
				n = "" // no tool: AlwaysLabel offers nothing
			} else if r.RuleContent != "" {
				n += "(" + r.RuleContent + ")"
			}
			names = append(names, n)
		}
		label := AlwaysLabel(names)
		if label == "" {
			continue
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // the echo is no larger than what was offered
		if enc.Encode(struct {
			Type        string           `json:"type"`
			Rules       []suggestionRule `json:"rules"`
			Behavior    string           `json:"behavior"`
			Destination string           `json:"destination"`
		}{"addRules", rules, BehaviorAllow, "session"}) != nil {
			continue
		}
		return Always{Echo: bytes.TrimSpace(b.Bytes()), Rules: names, Label: label}, true
	}
	return Always{}, false
}
