package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	adapters "github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/codex"
	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/internal/logx"
)

// Approvals from the board (docs/approvals.md). An agent's PermissionRequest
// becomes a card: keyed by the tool call it asks about (PreToolUse carries
// the call's id, PermissionRequest does not, so the request is matched to
// the call announced just before it), shown under its row, and cleared by
// the first signal that the human answered: a click on the board, or,
// for an answer in the agent's own prompt, the call's result in the
// transcript, its PostToolUse / PostToolUseFailure / PermissionDenied, or
// the turn moving on (UserPromptSubmit, Stop, StopFailure, Interrupt,
// SessionEnd). While the board may answer, the agent's hook request is held
// (bounded by the hold); its end answers nothing, never a deny.

// DefaultApprovalHold is how long a PermissionRequest hook is held for the
// board's answer (--approval-hold). The Claude Code hook's timeout is
// installed a few seconds above it (install.ClaudeHoldTimeout).
const DefaultApprovalHold = 25 * time.Second

// MaxApprovalHold bounds the hold: Claude Code's own default hook timeout.
const MaxApprovalHold = 10 * time.Minute

// cardLinger is how long a card answered elsewhere stays on the board,
// saying so, before it goes. The row itself never decays on a timer
// (docs/contract.md rule 2); this is a note about the card.
const cardLinger = 4 * time.Second

// recentKept is how long the nonce of a card that left the board is
// remembered, so that a late click is told why (409 "already answered",
// 410 "nobody waits") rather than "forged" (403).
const recentKept = 10 * time.Minute

// Bounds on what the registry holds, so a flood of hooks costs bounded
// memory: cards on the board, remembered nonces of cards gone, announced
// calls per row and rows with announced calls. None of them stops a new
// request from getting its card: at maxCards the oldest card that can
// least be answered goes (makeRoom), and the log says which.
const (
	maxCards      = 1000
	maxRecent     = 1000
	maxCallsOfRow = 16
	maxCallRows   = 1000
	maxDetail     = 300 // bytes of the command or path a card shows
)

// Card states.
const (
	// CardWaiting: the agent's hook is held; the board can answer.
	CardWaiting = "waiting"
	// CardTerminal: the board cannot answer (the hold ended, approvals are
	// off, the agent does not wait on its hook): answer in the agent.
	CardTerminal = "terminal"
	// CardAnswered: answered (By says where); shown briefly, then gone.
	CardAnswered = "answered"
)

// Who answered (the log's and the card's "by").
const (
	ByBoard    = "board"
	ByTerminal = "terminal"
	ByHold     = "hold-expired" // the hold ended with no answer: not a decision
	ByHookGone = "hook-gone"    // the agent stopped waiting on its hook
	ByHost     = "host-stopped" // the host stopped while it held the hook
	ByGone     = "agent-gone"   // the agent's process ended while it asked (procs.go)
	ByPush     = "push"         // a push notification's button (host/push)
	ByClosed   = "closed-out"   // the row was closed out (the ✕, manual.json) while it asked
	ByDropped  = "dropped"      // the board held maxCards: the oldest went for a new one
)

// Outcomes of a card (the log's "outcome"; approval.resolved's where the
// fold has one). "always" is an allow that also adds the session rule.
const (
	OutcomeAllowed    = "allowed"
	OutcomeAlways     = "always"
	OutcomeDenied     = "denied"
	OutcomeUnanswered = "unanswered" // the hold ended; the agent's prompt decides
	OutcomeMovedOn    = "moved-on"   // answered in the agent, which way is not known
	// OutcomeAnswered: a question answered (the answers are never logged).
	OutcomeAnswered = "answered"
	// OutcomeMode: allowed, and the session's permission mode switched
	// (a plan approved with auto-accept edits, "Allow and switch mode").
	OutcomeMode = "mode"
)

// Kinds of card: what the agent asks.
const (
	KindPermission = ""         // may it run a tool
	KindQuestion   = "question" // Claude Code's AskUserQuestion: pick or type answers
	KindPlan       = "plan"     // Claude Code's ExitPlanMode: approve the plan or keep planning
)

// Answer decisions a board click sends.
const (
	DecideAllow  = "allow"
	DecideDeny   = "deny"
	DecideAlways = "always"
	// DecideAnswer answers a question card (AnswerRequest.Answers).
	DecideAnswer = "answer"
	// DecideMode allows and switches the permission mode: the mode a
	// permission card offers, or accept edits for a plan.
	DecideMode = "mode"
)

// Errors Answer returns; package web maps them to statuses.
var (
	// ErrNonce: no card has this nonce for this session and call, or it
	// was used already (403).
	ErrNonce = errors.New("this approval is not known here, or its answer was already used")
	// ErrAnswered: the card was answered elsewhere first (409).
	ErrAnswered = errors.New("already answered in the terminal")
	// ErrNotHeld: the agent no longer waits on the board (409).
	ErrNotHeld = errors.New("the agent no longer waits on the board: answer in the terminal")
	// ErrApprovalsOff: --approvals off (403).
	ErrApprovalsOff = errors.New("approvals from the board are off (--approvals off)")
	// ErrAgentGone: the agent that asked has ended; nobody is waiting for
	// the answer (410).
	ErrAgentGone = errors.New("the agent that asked has ended: nobody waits for this answer")
	// ErrDecision: not a decision this card takes (400).
	ErrDecision = errors.New("not a decision this approval takes")
	// ErrRowClosed: the row was closed out while it asked; nobody waits
	// for the answer. It is an ErrAgentGone (410).
	ErrRowClosed error = rowClosed{}
)

