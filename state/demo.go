package state

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DemoLoop is the length of one loop of DemoScript: its last close-out
// comes before it, so the next loop starts on an empty board.
const DemoLoop = 60 * time.Second

// DemoBudget is the context window the demo's token counts are scaled for:
// the busiest session crosses DefaultHotAt of it late in the loop. Nothing
// publishes it by itself — the budget is the row's fact, never the events'
// (docs/contract.md rule 1) — so `make run` gives the demo a row that says 1,000,000
// (examples/cordis.patch.yml); without one the board shows bare counts.
const DemoBudget int64 = 1_000_000

// TimedEvent is a scripted event and when to send it, relative to the start
// of its loop. Event.At is left 0: the player stamps it on sending, exactly
// as the events route stamps a harness's events.
type TimedEvent struct {
	After time.Duration
	Event Event
}

// DemoScript returns one loop (numbered loop, from 0) of the demo scenario,
// in sending order. It plays through the same fold a harness's events do
// and shows every field the board draws: five sessions across four projects
// (one named, three from a cwd, one of them a Windows path), a subagent
// under its parent, an approval allowed (approvedAt) and one rejected, an
// error streak of 1 then 2 then a clean result, context tokens climbing past
// half of DemoBudget, turns ending completed and one in error, and a
// session.finished for every session before DemoLoop. Session ids carry the
// loop number, so a late event of one loop can never land on the next.
func DemoScript(loop int) []TimedEvent {
	id := func(name string) string { return fmt.Sprintf("%s%d-%s", demoPrefix, loop, name) }
	var (
		hub   = id("sse-hub") // the busy parent
		sub   = id("sse-hub-survey")
		argon = id("argon")
		docs  = id("docs")
		bill  = id("billing")
	)
	var out []TimedEvent
	at := func(sec float64, ev Event) {
		out = append(out, TimedEvent{After: time.Duration(sec * float64(time.Second)), Event: ev})
	}
	ev := func(typ, session string) Event { return Event{V: EventVersion, Type: typ, Session: session} }
	tool := func(sec float64, session, name string) {
		e := ev(TypeToolStarted, session)
		e.Tool = name
		at(sec, e)
	}
	ended := func(sec float64, session, name, outcome string) {
		e := ev(TypeToolEnded, session)
		e.Tool, e.Outcome = name, outcome
		at(sec, e)
	}
	tokens := func(sec float64, session string, n int64) {
		e := ev(TypeContextTokens, session)
		e.Tokens = &n
		at(sec, e)
	}
	turnEnd := func(sec float64, session, outcome string) {
		e := ev(TypeTurnEnded, session)
		e.Outcome = outcome
		at(sec, e)
	}
	ask := func(sec float64, session, name, reason string) {
		e := ev(TypeApprovalRequested, session)
		e.Tool, e.Reason = name, reason
		at(sec, e)
	}
	answer := func(sec float64, session, outcome string) {
		e := ev(TypeApprovalResolved, session)
		e.Outcome = outcome
		at(sec, e)
	}
	open := func(sec float64, session string, fill func(*Event)) {
		e := ev(TypeSessionOpened, session)
		fill(&e)
		at(sec, e)
	}

	// The hub: opened untitled (the row shows "" until titled), a long
	// first turn with an allowed approval, tokens climbing past hotAt.
	open(0, hub, func(e *Event) { e.Cwd = "/home/dev/src/notch-web" })
	at(0.5, ev(TypeTurnStarted, hub))
	titled := ev(TypeSessionTitled, hub)
	titled.Title = "Wire the SSE hub to the board"
	at(1.5, titled)
	tool(2, hub, "grep")
	ended(3, hub, "grep", OutcomeOK)
	tokens(3.2, hub, 120_000)
	tool(5, hub, "edit")
	ended(6.5, hub, "edit", OutcomeOK)
	tokens(6.7, hub, 180_000)
	tool(10.5, hub, "bash")
	ask(11, hub, "bash", "rm -rf web/static/dist && make build")
	answer(16, hub, OutcomeAllowedOnce)
	ended(19, hub, "bash", OutcomeOK)
	tokens(19.2, hub, 260_000)
	tool(22, hub, "edit")
	ended(24, hub, "edit", OutcomeOK)
	tokens(24.2, hub, 340_000)
	tool(26, hub, "bash")
	ended(29, hub, "bash", OutcomeOK)
	tokens(29.2, hub, 420_000)
	turnEnd(30, hub, OutcomeCompleted)
	at(35, ev(TypeTurnStarted, hub))
	tool(36, hub, "web_fetch")
	ended(38, hub, "web_fetch", OutcomeOK)
	tokens(38.2, hub, 470_000)
	tool(40, hub, "edit")
	ended(42, hub, "edit", OutcomeOK)
	tokens(42.2, hub, 515_000)
	turnEnd(44, hub, OutcomeCompleted)

	// Its subagent: same colour, drawn under it.
	open(7, sub, func(e *Event) {
		e.Title, e.Cwd = "Survey Datastar patch semantics", "/home/dev/src/notch-web"
		e.Origin, e.Parent = OriginSubagent, hub
	})
	at(7.2, ev(TypeTurnStarted, sub))
	tool(8, sub, "web_fetch")
	ended(10, sub, "web_fetch", OutcomeOK)
	tool(14, sub, "grep")
	ended(15, sub, "grep", OutcomeOK)
	tokens(15.2, sub, 40_000)
	turnEnd(21, sub, OutcomeCompleted)

	// Argon, on a Windows path: confused (1), dizzy (2), then back.
	open(1, argon, func(e *Event) {
		e.Title, e.Cwd = "Argon 0/4 on laptop — fix", `C:\Users\me\Projects\blindKnifeArgon`
	})
	at(1.2, ev(TypeTurnStarted, argon))
	tool(4.5, argon, "bash")
	ended(6, argon, "bash", OutcomeError)
	tool(7.5, argon, "bash")
	ended(9, argon, "bash", OutcomeError)
	tool(12, argon, "edit")
	ended(13.5, argon, "edit", OutcomeOK)
	tokens(13.7, argon, 210_000)
	turnEnd(20, argon, OutcomeCompleted)
	at(32, ev(TypeTurnStarted, argon))
	tool(33, argon, "grep")
	ended(34, argon, "grep", OutcomeOK)
	tokens(34.2, argon, 236_000)
	turnEnd(38, argon, OutcomeCompleted)

	// Docs: a named project, and an approval the human rejects.
	open(3.5, docs, func(e *Event) {
		e.Title, e.Project, e.Cwd = "Refresh the protocol page", "dsh-docs", "/home/dev/notes"
	})
	at(4, ev(TypeTurnStarted, docs))
	tool(8, docs, "read_file")
	ended(9, docs, "read_file", OutcomeOK)
	ask(10, docs, "web_fetch", "GET https://example.com/protocol/v2")
	answer(17, docs, OutcomeRejected)
	tool(19, docs, "read_file")
	ended(20, docs, "read_file", OutcomeOK)
	tokens(20.2, docs, 64_000)
	turnEnd(25, docs, OutcomeCompleted)

	// Billing: a migration that fails and ends the turn in error.
	open(6, bill, func(e *Event) { e.Title, e.Cwd = "Migrate the invoices table", "/srv/billing-api/" })
	at(6.5, ev(TypeTurnStarted, bill))
	tool(11, bill, "bash")
	ended(13, bill, "bash", OutcomeOK)
	tokens(13.2, bill, 90_000)
	tool(18, bill, "bash")
	ended(21, bill, "bash", OutcomeError)
	turnEnd(22, bill, OutcomeError)

	// Close-out: the subagent first, then the rest, so the loop after this
	// one starts on an empty board.
	at(55, ev(TypeSessionFinished, sub))
	at(55.5, ev(TypeSessionFinished, hub))
	at(56.5, ev(TypeSessionFinished, bill))
	at(57.5, ev(TypeSessionFinished, docs))
	at(58.5, ev(TypeSessionFinished, argon))

	slices.SortStableFunc(out, func(a, b TimedEvent) int { return cmp.Compare(a.After, b.After) })
	return out
}

// demoPrefix starts every id DemoScript makes.
const demoPrefix = "demo-"

// IsDemoID reports whether a session id is one DemoScript makes.
func IsDemoID(id string) bool { return strings.HasPrefix(id, demoPrefix) }
