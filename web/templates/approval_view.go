package templates

import (
	"strings"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/state"
)

// ApprovalCard is one approval the board shows under its row (the host's
// host.Card, as the page needs it): what the agent asks to do, and, while
// the agent waits on the board, the buttons that answer it.
type ApprovalCard struct {
	Key     string // the card's own id (not a secret)
	Session string
	Call    string // the tool call's id, "" when unknown
	Agent   string
	Tool    string
	Detail  string // the command or path, one line, bounded
	Note    string // the agent's description of the call
	Always  string // the "always allow" label: its rules, or their count; "" for none
	// AlwaysRules are every rule "always allow" grants, in full.
	AlwaysRules []string
	Kind        string // KindPermission "" | KindQuestion | KindPlan
	// Questions are a question card's, as shown (host-bounded text).
	Questions []Question
	Plan      string // a plan card's plan: plain text with its lines
	Mode      string // "allow and switch mode"'s words; "" offers none
	// Files are the change an edit asks for, as a diff (host-bounded).
	Files []DiffFile
	// Command is a shell call's whole command (its lines kept) and Cwd
	// the folder it runs in; "" when not known.
	Command, Cwd string
	Nonce        string // single use; "" when the board cannot answer
	State        string // CardWaiting | CardTerminal | CardAnswered
	Outcome      string // for CardAnswered: allowed | always | denied | moved-on
	By           string // for CardAnswered: board | terminal
}

// Question is one question of a question card.
type Question struct {
	Text, Header string
	Multi        bool
	Options      []Option
}

// Option is one answer a question offers.
type Option struct{ Label, Description string }

// Card kinds, as host.Card's.
const (
	KindQuestion = "question"
	KindPlan     = "plan"
)

// qid is the id of a question card's i'th question (its legend, and its
// inputs' name).
func (k ApprovalCard) qid(i int) string { return "card-" + k.Key + "-q" + itoa(i) }

// Card states, as host.Card's.
const (
	CardWaiting  = "waiting"
	CardTerminal = "terminal"
	CardAnswered = "answered"
)

// Approvals is what the board draws of approvals: each row's cards, in
// the order they came; which agent each row is, for the note of a row that
// asks with no card; whether approvals from the board are off.
type Approvals struct {
	Cards  map[string][]ApprovalCard
	Agents map[string]string
	Off    bool
	// Steer are the rows that take Reply and Stop (their session runs in
	// a tmux pane the host has seen); SteerOff: --steer off, none does.
	Steer    map[string]bool
	SteerOff bool
	// Whys are why rows stopped (host.CardSet Whys), by row id.
	Whys map[string]Why
}

// Why is why a row stopped, as the row draws it: its kind's words
// ("usage limit"), the agent's own words, and when a usage limit resets
// (ms; 0: not said).
type Why struct {
	Kind, Label, Words string
	ResetsMs           int64
}

// steers reports whether steerBox draws anything under s: Stop while it
// works, Reply once it is done, or why a settled row in another terminal
// has no Reply (door is its door's kind).
func (a Approvals) steers(s state.Session, door string) (steer, draw bool) {
	if a.SteerOff || s.Status == state.StatusAttention {
		return false, false
	}
	if a.Steer[s.ID] {
		return true, true
	}
	return false, door == terminal.DoorCopy && s.Status != state.StatusWorking
}

// steerName is how a Reply or Stop control names its row: its title, else its project,
// else "this session".
func steerName(s state.Session) string {
	switch {
	case s.Title != "":
		return s.Title
	case s.Project != "":
		return s.Project
	}
	return "this session"
}

// answerElsewhere reports whether s asks with no card to answer here, so
// its cards item says where to answer instead.
func (a Approvals) answerElsewhere(s state.Session) bool {
	return a.Agents[s.ID] != "" && s.Approval != nil && s.Status == state.StatusAttention
}

// has reports whether approvalCards draws anything under s: most rows have
// nothing there, and a board need not render the component to find out.
func (a Approvals) has(s state.Session) bool {
	return len(a.Cards[s.ID]) > 0 || a.answerElsewhere(s)
}

