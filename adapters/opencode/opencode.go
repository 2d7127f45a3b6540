// Package opencode is OpenCode to notch-web: its Spec (spec.go), over
// adapters/internal/ocplugin, which it shares with its fork Kilo Code CLI
// (adapters/kilo): the plugin notch-web writes into OpenCode's plugin
// folder, the map of the events it forwards (Map, pure, tested with
// recorded payloads) and the read of OpenCode's database (Settled).
//
// OpenCode has no hooks in a settings file; it loads plugins (JS/TS files)
// from ~/.config/opencode/plugin/ and a project's .opencode/plugin/.
// notch-web writes one there, a file it owns whole, which POSTs a few of
// the events of OpenCode's bus to /agents-notch/hooks/opencode; ocplugin's
// package doc has the payload and the mapping.
//
// OpenCode's own database (opencode.db) says how a turn ended while the
// host was down (Settled): no event can, for none reaches a host that is
// not there.
//
// What OpenCode 1.18.33 does not tell: which process a row is (the plugin
// asks "notch-web hook opencode --origin" once, at load, and sends its
// answer with every payload). Its budget comes only from the row
// (docs/contract.md rule 1).
package opencode

import (
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/ocplugin"
)

// Agent is the adapter's name in URLs and commands:
// /agents-notch/hooks/opencode, "notch-web hook opencode".
const Agent = "opencode"

// The events the plugin forwards, by OpenCode's names (and the plugin's
// own), as ocplugin names them: the host's approvals read them
// (host/approvals_opencode.go), for OpenCode and its forks.
const (
	SessionCreated    = ocplugin.SessionCreated
	SessionUpdated    = ocplugin.SessionUpdated
	SessionStatus     = ocplugin.SessionStatus
	SessionIdle       = ocplugin.SessionIdle
	SessionError      = ocplugin.SessionError
	MessageUpdated    = ocplugin.MessageUpdated
	MessagePart       = ocplugin.MessagePart
	PermissionAsked   = ocplugin.PermissionAsked
	PermissionReplied = ocplugin.PermissionReplied
	Dispose           = ocplugin.Dispose
	Ask               = ocplugin.Ask
	Aborted           = ocplugin.Aborted
)

// Events are the events the plugin forwards, in order.
var Events = ocplugin.Events

// Map maps one payload of the plugin (ocplugin.Map).
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	return ocplugin.Map(payload, lookup)
}

// Rows makes a child session's payload its root's subagent (ocplugin.Rows).
func Rows(p hookjson.Payload) hookjson.Payload { return ocplugin.Rows(p) }

// Reason is a permission's one line (ocplugin.Reason).
func Reason(props hookjson.Fields) string { return ocplugin.Reason(props) }

// Database is OpenCode's database, as the host's own environment says
// where its data lives; "" when it cannot tell.
func Database() string { return ocplugin.Database("opencode", "opencode.db") }

// Settled reports how the latest turn of session ended, as OpenCode's
// database says (the plugin names no file: transcript is unused;
// ocplugin.SettledIn).
func Settled(session, _ string, since time.Time) (outcome string, ok bool) {
	return ocplugin.SettledIn(Database(), session, since)
}
