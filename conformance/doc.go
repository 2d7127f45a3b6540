// Package conformance holds the real-agent conformance suite: tests behind
// the "conformance" build tag that drive the real Claude Code, Codex and
// Gemini CLIs (pinned in package.json, installed by make conformance)
// against the stand-in model API (conformance/standin) and a real
// notch-web, and assert the board's rows after every step. Plain go test
// builds nothing here; docs/conformance.md says how to run it.
package conformance