type rowClosed struct{}

func (rowClosed) Error() string {
	return "this session was closed out while it asked: nobody waits for this answer"
}
func (rowClosed) Is(target error) bool { return target == ErrAgentGone }

// ApprovalConfig configures approvals from the board.
type ApprovalConfig struct {
	// Off: never hold a hook, never offer buttons (cards are read-only).
	Off bool
	// Hold is how long a hook is held; 0 is DefaultApprovalHold.
	Hold time.Duration
	// Linger is how long an answered card stays on the board; 0 is
	// cardLinger.
	Linger time.Duration
}

// Card is one approval as the board shows it.
type Card struct {
	Key     string // a random id for the page (not a secret)
	Session string // the row
	Call    string // the tool call's id ("" when no PreToolUse announced it)
	Agent   string
	Tool    string
	Detail  string // the command or path the call touches: one line, bounded
	Note    string // the agent's own description of the call: one line, bounded
	Always  string // the "always allow" label: the rules, or their count when they do not fit; "" offers none
	// AlwaysRules are every rule "always allow" grants, each in full: the
	// card shows them all (folded under the count when Always is one).
	AlwaysRules []string
	// Kind is what the card asks: KindPermission, KindQuestion, KindPlan.
	Kind string
	// Questions are a question card's questions, shown as text.
	Questions []hookjson.Question
	// Plan is a plan card's plan, as plain text with its lines (bounded).
	Plan string
	// Mode is the "allow and switch mode" button's words; "" offers none.
	// A waiting plan card always offers accept edits.
	Mode string
	// Files are the change an edit asks for (carddiff.go), bounded; nil
	// for a call that is no edit.
	Files []CardFile
	// Command is a shell call's whole command (its lines kept, bounded)
	// and Cwd the folder it runs in; "" when not known.
	Command, Cwd string
	Nonce        string // single use; "" when the board cannot answer
	State        string // CardWaiting | CardTerminal | CardAnswered
	Outcome      string // for CardAnswered
	By           string // for CardAnswered
	Since        time.Time
}

// AnswerRequest is a board click: the card it answers (nonce, bound to the
// session and the call) and the decision.
type AnswerRequest struct {
	Session, Call, Nonce string
	Decision             string // DecideAllow | DecideDeny | DecideAlways | DecideAnswer | DecideMode
	Message              string // a deny's reason, shown to the agent
	// Answers are a question card's answers, one per question in order
	// (a pointer, so that a request stays comparable with ==).
	Answers *[]hookjson.Choice
	// By is who answers: "" (ByBoard) a click on the board, ByPush a push
	// notification's button.
	By string
	// Device is where the answer was given, as the history keeps it
	// (RecordedAnswer.Device): a paired device's name at that moment, a
	// push channel's, "" for this computer or none known.
	Device string
	// OperationID is the answering request's operation id: the approval's
	// record, its history row and the hook reply it releases carry it.
	OperationID string
}

// ReleasedBy, on a held hook request's context (WithReleasedBy), is told
// the operation id of the answer that released it, so the hook's own
// completion record names the click it waited for.
type ReleasedBy struct{ ID string }

type releasedByKey struct{}

// WithReleasedBy returns ctx carrying rb.
func WithReleasedBy(ctx context.Context, rb *ReleasedBy) context.Context {
	return context.WithValue(ctx, releasedByKey{}, rb)
}

// MaxAnswerDevice bounds an answer's device, in bytes: a paired device's
// name (security.MaxDeviceName characters of up to 4 bytes), a push
// channel's ("ntfy " and its 32), or a hub's device "via the hub", with room.
const MaxAnswerDevice = 200

// AnswerDevice is d as an answer keeps it: one line of shown text
// (hookjson.OneLine: hidden characters spaces), at most MaxAnswerDevice
// bytes. The device comes from a request, a push service or another
// machine, and is shown on the History page and in exports.
func AnswerDevice(d string) string { return hookjson.OneLine(d, MaxAnswerDevice) }

// entry is a card and what the host needs to keep it honest.
type entry struct {
	Card
	parent     string          // the subagent's parent row, "" for a session's own row
	transcript string          // where the call's result will appear (Claude Code), "" none
	always     json.RawMessage // the suggestion echoed by "always"
	mode       json.RawMessage // the setMode update "allow and switch mode" sends
	ask        hookjson.Ask    // a question card's questions, to answer
	input      json.RawMessage // a plan card's tool input, echoed by its allow
	reason     string          // the row approval's reason, for a re-assert
	held       bool            // a hook request waits on done
	done       chan struct{}   // closed when answered or no longer held
	taken      chan struct{}   // closed when the held request has its reply
	reply      []byte          // the held request's answer (a board decision), nil: empty 2xx
	answered   time.Time
	device     string // where a board or push answer was given (AnswerRequest.Device)
	op         string // the answering request's operation id (AnswerRequest.OperationID)
}

