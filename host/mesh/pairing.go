package mesh

import "errors"

// What a hub and the machines that join it share, built with or without the
// hub itself (hub.go, hub_omit.go).

// Buckets and the pairing service. The hub keeps each machine's latest
// board and its presence as KV entries keyed by its name; the machines
// themselves write none (names.go has their subjects).
const (
	boardsBucket   = "notch-boards"
	presenceBucket = "notch-presence"
	pairUser       = "notch-pair"
	hubUser        = "notch-hub"
	pairSubject    = "notch.pair."
)

// DefaultHubAddr is where the hub listens for machines: every interface,
// NATS's leaf port (machines live elsewhere; TLS and nkeys guard it).
const DefaultHubAddr = ":7422"

// pairInbox is the inbox prefix of a pairing connection.
func pairInbox(id string) string { return "_pair_" + id }

// pairRequest is what a joining machine sends; pairReply the answer.
type pairRequest struct {
	Name   string `json:"name"`
	Nkey   string `json:"nkey"`
	Secret string `json:"secret"` // the code's, again: the login's is not enough
}

type pairReply struct {
	OK    bool   `json:"ok"`
	Hub   string `json:"hub,omitempty"`
	Error string `json:"error,omitempty"`
}

// ErrNotPaired: revoking a machine the hub has not paired.
var ErrNotPaired = errors.New("no such paired machine")
