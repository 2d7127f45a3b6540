// Package ledger is the board's ledger of plan limits and of cost and
// tokens (docs/ledger.md): each plan figure is (agent, account if known,
// window, used %, resets at, as of, reported by which machine), and each
// cost or token count is added up per session, agent, machine and day.
//
// The rules are a pure step on a clock the caller passes (Book): nothing
// here reads the time or runs a timer. A figure past its window's reset is
// shown reset, never its old percentage; every figure carries its age and
// is stale once older than its agent's reporting cadence; the freshest
// reading of a window wins; the same account reported by two machines is
// one figure; a machine whose clock runs off is corrected by the time it
// says it sent the reading. Ledger is a Book behind a lock, with
// thresholds' pushes and a version the board's pages watch.
package ledger