// announced is a tool call announced by PreToolUse, kept to key the
// PermissionRequest that follows it.
type announced struct {
	id, tool string
	input    hookjson.Fields
	carded   bool
}

// approvals is the host's registry of cards. Its lock is never held while
// the board's is taken.
type approvals struct {
	cfg   ApprovalConfig
	board *Board
	log   *slog.Logger
	now   func() time.Time

	mu      sync.Mutex
	cards   map[string]*entry // by Key: pending and lingering; at most maxCards
	byNonce map[string]*entry // the nonces of cards in cards (not of one answered from the board)
	// recent are the nonces of cards that left the board, with what a
	// click is told (oldest first in recentQ); at most maxRecent, none
	// older than recentKept. A nonce answered from the board is not kept:
	// unknown is what a spent nonce is (403).
	recent  map[string]goneCard
	recentQ []string
	calls   map[string][]*announced // row → announced calls, oldest first
	agents  map[string]string       // row → agent, for the read-only note
	stop    chan struct{}
	stopped bool
	wake    chan string // transcripts to look at now ("" re-syncs the watch set)
}

func newApprovals(cfg ApprovalConfig, b *Board, log *slog.Logger) *approvals {
	if cfg.Hold <= 0 {
		cfg.Hold = DefaultApprovalHold
	}
	cfg.Hold = min(cfg.Hold, MaxApprovalHold)
	if cfg.Linger <= 0 {
		cfg.Linger = cardLinger
	}
	return &approvals{
		cfg: cfg, board: b, log: log, now: time.Now,
		cards: map[string]*entry{}, byNonce: map[string]*entry{}, recent: map[string]goneCard{},
		calls: map[string][]*announced{}, agents: map[string]string{},
		stop: make(chan struct{}), wake: make(chan string, 64),
	}
}

// randomToken is n random bytes, base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// holdable reports whether an agent's hook can carry the board's answer
// to a request for tool (its Spec's Answers, and tool not one of its
// OwnDialog).
func holdable(agent, tool string) bool {
	s, ok := registry.Get(agent)
	return ok && s.Answers && !slices.Contains(s.OwnDialog, tool)
}

// observe updates the registry for one hook (already applied to the board)
// and returns the card a PermissionRequest made when the caller is to wait
// on it (it holds and the board may answer; nil otherwise), and whether a
// card was answered.
func (a *approvals) observe(agent string, p hookjson.Payload, held bool) (*entry, bool) {
	if s, ok := registry.Get(agent); ok && s.Asks == adapters.AskOpenCodePlugin {
		return a.observeOpenCode(agent, p, held)
	}
	row := hookjson.ID(p.SessionID)
	parent := ""
	if p.AgentID != "" {
		parent, row = row, hookjson.SubagentID(p.SessionID, p.AgentID)
	}
	callID := p.String("tool_use_id")
	tool := hookjson.OneLine(p.String("tool_name"), hookjson.MaxTool)
	var asks asked
	if p.Event == claudecode.PermissionRequest && tool != "" {
		// What it asks for, read before the lock: an edit's file may be read.
		asks = a.askedFor(row, p.String("cwd"), p.String("tool_name"), p.Fields["tool_input"])
	}
	var e *entry
	var refresh []string
	moved := false
	a.mu.Lock()
	publish := a.noteAgent(row, agent)
	switch p.Event {
	case claudecode.PreToolUse:
		if callID != "" {
			var in hookjson.Fields
			json.Unmarshal(p.Fields["tool_input"], &in)
			a.announce(row, &announced{id: callID, tool: tool, input: in})
		}
		// Another call going out may mean the pending one was answered in
		// the terminal: look at its transcript now.
		for _, x := range a.cards {
			if x.Session == row && x.State != CardAnswered && x.Call != callID && x.transcript != "" {
				refresh = append(refresh, x.transcript)
			}
		}
	case claudecode.PermissionRequest:
		if tool == "" {
			break
		}
		a.makeRoom()
		e = a.card(agent, p, row, parent, tool, held)
		e.Files, e.Command, e.Cwd = asks.files, asks.command, asks.cwd
		publish = true
	case claudecode.PostToolUse, claudecode.PostToolUseFailure, claudecode.PermissionDenied:
		outcome := OutcomeAllowed
		switch {
		case p.Event == claudecode.PermissionDenied:
			outcome = OutcomeDenied
		case p.Bool("is_interrupt"):
			outcome = OutcomeMovedOn
		}
		for _, x := range a.pendingOf(row) {
			if (callID != "" && x.Call == callID) || (x.Call == "" && x.Tool == tool) {
				a.resolve(x, ByTerminal, outcome)
				publish, moved = true, true
			}
		}
		a.forget(row, callID)
	case claudecode.UserPromptSubmit, claudecode.Stop, claudecode.StopFailure, claudecode.SessionEnd,
		claudecode.SubagentStop, codex.Interrupt:
		for _, x := range a.cards {
			if x.State != CardAnswered && (x.Session == row || (p.Event == claudecode.SessionEnd && x.parent == row)) {
				a.resolve(x, ByTerminal, OutcomeMovedOn)
				publish, moved = true, true
			}
		}
		delete(a.calls, row)
	}
	if publish {
		a.publish()
	}
	watch := e != nil && e.transcript != ""
	if e != nil && !e.held {
		e = nil // nothing to wait on
	}
	a.mu.Unlock()
	for _, t := range refresh {
		a.look(t)
	}
	if watch {
		a.look("") // add its transcript to the watch set
	}
	return e, moved
}

