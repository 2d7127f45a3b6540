package host

import (
	"encoding/json"
	"fmt"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/opencode"
)

// OpenCode's approvals, and its forks' (agent.AskOpenCodePlugin: Kilo Code
// CLI's plugin is the same source). Its plugin sends each permission.asked twice: in
// its ordered queue (the row's "needs you") and again, outside it, as
// opencode.Ask, a request the host holds while the board may answer; the
// plugin turns the answer (hookjson.Decision's JSON) into OpenCode's
// permission reply: allow is "once", allow with the echo of "always" is
// "always", deny is "reject". OpenCode's own prompt is shown meanwhile; its
// permission.replied (every answer's, the board's too) settles the card of
// that request id, so a terminal answer first makes a late click 409. A
// card is keyed by OpenCode's request id (Card.Call).

// maxOpenCodeAlways bounds the patterns an "always" card lists.
const maxOpenCodeAlways = 16

// alwaysEcho is what a board "always" puts in the decision for OpenCode's
// plugin: any updatedPermissions is its "always".
var alwaysEcho = json.RawMessage(`{"opencode":"always"}`)

// observeOpenCode is observe for OpenCode's plugin.
func (a *approvals) observeOpenCode(agent string, p hookjson.Payload, held bool) (*entry, bool) {
	p = opencode.Rows(p)
	row := hookjson.ID(p.SessionID)
	parent := ""
	if p.AgentID != "" {
		parent, row = row, hookjson.SubagentID(p.SessionID, p.AgentID)
	}
	props := p.Object("properties")
	var asks asked
	if p.Event == opencode.Ask {
		// Its metadata: a shell call's command, an edit's filepath and diff.
		asks = a.askedFor(row, p.String("cwd"), props.String("permission"), props["metadata"])
	}
	var e *entry
	moved := false
	a.mu.Lock()
	publish := a.noteAgent(row, agent)
	switch p.Event {
	case opencode.Ask:
		id := hookjson.OneLine(props.String("id"), hookjson.MaxTool)
		tool := hookjson.OneLine(props.String("permission"), hookjson.MaxTool)
		if id == "" || tool == "" || a.carded(agent, row, id) {
			break
		}
		a.makeRoom()
		e = a.openCodeCard(agent, props, row, parent, id, tool, held)
		e.Files, e.Command, e.Cwd = asks.files, asks.command, asks.cwd
		publish = true
	case opencode.PermissionReplied:
		id := props.String("requestID")
		outcome := OutcomeMovedOn
		switch props.String("reply") {
		case "once":
			outcome = OutcomeAllowed
		case "always":
			outcome = OutcomeAlways
		case "reject":
			outcome = OutcomeDenied
		}
		for _, x := range a.pendingOf(row) {
			if x.Call == id && a.resolve(x, ByTerminal, outcome) {
				publish, moved = true, true
			}
		}
	case opencode.SessionIdle, opencode.SessionError, opencode.Dispose:
		// The turn, or OpenCode, ended: nothing waits on a card of it.
		for _, x := range a.cards {
			if x.State != CardAnswered && (x.Session == row || (p.Event == opencode.Dispose && x.parent == row)) {
				a.resolve(x, ByTerminal, OutcomeMovedOn)
				publish, moved = true, true
			}
		}
	}
	if publish {
		a.publish()
	}
	if e != nil && !e.held {
		e = nil // nothing to wait on
	}
	a.mu.Unlock()
	return e, moved
}

// carded reports whether a row has a card for OpenCode's request id
// already (a request sent twice makes one card).
func (a *approvals) carded(agent, row, id string) bool {
	for _, x := range a.cards {
		if x.Session == row && x.Call == id && x.Agent == agent {
			return true
		}
	}
	return false
}

// openCodeCard makes the card of OpenCode's permission request id. Its
// "always" is OpenCode's: the request's always patterns for the
// permission, allowed until that OpenCode exits (and its other pending
// requests in the session those now cover are allowed with it).
func (a *approvals) openCodeCard(agent string, props hookjson.Fields, row, parent, id, tool string, held bool) *entry {
	e := &entry{
		Card: Card{
			Key: randomToken(9), Session: row, Agent: agent, Tool: tool, Call: id,
			Detail: opencode.Reason(props),
			State:  CardTerminal,
			Since:  a.now(),
		},
		parent: parent,
		reason: opencode.Reason(props),
		done:   make(chan struct{}),
		taken:  make(chan struct{}),
	}
	if a.offer(e, held) {
		var patterns []string
		if raw := props["always"]; len(raw) > 0 && raw[0] == '[' {
			_ = json.Unmarshal(raw, &patterns) // not a list of strings: no "always"
		}
		var rules []string
		for _, pat := range patterns[:min(len(patterns), maxOpenCodeAlways)] {
			rules = append(rules, fmt.Sprintf("%s %s", tool, hookjson.OneLine(pat, hookjson.MaxReason)))
		}
		if label := hookjson.AlwaysLabel(rules); label != "" && len(patterns) <= maxOpenCodeAlways {
			e.always, e.Always, e.AlwaysRules = alwaysEcho, label, rules
		}
	}
	a.cards[e.Key] = e
	return e
}