// agentPlace is where a human answers an agent's own prompt.
func agentPlace(agent string) string {
	if n := agentName(agent); n != "" {
		return n
	}
	return "the terminal"
}

// agentName is an agent's name as people say it, "" for none known.
func agentName(agent string) string {
	if s, ok := registry.Get(agent); ok {
		return s.Display
	}
	return ""
}

// agentMark is the letters of an agent's badge, "" for none known.
func agentMark(agent string) string {
	if s, ok := registry.Get(agent); ok {
		return s.Mark
	}
	return ""
}

// cardsID is the id of the list item that holds a row's cards.
func cardsID(sessionID string) string { return rowID(sessionID) + "-cards" }

// cardOutcome says how a card was answered, in words.
func cardOutcome(k ApprovalCard) string {
	switch {
	case k.Kind == KindQuestion && (k.By == "board" || k.By == "push") && k.Outcome == "denied":
		return "Declined from the board"
	case k.Kind == KindQuestion && (k.By == "board" || k.By == "push"):
		return "Answered from the board"
	case k.Kind == KindQuestion && k.Outcome != "denied":
		return "Answered in " + agentPlace(k.Agent)
	case k.Kind == KindPlan && k.By == "board" && k.Outcome == "denied":
		return "Sent back to planning from the board"
	case k.Kind == KindPlan && k.By == "board" && k.Outcome == "mode":
		return "Plan approved from the board; edits are accepted"
	case k.Kind == KindPlan && k.By == "board":
		return "Plan approved from the board"
	case k.By == "board" && k.Outcome == "mode":
		return "Allowed from the board; the mode switched"
	case k.By == "board" && k.Outcome == "denied":
		return "Denied from the board"
	case k.By == "board" && k.Outcome == "always":
		return "Allowed from the board, for this session"
	case k.By == "board":
		return "Allowed from the board"
	case k.By == "push" && k.Outcome == "denied":
		return "Denied from a notification"
	case k.By == "push":
		return "Allowed from a notification"
	case k.Outcome == "denied":
		return "Refused in " + agentPlace(k.Agent)
	case k.Outcome == "allowed":
		return "Allowed in " + agentPlace(k.Agent)
	}
	return "Answered in " + agentPlace(k.Agent)
}

// answersJS is a question card's Submit: per question, the indexes of
// the options ticked and, when Other is, its words (notch.js's
// cardAnswers reads them off the card).
func answersJS() string {
	return "@post('/agents-notch/approve', {payload: {sessionId: el.closest('.card').dataset.session, " +
		"call: el.closest('.card').dataset.call, nonce: el.closest('.card').dataset.nonce, decision: 'answer', answers: window.notchCardAnswers(el.closest('.card'))}})"
}

// answerJS is a button's Datastar action: the card's session, call and
// nonce from its data attributes, and the decision.
func answerJS(decision string) string {
	return "@post('/agents-notch/approve', {payload: {sessionId: el.closest('.card').dataset.session, " +
		"call: el.closest('.card').dataset.call, nonce: el.closest('.card').dataset.nonce, decision: '" + decision + "'}})"
}

// denyWithReasonJS is a Deny that sends the reason typed in its card's
// field: only permission and plan cards have one (a question card's
// Decline is answerJS("deny"); reading a field a card lacks throws, and
// the button would do nothing).
func denyWithReasonJS() string {
	return "@post('/agents-notch/approve', {payload: {sessionId: el.closest('.card').dataset.session, " +
		"call: el.closest('.card').dataset.call, nonce: el.closest('.card').dataset.nonce, decision: 'deny', " +
		"message: el.closest('.card').querySelector('.card-reason').value}})"
}

// alwaysCounted reports whether the Always label counts the rules rather
// than naming them: the card then unfolds the list, so that a click
// grants only what the card shows.
func (k ApprovalCard) alwaysCounted() bool {
	return k.Always != "" && k.Always != strings.Join(k.AlwaysRules, ", ")
}
