// Package kilo is Kilo Code CLI to notch-web: an OpenCode fork, which
// keeps OpenCode's plugins, its event bus and its database, so all of
// notch-web's OpenCode adapter carries over through
// adapters/internal/ocplugin — the same plugin source (named kilo), the
// same map of its events (Map) and the same read of its database
// (Settled) — and only where Kilo keeps them differs: its plugin folders
// (~/.config/kilo/plugin/, a project's .kilo/plugin/) and its database
// (<XDG_DATA_HOME or ~/.local/share>/kilo/kilo.db).
//
// What Kilo Code CLI 7.7.7 does not tell: which process a row is (the
// plugin asks "notch-web hook kilo --origin" once, at load, and sends its
// answer with every payload). Its budget comes only from the row
// (docs/contract.md rule 1).
package kilo

import (
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/ocplugin"
)

// Agent is the adapter's name in URLs and commands:
// /agents-notch/hooks/kilo, "notch-web hook kilo".
const Agent = "kilo"

// display is its name for people.
const display = "Kilo Code CLI"

// Map maps one payload of the plugin (ocplugin.Map: Kilo sends
// OpenCode's events).
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	return ocplugin.Map(payload, lookup)
}

// Marker is the plugin's first line: the file is notch-web's.
var Marker = ocplugin.Marker(Agent, display)

// Plugin is the plugin notch-web writes for notch-web's executable exe and
// the host's base URL url (ocplugin.Plugin).
func Plugin(exe, url string) []byte { return ocplugin.Plugin(Agent, display, exe, url) }

// Database is Kilo's database, as the host's own environment says where
// its data lives; "" when it cannot tell. (Kilo names it kilo.db on its
// release channels; a build of another channel, kilo-<channel>.db.)
func Database() string { return ocplugin.Database("kilo", "kilo.db") }

// Settled reports how the latest turn of session ended, as Kilo's
// database says (ocplugin.SettledIn).
func Settled(session, _ string, since time.Time) (outcome string, ok bool) {
	return ocplugin.SettledIn(Database(), session, since)
}
