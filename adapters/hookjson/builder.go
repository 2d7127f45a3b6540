package hookjson

import (
	"github.com/notch-web/notch-web/state"
)

// Builder collects one hook's events for the row the hook drives: the
// session's own row or, for a hook that carries an agent_id, the row of
// that subagent (SubagentID), whose parent is the session's row. Every
// string it copies from the payload goes through Clean or OneLine, so every
// event it emits validates.
type Builder struct {
	p      Payload
	lookup Lookup
	target string // the row this hook drives
	parent string // the subagent's parent row; "" for a session's own row
	events []state.Event
	tx     Transcript
	window int64
	why    Why
}

// NewBuilder starts the events of one hook. lookup may be nil.
func NewBuilder(p Payload, lookup Lookup) *Builder {
	b := &Builder{p: p, lookup: lookup, target: ID(p.SessionID)}
	if p.AgentID != "" {
		b.parent, b.target = b.target, SubagentID(p.SessionID, p.AgentID)
	}
	return b
}

// Subagent reports whether the hook drives a subagent's row.
func (b *Builder) Subagent() bool { return b.parent != "" }

// row is what the host holds for the target row.
func (b *Builder) row() (state.Session, bool) {
	if b.lookup == nil {
		return state.Session{}, false
	}
	return b.lookup(b.target)
}

// Pending is the approval the target row is waiting on, if any.
func (b *Builder) Pending() (state.Approval, bool) {
	s, ok := b.row()
	if !ok || s.Status != state.StatusAttention || s.Approval == nil {
		return state.Approval{}, false
	}
	return *s.Approval, true
}

// ToolOut is the tool whose call is out on the target row ("" when none is).
func (b *Builder) ToolOut() string {
	s, ok := b.row()
	if !ok || s.Activity == nil || s.Activity.Kind != state.ActivityTool {
		return ""
	}
	return s.Activity.Label
}

func (b *Builder) emit(ev state.Event) {
	ev.Session = b.target
	b.events = append(b.events, ev)
}

// opened is a session.opened for the target row from the payload: its cwd
// and the project named after it, and for a subagent its parent, origin and
// type (as its title).
func (b *Builder) opened(title string) state.Event {
	ev := state.Event{
		Type:    state.TypeSessionOpened,
		Session: b.target,
		Cwd:     Clean(b.p.Cwd, MaxCwd),
		// From the whole cwd, before it is cut: a cut path's last segment
		// is not the project.
		Project: OneLine(state.ProjectFromCwd(b.p.Cwd), MaxProject),
		Title:   OneLine(title, MaxTitle),
	}
	if b.parent != "" {
		ev.Origin, ev.Parent = state.OriginSubagent, b.parent
		if ev.Title == "" {
			ev.Title = OneLine(b.p.AgentType, MaxTitle)
		}
	}
	return ev
}

// Opened emits a session.opened for the target row (see Mapping.Open for
// the one applied only to an unheld row): it creates the row, or refreshes
// the cwd, project and title of a held one. title "" leaves the title.
func (b *Builder) Opened(title string) { b.events = append(b.events, b.opened(title)) }

// PromptTitle titles the session's row from the prompt the human typed
// (hookjson.PromptTitle: its first line, cleaned and bounded), unless the
// row already has a title (the agent's own, or an earlier prompt's) or the
// hook drives a subagent's row (titled by its type). Nothing is invented:
// a prompt with no text titles nothing.
func (b *Builder) PromptTitle(prompt string) {
	if b.Subagent() {
		return
	}
	if s, ok := b.row(); ok && s.Title != "" {
		return
	}
	if t := PromptTitle(prompt, MaxPromptTitle); t != "" {
		b.emit(state.Event{Type: state.TypeSessionTitled, Title: t})
	}
}

// Title titles the target row with the agent's own title for the session
// (OpenCode names its sessions itself), when it is one and differs from the
// row's: a repeat changes nothing.
func (b *Builder) Title(title string) {
	t := OneLine(title, MaxTitle)
	if t == "" {
		return
	}
	if s, ok := b.row(); ok && s.Title == t {
		return
	}
	b.emit(state.Event{Type: state.TypeSessionTitled, Title: t})
}

