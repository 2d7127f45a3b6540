// Package hookjson holds what every agent adapter shares, so that each rule
// lives in one place: the Mapping an adapter returns and the Lookup it
// reads (mapping.go), the decoding of a hook payload's common fields and the
// refusal that is a 400 (payload.go), the cleaning and bounding of every
// string copied out of a payload and the row ids derived from session and
// subagent ids (clean.go), the one-line reason taken from a tool's input
// (reason.go), and the Builder that turns "this hook means that" into
// vocabulary v1 events, including the pending-approval rules (builder.go).
//
// It is pure: no I/O, no clock, no HTTP. The adapters (claudecode, codex,
// gemini) are thin switches over their agent's hook names on top of it.
package hookjson
