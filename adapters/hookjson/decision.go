package hookjson

import (
	"encoding/json"
	"strings"
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
}

type decisionWire struct {
	HookSpecificOutput struct {
		HookEventName string `json:"hookEventName"`
		Decision      struct {
			Behavior           string            `json:"behavior"`
			Message            string            `json:"message,omitempty"`
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
	if d.Behavior == BehaviorAllow && len(d.Always) > 0 {
		w.HookSpecificOutput.Decision.UpdatedPermissions = []json.RawMessage{d.Always}
	}
	b, err := json.Marshal(w)
	if err != nil {
		panic(err) // strings and a validated raw object: cannot fail
	}
	return b
}

// IsDecision reports whether body is a PermissionRequest decision this
// package would write: what "notch-web hook --wait" lets through to an
// agent's stdout, and nothing else.
func IsDecision(body []byte) bool {
	var w decisionWire
	if json.Unmarshal(body, &w) != nil {
		return false
	}
	b := w.HookSpecificOutput.Decision.Behavior
	return w.HookSpecificOutput.HookEventName == "PermissionRequest" && (b == BehaviorAllow || b == BehaviorDeny)
}

// Suggestion is the permission suggestion "Always allow" offers, from a
// PermissionRequest payload's permission_suggestions: the first that adds
// allow rules, scoped to the session (so "always" lasts as long as the
// session, never written to a settings file by a click on a board), with
// a short label naming its rules ("Bash(npm test:*)"). ok is false when
// the payload offers none.
func Suggestion(raw json.RawMessage) (echo json.RawMessage, label string, ok bool) {
	var list []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, "", false
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
		var rules []struct {
			ToolName    string `json:"toolName"`
			RuleContent string `json:"ruleContent"`
		}
		if json.Unmarshal(f["rules"], &rules) != nil || len(rules) == 0 {
			continue
		}
		var names []string
		for _, r := range rules {
			n := r.ToolName
			if r.RuleContent != "" {
				n += "(" + r.RuleContent + ")"
			}
			names = append(names, n)
		}
		f["destination"] = json.RawMessage(`"session"`)
		b, err := json.Marshal(f)
		if err != nil {
			continue
		}
		return b, OneLine(strings.Join(names, ", "), MaxReason), true
	}
	return nil, "", false
}
