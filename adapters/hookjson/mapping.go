package hookjson

import "github.com/notch-web/notch-web/state"

// Lookup tells an adapter what the host holds for a row: the session as the
// fold has it, and whether the fold holds it at all. The host passes its
// fold's Session method, read under the same lock as the Apply that follows.
// An adapter reads it only to learn whether an approval is pending (and for
// which tool) and which tool is out; a nil Lookup holds nothing.
type Lookup func(id string) (state.Session, bool)

// Transcript names a file in which the host may find a row's latest context
// tokens (claudecode.ContextTokens reads it). The zero Transcript names none.
// Path is as the payload sent it: the host reads it, never shows it.
type Transcript struct {
	Path    string
	Session string // the row the tokens belong to
	// Sidechain is set for a subagent's own transcript, every line of
	// which is a sidechain line (Claude Code's isSidechain: true): those
	// are the lines to read, where a session's transcript skips them.
	Sidechain bool
}

// Mapping is what one hook means for the board.
type Mapping struct {
	// Open holds session.opened events built from the payload, each applied
	// only when the host does not hold its session yet (see Batch), so that
	// a host that restarted while the agent ran, or missed its SessionStart,
	// still gets the row. A subagent's parent comes before the subagent.
	// Empty when Events is.
	Open []state.Event
	// Events are the hook's events for the board, in order, applied after
	// Open. Empty for a hook that means nothing for the board (a hook name
	// the adapter does not know, or one it ignores).
	Events []state.Event
	// Transcript, when set, names where the row's latest context tokens can
	// be read. Reading it is I/O, so it is the host's to do, off the hook's
	// path; its answer goes in a context.tokens event (TokensEvent). A hook
	// that means nothing for the board may still name one, for a row the
	// host holds: the file may have grown since the last read.
	Transcript Transcript
	// Window, when its Size is set, is the context window the hook itself
	// reports for a row (Qwen Code's Stop: context_limit): the host keeps it
	// as an agent's reported window (agent.Spec.Window's), against which
	// the row's context bar is drawn when it has no budget.
	Window Window
	// Why, when its Session is set, is why the hook says a turn of a row
	// stopped (Claude Code's StopFailure, OpenCode's session.error): a
	// host-side fact beside the row, never an event (docs/contract.md).
	Why RowWhy
}

// RowWhy is a Why for a row.
type RowWhy struct {
	Session string
	Why
}

// Window is a row's context window as a hook reports it.
type Window struct {
	Session string
	Size    int64 // tokens, 1 … state.MaxInteger
}

// Batch is the events a host applies for m, in order: each Open event whose
// session has reports unheld (and no earlier event of the batch opened),
// then Events. At is left 0 for the receiver to stamp (state.Stamp).
func (m Mapping) Batch(has func(id string) bool) []state.Event {
	evs := make([]state.Event, 0, len(m.Open)+len(m.Events))
	opened := map[string]bool{}
	for _, ev := range m.Open {
		if opened[ev.Session] || (has != nil && has(ev.Session)) {
			continue
		}
		opened[ev.Session] = true
		evs = append(evs, ev)
	}
	return append(evs, m.Events...)
}

// TokensEvent is the context.tokens event for a row, with tokens bounded to
// what the vocabulary takes (0 … state.MaxInteger).
func TokensEvent(session string, tokens int64) state.Event {
	tokens = max(0, min(tokens, state.MaxInteger))
	return state.Event{Type: state.TypeContextTokens, Session: session, Tokens: &tokens}
}