// Working reports whether the host holds the target row in a turn: working
// or waiting on the human.
func (b *Builder) Working() bool {
	s, ok := b.row()
	return ok && (s.Status == state.StatusWorking || s.Status == state.StatusAttention)
}

// Started is a session's (new) process starting: the row opens, or is
// refreshed, from the payload, and unless the start is a compaction (which
// can come in the middle of a turn) the row is idle: the agent waits for a
// prompt, so it shows done (not working, not needing you) until one comes.
// A new process also lives again after an end (docs/contract.md §7).
func (b *Builder) Started(title, source string) {
	b.Opened(title)
	if source != "compact" {
		b.TurnEnded(state.OutcomeCompleted)
	}
}

// TurnStarted emits turn.started.
func (b *Builder) TurnStarted() { b.emit(state.Event{Type: state.TypeTurnStarted}) }

// ToolStarted emits tool.started; nothing when tool is blank.
func (b *Builder) ToolStarted(tool string) {
	if t := OneLine(tool, MaxTool); t != "" {
		b.emit(state.Event{Type: state.TypeToolStarted, Tool: t})
	}
}

// ToolEnded emits tool.ended with outcome ok or error; nothing when tool is
// blank.
func (b *Builder) ToolEnded(tool, outcome string) {
	if t := OneLine(tool, MaxTool); t != "" {
		b.emit(state.Event{Type: state.TypeToolEnded, Tool: t, Outcome: outcome})
	}
}

// Ask emits approval.requested: the agent waits on the human. reason is
// made one line and cut to MaxReason. Nothing when tool is blank.
func (b *Builder) Ask(tool, reason string) {
	if t := OneLine(tool, MaxTool); t != "" {
		b.emit(state.Event{Type: state.TypeApprovalRequested, Tool: t, Reason: OneLine(reason, MaxReason)})
	}
}

// AskIfNone is Ask unless an approval is already pending on the row: a late
// notification of a prompt must not replace the request it announces.
func (b *Builder) AskIfNone(tool, reason string) {
	if _, ok := b.Pending(); !ok {
		b.Ask(tool, reason)
	}
}

// Tokens emits context.tokens for the target row when tokens is a count
// (> 0; bounded to what the vocabulary takes) that differs from the row's:
// a hook that repeats the count (one per streamed chunk) changes nothing.
func (b *Builder) Tokens(tokens int64) {
	if tokens <= 0 {
		return
	}
	ev := TokensEvent(b.target, tokens)
	if s, ok := b.row(); ok && s.ContextTokens == *ev.Tokens {
		return
	}
	b.emit(ev)
}

// Window notes the context window the hook reports for the target row
// (Mapping.Window), when it is a count (> 0, at most state.MaxInteger); it
// is no event: the row's budget stays the route's (docs/contract.md rule 1).
func (b *Builder) Window(size int64) {
	if size > 0 && size <= state.MaxInteger {
		b.window = size
	}
}

// Resolve emits approval.resolved with an outcome.
func (b *Builder) Resolve(outcome string) {
	b.emit(state.Event{Type: state.TypeApprovalResolved, Outcome: outcome})
}

// Progress resolves the pending approval, if any, because the agent moved on
// with a tool: the approved tool running means the human allowed it
// (allowed-once); another tool running means the request went away without
// a verdict we saw (cancelled: nothing is claimed).
func (b *Builder) Progress(tool string) {
	a, ok := b.Pending()
	if !ok {
		return
	}
	if a.ToolName == OneLine(tool, MaxTool) {
		b.Resolve(state.OutcomeAllowedOnce)
	} else {
		b.Resolve(state.OutcomeCancelled)
	}
}

// TurnEnded emits turn.ended with outcome completed or error.
func (b *Builder) TurnEnded(outcome string) {
	b.emit(state.Event{Type: state.TypeTurnEnded, Outcome: outcome})
}