// noteAgent remembers which agent a row is, for its read-only note; it
// reports whether that is news.
func (a *approvals) noteAgent(row, agent string) bool {
	if a.agents[row] == agent {
		return false
	}
	if len(a.agents) >= maxCallRows*4 {
		clear(a.agents)
	}
	a.agents[row] = agent
	return true
}

// announce records a call PreToolUse announced.
func (a *approvals) announce(row string, c *announced) {
	if _, ok := a.calls[row]; !ok && len(a.calls) >= maxCallRows {
		clear(a.calls)
	}
	list := append(a.calls[row], c)
	if len(list) > maxCallsOfRow {
		list = slices.Delete(list, 0, len(list)-maxCallsOfRow)
	}
	a.calls[row] = list
}

// forget drops an announced call whose result came.
func (a *approvals) forget(row, id string) {
	if id == "" {
		return
	}
	a.calls[row] = slices.DeleteFunc(a.calls[row], func(c *announced) bool { return c.id == id })
	if len(a.calls[row]) == 0 {
		delete(a.calls, row)
	}
}

// match finds the call a PermissionRequest asks about: the oldest announced
// call of the row for the same tool that has no card yet and whose input
// agrees with the request's on every member both carry (an agent may add a
// description to the request); else the newest such call of the tool.
func (a *approvals) match(row, tool string, input hookjson.Fields) string {
	var loose *announced
	for _, c := range a.calls[row] {
		if c.carded || c.tool != tool {
			continue
		}
		if agree(c.input, input) {
			c.carded = true
			return c.id
		}
		loose = c
	}
	if loose != nil {
		loose.carded = true
		return loose.id
	}
	return ""
}

// agree reports whether two inputs have equal values for every member both
// carry.
func agree(x, y hookjson.Fields) bool {
	for k, v := range x {
		if w, ok := y[k]; ok && !bytes.Equal(bytes.TrimSpace(v), bytes.TrimSpace(w)) {
			return false
		}
	}
	return true
}

// card makes the card of a PermissionRequest.
func (a *approvals) card(agent string, p hookjson.Payload, row, parent, tool string, held bool) *entry {
	var in hookjson.Fields
	json.Unmarshal(p.Fields["tool_input"], &in)
	e := &entry{
		Card: Card{
			Key: randomToken(9), Session: row, Agent: agent, Tool: tool,
			Call:   a.match(row, tool, in),
			Detail: hookjson.First(in, maxDetail, "command", "file_path", "notebook_path", "path", "url", "pattern"),
			Note:   hookjson.First(in, hookjson.MaxReason, "description"),
			State:  CardTerminal,
			Since:  a.now(),
		},
		parent: parent,
		reason: hookjson.Reason(p.Fields["tool_input"]),
		done:   make(chan struct{}),
		taken:  make(chan struct{}),
	}
	if a.offer(e, held) {
		if agent == claudecode.Agent {
			if s, ok := hookjson.Suggestion(p.Fields["permission_suggestions"]); ok {
				e.always, e.Always, e.AlwaysRules = s.Echo, s.Label, s.Rules
			}
			if m, ok := hookjson.ModeSuggestion(p.Fields["permission_suggestions"]); ok {
				e.mode, e.Mode = m.Echo, m.Label
			}
		}
	}
	if agent == claudecode.Agent && !e.kinded(tool, p.Fields["tool_input"]) && e.held {
		// A question or plan the board cannot show: its own dialog answers.
		delete(a.byNonce, e.Nonce)
		e.held, e.State, e.Nonce = false, CardTerminal, ""
	}
	if agent == claudecode.Agent && e.Call != "" {
		e.transcript = transcriptOf(p)
	}
	a.cards[e.Key] = e
	return e
}

// offer lets the board answer a new card when its hook request is held
// and may be (approvals on, the host not stopping, the agent's Spec
// Answers); it reports whether it does.
func (a *approvals) offer(e *entry, held bool) bool {
	if !held || a.cfg.Off || a.stopped || !holdable(e.Agent, e.Tool) {
		return false
	}
	e.held, e.State, e.Nonce = true, CardWaiting, randomToken(32)
	a.byNonce[e.Nonce] = e
	return true
}

