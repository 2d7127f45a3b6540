// Package push reaches the human away from the board: when a session needs
// them (and, per channel, when one fails or finishes) it sends a short,
// labelled message to each configured channel — Web Push to a device's
// installed board, an ntfy topic, a webhook — and withdraws it once the
// thing it announced is answered anywhere. The rules (docs/pushes.md): only
// when nobody is looking at a board, only after the row has waited the
// delay, one message per session per state change, a burst becomes one
// summary, quiet hours per channel, and never a secret in a log.
//
// The package knows no HTTP server: package web serves the routes (the
// service worker, subscriptions, the actions) and tells the engine who is
// looking.
package push

import (
	"context"
	"time"
)

// Kinds of message.
const (
	KindNeedsYou = "needs-you" // a session waits on the human
	KindFailed   = "failed"    // a session's turn ended in error
	KindFinished = "finished"  // a session's turn ended done
	KindLimits   = "limits"    // a plan window crossed a level, or a usage limit ended (host/ledger)
	KindSummary  = "summary"   // several sessions at once
	KindTest     = "test"      // "Send a test"
)

// Kinds lists every kind a channel can be set to send (KindSummary and
// KindTest follow the others).
var Kinds = []string{KindNeedsYou, KindFailed, KindFinished, KindLimits}

// defaultSend is what a channel sends when the file does not say.
var defaultSend = []string{KindNeedsYou, KindLimits}

// Action is a button on a message. One with a Cap answers a card: URL is
// absolute and the Cap a single-use capability bound to the card, its
// answer and the recipient it was minted for (a POST of {"cap": …}
// answers; caps.go). One without is a link: URL opens (a settled row's
// Reply: the board's reply box for that row).
type Action struct {
	ID    string // "allow" | "deny" | "option-N" | "reply"
	Label string // "Allow once" | "Deny" | an option's label | "Reply"
	URL   string // POST here, JSON body {"cap": Cap}; or, with no Cap, open it
	Cap   string // the capability itself; "" for a link
}

// Message is one push. Every text field is one line, bounded and
// text-ruled before it is built (no control or bidi characters): a channel
// sends it as it is, escaped for its own format.
type Message struct {
	// Tag names what the message is about: one per session (its row id),
	// or "summary". A later message with the same tag replaces it, and
	// Withdraw(tag) takes it away.
	Tag   string
	Kind  string
	Title string // "machine · project · agent — title"
	Body  string // what it asks, or how it ended
	URL   string // the board: where a click on the message goes
	At    time.Time
	// Mint returns the buttons for one recipient (a Web Push
	// subscription, an ntfy topic): a card's answers, each with its own
	// capability, or a settled row's Reply link; nil when the message
	// has none. recipient
	// is the channel's id for where it sends; device is the paired device
	// that recipient belongs to ("" for none).
	Mint func(recipient, device string) []Action
}

// Channel is where messages go. Send and Withdraw are called from the
// engine's own goroutine, one at a time per channel, with a bounded ctx.
type Channel interface {
	// Name is the channel's name as the settings file and the log say it
	// ("webpush", or an ntfy/webhook entry's name).
	Name() string
	// Send delivers m (to every recipient the channel has).
	Send(ctx context.Context, m Message) error
	// Withdraw takes back the message tagged tag, where the channel can
	// (a Web Push close message; ntfy's clear); a channel that cannot
	// does nothing and returns nil.
	Withdraw(ctx context.Context, tag string) error
}
