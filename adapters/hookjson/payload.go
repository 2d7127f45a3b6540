package hookjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/state"
)

// ErrPayload is the refusal an endpoint answers with 400: the body is not a
// hook payload at all. Errors from Decode and Object wrap it.
var ErrPayload = errors.New("not a hook payload")

// DecodeError says why a body is not a hook payload. It wraps ErrPayload.
type DecodeError struct{ Reason string }

// Error says "not a hook payload: why".
func (e *DecodeError) Error() string { return "not a hook payload: " + e.Reason }

// Unwrap lets errors.Is see ErrPayload.
func (e *DecodeError) Unwrap() error { return ErrPayload }

// Fields are a JSON object's members, read leniently: a member of another
// JSON type than the one asked for reads as absent. Agents add and change
// fields, and a hook must never fail over one the adapter does not need.
type Fields map[string]json.RawMessage

var bom = []byte("\xef\xbb\xbf")

// Object decodes a JSON object (a leading UTF-8 BOM is allowed). Anything
// else (an array, a string, null, not JSON, trailing data) is a
// *DecodeError, and so is an object, at any depth, that gives a key twice
// (internal/jsonx.Duplicate: the agent, a JavaScript reader, acts on the
// last, and what the board checked must be what the agent does).
func Object(data []byte) (Fields, error) {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, bom))
	if len(data) == 0 || data[0] != '{' {
		return nil, &DecodeError{"want a JSON object"}
	}
	var f Fields
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &DecodeError{"want a JSON object (" + strings.TrimPrefix(err.Error(), "json: ") + ")"}
	}
	if err := jsonx.Duplicate(data, jsonx.Exact); err != nil {
		return nil, &DecodeError{err.Error()}
	}
	return f, nil
}

// String is the member as a string, "" when it is absent or not a string.
func (f Fields) String(key string) string {
	var s string
	if raw, ok := f[key]; !ok || len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// Count is the member as a whole number ≥ 0 (a JSON number without a
// fraction or exponent that a JavaScript reader holds exactly), and whether
// it is one.
func (f Fields) Count(key string) (int64, bool) {
	raw := string(f[key])
	if raw == "" || len(raw) > 16 {
		return 0, false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n > state.MaxInteger {
		return 0, false
	}
	return n, true
}

// Bool is the member as a boolean, false when it is absent or not one.
func (f Fields) Bool(key string) bool { return string(f[key]) == "true" }

// Given reports whether the member is present and not null.
func (f Fields) Given(key string) bool {
	raw, ok := f[key]
	return ok && string(raw) != "null"
}

// Object is the member as an object, nil when it is absent or not one.
func (f Fields) Object(key string) Fields {
	raw := f[key]
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var o Fields
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	return o
}

// Payload is a hook payload: its members, and the fields every agent's hooks
// share, as sent (uncleaned: the Builder cleans what it copies).
type Payload struct {
	Fields
	SessionID      string // session_id
	Event          string // hook_event_name
	Cwd            string // cwd
	TranscriptPath string // transcript_path
	AgentID        string // agent_id: set inside a subagent
	AgentType      string // agent_type
}

// Decode reads a hook payload as Claude Code, Codex and Gemini CLI send it:
// a JSON object with a non-empty string session_id and a string
// hook_event_name. Anything else is a *DecodeError (the endpoint's 400).
// Other members are read leniently (see Fields).
func Decode(data []byte) (Payload, error) {
	f, err := Object(data)
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Fields:         f,
		SessionID:      f.String("session_id"),
		Event:          f.String("hook_event_name"),
		Cwd:            f.String("cwd"),
		TranscriptPath: f.String("transcript_path"),
		AgentID:        f.String("agent_id"),
		AgentType:      f.String("agent_type"),
	}
	switch {
	case !isString(f["session_id"]) && !isString(f["hook_event_name"]):
		return Payload{}, &DecodeError{"no string session_id nor hook_event_name"}
	case !isString(f["session_id"]):
		return Payload{}, &DecodeError{"no string session_id"}
	case p.SessionID == "":
		return Payload{}, &DecodeError{"session_id is empty"}
	case !isString(f["hook_event_name"]):
		return Payload{}, &DecodeError{"no string hook_event_name"}
	}
	return p, nil
}

func isString(raw json.RawMessage) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
}