// kinded makes a card of Claude Code's question or plan tool one of its
// kind. It reports false for such a call whose input is not as the tool's:
// the board cannot answer it (an allow without the answers, or without the
// plan echoed, is no answer), so its card says "answer in Claude Code".
func (e *entry) kinded(tool string, input json.RawMessage) bool {
	switch tool {
	case hookjson.ToolAskUserQuestion:
		a, ok := hookjson.ParseAsk(input)
		if ok {
			e.Kind, e.Questions, e.ask = KindQuestion, a.Questions, a
			e.always, e.Always, e.AlwaysRules, e.mode, e.Mode = nil, "", nil, nil, ""
		}
		return ok
	case hookjson.ToolExitPlanMode:
		p, ok := hookjson.ParsePlan(input)
		if ok {
			e.Kind, e.Plan, e.input = KindPlan, p.Text, p.Input()
			e.always, e.Always, e.AlwaysRules = nil, "", nil
			e.mode, e.Mode = hookjson.AcceptEdits, "Approve and auto-accept edits"
		}
		return ok
	}
	return true
}

// transcriptOf is where a Claude Code call's result is written: the
// session's transcript, or for a subagent its own, beside it.
func transcriptOf(p hookjson.Payload) string {
	t := p.TranscriptPath
	if t == "" || p.AgentID == "" {
		return t
	}
	if strings.ContainsAny(p.AgentID, `/\`) || p.AgentID == ".." {
		return ""
	}
	return filepath.Join(strings.TrimSuffix(t, filepath.Ext(t)), "subagents", "agent-"+p.AgentID+".jsonl")
}

// pendingOf lists a row's cards that are not answered, oldest first.
func (a *approvals) pendingOf(row string) []*entry {
	var out []*entry
	for _, x := range a.cards {
		if x.Session == row && x.State != CardAnswered {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(x, y *entry) int { return x.Since.Compare(y.Since) })
	return out
}

// resolve answers a card (the first answer wins: a card answered already
// is left alone), releases a held hook, logs the decision and lets the card
// linger. Called with a.mu held.
func (a *approvals) resolve(e *entry, by, outcome string) bool {
	if !a.settle(e, by, outcome) {
		return false
	}
	a.record(e, by, outcome, e.answered)
	a.linger(e)
	return true
}

// settle marks a card answered (unless it was already: the first answer
// wins), spends a board answer's nonce and releases a held hook. Called
// with a.mu held.
func (a *approvals) settle(e *entry, by, outcome string) bool {
	if e.State == CardAnswered {
		return false
	}
	now := a.now()
	e.State, e.By, e.Outcome, e.answered = CardAnswered, by, outcome, now
	if e.Nonce != "" && by == ByBoard {
		delete(a.byNonce, e.Nonce) // spent: a replay is unknown (403)
	}
	a.release(e)
	return true
}

// goneCard is what a click on a card that left the board is told.
type goneCard struct {
	session, call string
	err           error
	at            time.Time
}

// drop takes a card off the board and out of the registry; a click on it
// is told why for recentKept (remember). Called with a.mu held.
func (a *approvals) drop(e *entry) {
	if a.cards[e.Key] == e {
		delete(a.cards, e.Key)
	}
	if e.Nonce == "" || a.byNonce[e.Nonce] != e {
		return // none, or spent by a board answer
	}
	delete(a.byNonce, e.Nonce)
	var err error
	switch {
	case e.State != CardAnswered:
		err = ErrNotHeld
	case e.By == ByGone:
		err = ErrAgentGone
	case e.By == ByClosed:
		err = ErrRowClosed
	default:
		err = ErrAnswered
	}
	a.remember(e.Nonce, goneCard{session: e.Session, call: e.Call, err: err, at: a.now()})
}

// remember keeps a gone card's nonce, dropping the oldest beyond
// maxRecent or recentKept. Called with a.mu held.
func (a *approvals) remember(nonce string, g goneCard) {
	a.recent[nonce] = g
	a.recentQ = append(a.recentQ, nonce)
	for len(a.recentQ) > 0 {
		old, ok := a.recent[a.recentQ[0]]
		if ok && len(a.recent) <= maxRecent && g.at.Sub(old.at) <= recentKept {
			break
		}
		delete(a.recent, a.recentQ[0])
		a.recentQ = a.recentQ[1:]
	}
}

// makeRoom keeps the board under maxCards before a new card: the oldest
// card that can least be answered goes — one answered (lingering), else
// one the board can no longer answer, else the oldest that waits, whose
// hook is released with no decision (its agent's prompt decides) — and
// the log says which. Called with a.mu held.
func (a *approvals) makeRoom() {
	for len(a.cards) >= maxCards {
		var victim *entry
		rank := func(e *entry) int {
			switch e.State {
			case CardAnswered:
				return 0
			case CardTerminal:
				return 1
			}
			return 2
		}
		for _, e := range a.cards {
			if victim == nil || rank(e) < rank(victim) || (rank(e) == rank(victim) && e.Since.Before(victim.Since)) {
				victim = e
			}
		}
		a.log.Warn("approval card dropped for a newer one: the board holds a bounded number", "log_type", logx.TypeApproval,
			slog.Group("data", "agent", victim.Agent, "session", victim.Session, "call", victim.Call, "tool", victim.Tool,
				"state", victim.State, "sinceMs", victim.Since.UnixMilli(), "max", maxCards))
		if victim.State == CardWaiting {
			victim.State = CardTerminal
			a.release(victim)
			a.record(victim, ByDropped, OutcomeUnanswered, a.now())
		}
		a.drop(victim)
	}
}

// linger lets an answered card stay on the board for a moment, saying how
// it was answered, then drops it. Called with a.mu held.
func (a *approvals) linger(e *entry) {
	key := e.Key
	time.AfterFunc(a.cfg.Linger, func() {
		defer logx.Guard(a.log)() // the timer's own goroutine
		a.mu.Lock()
		if x := a.cards[key]; x == e {
			a.drop(e)
			a.publish()
		}
		a.mu.Unlock()
	})
}

// refusedInTerminal answers every pending card of row as denied in the
// terminal: the transcript says the human refused at the agent's prompt.
func (a *approvals) refusedInTerminal(row string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, e := range a.pendingOf(row) {
		if a.resolve(e, ByTerminal, OutcomeDenied) {
			n++
		}
	}
	if n > 0 {
		a.publish()
	}
}

// agentGone takes off the board, at once, every card of a row and of its
// subagents: the agent that asked has ended. A click on one is told so
// (ErrAgentGone), for as long as an answered card's nonce is kept. It
// returns how many cards went.
func (a *approvals) agentGone(row string) int { return a.rowGone(ByGone, row) }

// closed takes off the board, at once, every card of rows closed out (the
// ✕, a mark in manual.json) and of their subagents: nobody will answer
// them, and a held hook is released with no decision. A click on one is
// told so (ErrRowClosed).
func (a *approvals) closed(rows ...string) {
	for _, row := range rows {
		a.rowGone(ByClosed, row)
	}
}

// rowGone settles and drops every card of row and of its subagents, by
// by (ByGone, ByClosed), and forgets what is kept for the row.
func (a *approvals) rowGone(by, row string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, e := range a.cards {
		if e.Session != row && e.parent != row {
			continue
		}
		if a.settle(e, by, OutcomeUnanswered) {
			a.record(e, by, OutcomeUnanswered, e.answered)
		}
		a.drop(e)
		n++
	}
	delete(a.calls, row)
	_, known := a.agents[row]
	delete(a.agents, row)
	if n > 0 || known {
		a.publish()
	}
	return n
}

// release ends a card's hold, if it has one.
func (a *approvals) release(e *entry) {
	if e.held {
		e.held = false
		close(e.done)
	}
}

// record is the decision's one log record: never the tool's input.
func (a *approvals) record(e *entry, by, outcome string, now time.Time) {
	kind := e.Kind
	if kind == KindPermission {
		kind = "permission"
	}
	attrs := []any{"log_type", logx.TypeApproval}
	if e.op != "" {
		attrs = append(attrs, "operation_id", e.op)
	}
	a.log.Info("approval "+outcome, append(attrs, slog.Group("data",
		"agent", e.Agent, "session", e.Session, "call", e.Call, "tool", e.Tool, "kind", kind,
		"outcome", outcome, "by", by, "waitedMs", now.Sub(e.Since).Milliseconds()))...)
	if r := a.board.recorder(); r != nil {
		// e.device is set only by a board or push answer (answer): the
		// terminal, a hold's end and the rest have none.
		r.RecordAnswer(RecordedAnswer{Session: e.Session, Call: e.Call, Agent: e.Agent, Tool: e.Tool, By: by, Device: e.device, Outcome: outcome, Asked: e.Since, Answered: now, OperationID: e.op})
	}
}

// unhold turns a waiting card into a terminal one: the hold ended, the
// agent stopped waiting, or the host is stopping. Its nonce stays known, so
// a click is told 409, not 403.
func (a *approvals) unhold(e *entry, by string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e.State != CardWaiting {
		return
	}
	e.State = CardTerminal
	a.release(e)
	a.record(e, by, OutcomeUnanswered, a.now())
	a.publish()
}

// wait holds a hook request until the card is answered, the hold ends, the
// request goes (ctx) or the host stops; it returns the board's decision, or
// nil (an empty 2xx: the agent's own prompt decides).
func (a *approvals) wait(ctx context.Context, e *entry, hold time.Duration) []byte {
	defer close(e.taken)
	t := time.NewTimer(min(hold, a.cfg.Hold))
	defer t.Stop()
	select {
	case <-e.done:
		// The reply was set before done was closed, and never changes
		// after: the answer goes out without waiting on the registry's
		// lock (a board click holds it while it logs and redraws).
		if rb, _ := ctx.Value(releasedByKey{}).(*ReleasedBy); rb != nil && e.reply != nil {
			rb.ID = e.op
		}
		return e.reply
	case <-t.C:
		a.unhold(e, ByHold)
	case <-ctx.Done():
		a.unhold(e, ByHookGone)
	case <-a.stop:
		a.unhold(e, ByHost)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return e.reply
}

// shutdown releases every held hook with no answer: the agents fall back to
// their own prompts, and no card stays actionable.
func (a *approvals) shutdown() {
	a.mu.Lock()
	if !a.stopped {
		a.stopped = true
		close(a.stop)
	}
	a.mu.Unlock()
}

// answer is a board click.
func (a *approvals) answer(r AnswerRequest) (Card, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cfg.Off {
		return Card{}, ErrApprovalsOff
	}
	e := a.byNonce[r.Nonce]
	if e == nil {
		// A card that left the board: told why for a while (the map's
		// lookup matched the nonce exactly).
		if g, ok := a.recent[r.Nonce]; ok && g.session == r.Session && g.call == r.Call && a.now().Sub(g.at) <= recentKept {
			return Card{}, g.err
		}
		return Card{}, ErrNonce
	}
	if subtle.ConstantTimeCompare([]byte(e.Nonce), []byte(r.Nonce)) != 1 ||
		e.Session != r.Session || e.Call != r.Call {
		return Card{}, ErrNonce
	}
	switch {
	case e.State == CardAnswered && e.By == ByGone:
		return e.Card, ErrAgentGone
	case e.State == CardAnswered && e.By == ByClosed:
		return e.Card, ErrRowClosed
	case e.State == CardAnswered:
		return e.Card, ErrAnswered
	case e.State == CardTerminal:
		return e.Card, ErrNotHeld
	}
	d := hookjson.Decision{Behavior: hookjson.BehaviorAllow, Input: e.input}
	outcome := OutcomeAllowed
	switch r.Decision {
	case DecideAllow:
		if e.Kind == KindQuestion {
			return e.Card, ErrDecision // answered with answers, or declined
		}
	case DecideAnswer:
		if e.Kind != KindQuestion {
			return e.Card, ErrDecision
		}
		if r.Answers == nil {
			return e.Card, ErrDecision
		}
		in, err := e.ask.Answer(*r.Answers)
		if err != nil {
			return e.Card, fmt.Errorf("%w: %v", ErrDecision, err)
		}
		d.Input, outcome = in, OutcomeAnswered
	case DecideMode:
		if e.mode == nil {
			return e.Card, ErrDecision
		}
		d.Mode, outcome = e.mode, OutcomeMode
	case DecideAlways:
		if e.always == nil {
			return e.Card, ErrDecision
		}
		d.Always, outcome = e.always, OutcomeAlways
	case DecideDeny:
		d.Behavior, outcome = hookjson.BehaviorDeny, OutcomeDenied
		d.Message = hookjson.OneLine(r.Message, hookjson.MaxDecisionMessage)
		switch {
		case d.Message != "":
		case e.Kind == KindPlan:
			d.Message = "The user wants you to keep planning (from the notch board)."
		case e.Kind == KindQuestion:
			d.Message = "The user declined to answer from the notch board."
		default:
			d.Message = "The user denied this from the notch board."
		}
	default:
		return e.Card, ErrDecision
	}
	e.reply = d.JSON()
	by := ByBoard
	if r.By == ByPush {
		by = ByPush
	}
	e.device = AnswerDevice(r.Device)
	e.op = r.OperationID
	a.settle(e, by, outcome)
	card := e.Card
	// The held hook request answers first: the log record, and the redraw
	// that the card's change sends to every open tab, wait (briefly) until
	// it has its decision, so that they do not compete with it for the CPU.
	a.mu.Unlock()
	t := time.NewTimer(handoff)
	select {
	case <-e.taken:
	case <-t.C:
	}
	t.Stop()
	a.mu.Lock()
	a.record(e, by, outcome, e.answered)
	a.linger(e)
	a.publish()
	return card, nil
}

// handoff bounds how long a board click waits for the held hook request
// to take its decision before the card's change is logged and drawn.
const handoff = 50 * time.Millisecond

// Answer applies a board click: the held hook gets the decision (the first
// answer wins), and the row is resolved (allowed-once sets approvedAt).
func (h *Host) Answer(r AnswerRequest) (Card, error) {
	if err := h.takesInput(); err != nil {
		return Card{}, err
	}
	if h.board.ownsRemote(r.Session) {
		// Another machine holds the hook: the answer goes there, and is
		// applied by its own Answer (the same rules, its own nonce).
		if h.approvals.cfg.Off {
			return Card{}, ErrApprovalsOff
		}
		return h.board.remote.Answer(r)
	}
	c, err := h.approvals.answer(r)
	if err != nil {
		return c, err
	}
	h.board.answered(c.Session, c.Tool, c.Outcome != OutcomeDenied, h.approvals.now())
	h.approvals.reassert()
	return c, nil
}

// publish hands the board the cards it draws. Called with a.mu held.
func (a *approvals) publish() {
	cards := make([]Card, 0, len(a.cards))
	for _, e := range a.cards {
		cards = append(cards, e.Card)
	}
	slices.SortFunc(cards, func(x, y Card) int {
		if c := x.Since.Compare(y.Since); c != 0 {
			return c
		}
		return strings.Compare(x.Key, y.Key)
	})
	agents := make(map[string]string, len(a.agents))
	for k, v := range a.agents {
		agents[k] = v
	}
	a.board.setCards(CardSet{Cards: cards, Agents: agents, Off: a.cfg.Off})
}

// look asks the watcher to read a transcript now ("" re-syncs the set of
// transcripts it watches).
func (a *approvals) look(path string) {
	select {
	case a.wake <- path:
	default:
	}
}

// watched lists the transcripts of pending cards, with the calls awaited in
// each.
func (a *approvals) watched() map[string][]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string][]string{}
	for _, e := range a.cards {
		if e.State != CardAnswered && e.transcript != "" && e.Call != "" {
			out[e.transcript] = append(out[e.transcript], e.Call)
		}
	}
	return out
}

// fromTranscript applies what a transcript says of the calls awaited in it:
// a refusal at Claude Code's prompt (No / Esc) clears the card and the row's
// approval; a result of any other kind means the call ran (allowed in the
// terminal; its own hooks follow).
func (a *approvals) fromTranscript(path string, results map[string]claudecode.Result, now time.Time) {
	if len(results) == 0 {
		return
	}
	type fix struct {
		row, tool string
		refused   bool
		stopped   bool
	}
	var fixes []fix
	a.mu.Lock()
	for _, e := range a.cards {
		r, ok := results[e.Call]
		if !ok || e.transcript != path || e.State == CardAnswered {
			continue
		}
		outcome := OutcomeAllowed
		if r.Refused {
			outcome = OutcomeDenied
		}
		a.resolve(e, ByTerminal, outcome)
		fixes = append(fixes, fix{row: e.Session, tool: e.Tool, refused: r.Refused, stopped: r.Stopped})
	}
	if len(fixes) > 0 {
		a.publish()
	}
	a.mu.Unlock()
	for _, f := range fixes {
		a.board.settleApproval(f.row, f.tool, f.refused, f.stopped, now)
	}
	a.reassert()
}

// reassert keeps a row that still has a pending card asking: when one of
// two parallel calls is answered, the fold's one approval goes with it, but
// the row still waits on the other.
func (a *approvals) reassert() {
	type ask struct{ row, tool, reason string }
	var asks []ask
	a.mu.Lock()
	seen := map[string]bool{}
	for _, e := range a.cards {
		if e.State == CardAnswered || seen[e.Session] {
			continue
		}
		seen[e.Session] = true
		p := a.pendingOf(e.Session)
		last := p[len(p)-1]
		asks = append(asks, ask{e.Session, last.Tool, last.reason})
	}
	a.mu.Unlock()
	for _, x := range asks {
		a.board.askAgain(x.row, x.tool, x.reason, a.now())
	}
}

// CardSet is what the board draws of approvals: the cards, which agent
// each row is (its badge, its context meter's words, the note of a row
// whose approval has no card), and whether approvals are off.
type CardSet struct {
	Cards  []Card
	Agents map[string]string
	Off    bool
	// Steer are the rows that take Reply and Stop from the board
	// (steer.go): this machine's rows whose session runs in a tmux pane a
	// hook named, and on a hub the other machines' that say so; none
	// when SteerOff (--steer off).
	Steer    map[string]bool
	SteerOff bool
	// Whys are why rows stopped (why.go): this machine's, and on a hub
	// the other machines' as they say.
	Whys map[string]hookjson.Why
}

// setCards replaces the cards the board draws.
func (b *Board) setCards(c CardSet) {
	b.cards.Store(&c)
	b.changed()
}

// Cards is what the board draws of approvals: this machine's cards, and
// on a hub the other machines' (read-only when approvals are off here).
func (b *Board) Cards() CardSet {
	var own CardSet
	if c := b.cards.Load(); c != nil {
		own = *c
	}
	own.Steer, own.SteerOff = b.steerRows(), b.steerOff
	own.Agents = b.withRowAgents(own.Agents)
	own.Whys = b.Whys()
	if b.remote == nil {
		return own
	}
	return mergeCards(own, b.remote.Cards())
}

// mergeCards adds the other machines' cards to this machine's. With
// approvals off here, theirs are read-only too.
func mergeCards(own, other CardSet) CardSet {
	if len(other.Cards) == 0 && len(other.Agents) == 0 && len(other.Whys) == 0 && (len(other.Steer) == 0 || own.SteerOff) {
		return own
	}
	out := CardSet{Off: own.Off, SteerOff: own.SteerOff, Steer: own.Steer, Whys: own.Whys,
		Cards: slices.Concat(own.Cards, other.Cards), Agents: make(map[string]string, len(own.Agents)+len(other.Agents))}
	if len(other.Steer) > 0 && !own.SteerOff {
		out.Steer = make(map[string]bool, len(own.Steer)+len(other.Steer))
		for k := range own.Steer {
			out.Steer[k] = true
		}
		for k := range other.Steer {
			out.Steer[k] = true
		}
	}
	for k, v := range own.Agents {
		out.Agents[k] = v
	}
	for k, v := range other.Agents {
		out.Agents[k] = v
	}
	if len(other.Whys) > 0 {
		out.Whys = make(map[string]hookjson.Why, len(own.Whys)+len(other.Whys))
		for k, v := range own.Whys {
			out.Whys[k] = v
		}
		for k, v := range other.Whys {
			out.Whys[k] = v
		}
	}
	if own.Off {
		for i := len(own.Cards); i < len(out.Cards); i++ {
			if c := &out.Cards[i]; c.State == CardWaiting {
				c.State, c.Nonce = CardTerminal, ""
			}
		}
	}
	return out
}