// Failed ends the turn in error and says why (Mapping.Why): the agent's
// error code, its words and more of its text (WhyOf).
func (b *Builder) Failed(code, words string, more ...string) {
	b.TurnEnded(state.OutcomeError)
	b.Why(WhyOf(code, words, more...))
}

// Why notes why the target row's turn stopped (Mapping.Why), without an
// event; a zero w notes nothing.
func (b *Builder) Why(w Why) {
	if !w.IsZero() {
		b.why = w.Clean()
	}
}

// Interrupted ends the turn the human interrupted: the tool that was out
// (tool, else the row's) ends ok, for an interrupt is not the tool's error,
// and the turn ends completed, for the agent now waits on the human.
func (b *Builder) Interrupted(tool string) {
	if tool == "" {
		tool = b.ToolOut()
	}
	b.ToolEnded(tool, state.OutcomeOK)
	b.TurnEnded(state.OutcomeCompleted)
	b.Why(Why{Kind: WhyInterrupted})
}

// Ended emits session.ended (the agent's process ended: the row settles, a
// turn still open as an error, and its subagents with it), only for a row
// the host holds: a row opened just to say it ended would tell nothing.
// outcome "" lets the fold decide from the row (docs/contract.md §7).
func (b *Builder) Ended(outcome string) {
	if _, ok := b.row(); ok {
		b.emit(state.Event{Type: state.TypeSessionEnded, Outcome: outcome})
	}
}

// Held reports whether the host holds the target row.
func (b *Builder) Held() bool { _, ok := b.row(); return ok }

// MayBeInTurn reports whether the target row may be in a turn: it is
// working or waiting on the human, or the host does not hold it (a session
// it has not seen yet, whose turn it cannot know). A held row that is done
// or error has no turn open, so a late notification of a prompt must not
// make it "needs you" again.
func (b *Builder) MayBeInTurn() bool {
	s, ok := b.row()
	return !ok || s.Status == state.StatusWorking || s.Status == state.StatusAttention
}

// Transcript names the transcript at path (as sent) as the target row's.
func (b *Builder) Transcript(path string) {
	if path != "" {
		b.tx = Transcript{Path: path, Session: b.target}
	}
}

// SubagentTranscript names a subagent's own transcript at path as its row's:
// a file of sidechain lines (Transcript.Sidechain).
func (b *Builder) SubagentTranscript(path string) {
	if path != "" && b.Subagent() {
		b.tx = Transcript{Path: path, Session: b.target, Sidechain: true}
	}
}

// Mapping is the hook's Mapping. A hook with no events has no Open: it
// means nothing for the board, but it still names its transcript when the
// host holds the row (a late notification: the file may have grown since
// the last read). Otherwise Open holds
// what the events need to apply to unheld rows: the parent of a subagent,
// and the target row unless the events open it themselves.
func (b *Builder) Mapping() Mapping {
	if len(b.events) == 0 {
		if _, held := b.row(); held && b.tx.Path != "" {
			return Mapping{Transcript: b.tx}
		}
		return Mapping{}
	}
	m := Mapping{Events: b.events, Transcript: b.tx}
	if b.window > 0 {
		m.Window = Window{Session: b.target, Size: b.window}
	}
	if !b.why.IsZero() {
		m.Why = RowWhy{Session: b.target, Why: b.why}
	}
	if b.parent != "" {
		m.Open = append(m.Open, state.Event{
			Type:    state.TypeSessionOpened,
			Session: b.parent,
			Cwd:     Clean(b.p.Cwd, MaxCwd),
			Project: OneLine(state.ProjectFromCwd(b.p.Cwd), MaxProject),
		})
	}
	opensItself := false
	for _, ev := range b.events {
		if ev.Type == state.TypeSessionOpened && ev.Session == b.target {
			opensItself = true
		}
	}
	if !opensItself {
		m.Open = append(m.Open, b.opened(""))
	}
	return m
}
