package copilot

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/tail"
	"github.com/notch-web/notch-web/state"
)

// Copilot CLI 1.0.102 writes a turn into the session file as it goes
// (checked in tmux against a stand-in model): "user.message" when the
// prompt is taken, an "assistant.turn_start" / "assistant.turn_end" pair
// for each model call of the turn (a turn with tools has several), then,
// as the turn ends, the Stop hook's own record, "hook.start" with
// data.hookType "agentStop" — written whether or not the hook reaches a
// host. A turn the human interrupted ends with "abort", one that failed
// on the model with "session.error"; neither runs Stop.

// hookStart is the record of a hook Copilot runs; agentStop is its Stop.
const (
	hookStart = "hook.start"
	agentStop = "agentStop"
	// userMessage is the prompt that opens a turn.
	userMessage = "user.message"
	// turnStart is a model call of the turn starting.
	turnStart = "assistant.turn_start"
)

// settledLine is the part of an events.jsonl line Settled reads.
type settledLine struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	AgentID   string    `json:"agentId"`
	Data      struct {
		HookType string `json:"hookType"`
	} `json:"data"`
}

// Settled reports how the latest turn of session ended, as its session
// file says (transcript, else the one SessionFile finds): its Stop ran
// (completed), the human aborted it (completed, as the board's interrupt
// is), or the model failed it (error) — when that end is stamped no
// earlier than since. ok is false while the turn is open (a prompt or a
// model call is the newest of these), or when the file cannot say.
func Settled(session, transcript string, since time.Time) (outcome string, ok bool) {
	if transcript == "" {
		transcript = SessionFile(session)
	}
	if transcript == "" {
		return "", false
	}
	tail.Lines(transcript, tail.DefaultLimits, func(line []byte) bool {
		if !bytes.Contains(line, []byte(`"type"`)) {
			return true
		}
		var l settledLine
		if json.Unmarshal(line, &l) != nil || l.AgentID != "" {
			return true
		}
		switch {
		case l.Type == userMessage, l.Type == turnStart:
			return false // open
		case l.Type == hookStart && l.Data.HookType == agentStop, l.Type == abort:
			outcome = state.OutcomeCompleted
		case l.Type == sessionError:
			outcome = state.OutcomeError
		default:
			return true
		}
		if l.Timestamp.Before(since) {
			outcome = ""
			return false
		}
		ok = true
		return false
	})
	return outcome, ok
}

// whyLine is the part of a session.error line Why reads.
type whyLine struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	AgentID   string    `json:"agentId"`
	Data      struct {
		HookType   string `json:"hookType"`
		ErrorType  string `json:"errorType"`
		Message    string `json:"message"`
		StatusCode int    `json:"statusCode"`
	} `json:"data"`
}

// Why reads why the latest turn of session failed, as its session file
// says (transcript, else the one SessionFile finds): its "session.error"
// line (data.message, data.statusCode, data.errorType), stamped no earlier
// than since. ok is false when the latest end is no error, or the file
// cannot say.
func Why(session, transcript string, since time.Time) (why hookjson.Why, ok bool) {
	if transcript == "" {
		transcript = SessionFile(session)
	}
	if transcript == "" {
		return hookjson.Why{}, false
	}
	tail.Lines(transcript, tail.DefaultLimits, func(line []byte) bool {
		if !bytes.Contains(line, []byte(`"type"`)) {
			return true
		}
		var l whyLine
		if json.Unmarshal(line, &l) != nil || l.AgentID != "" {
			return true
		}
		switch {
		case l.Type == userMessage, l.Type == turnStart, l.Type == abort,
			l.Type == hookStart && l.Data.HookType == agentStop:
			return false
		case l.Type == sessionError:
			if !l.Timestamp.Before(since) {
				status := ""
				if l.Data.StatusCode > 0 {
					status = "HTTP " + strconv.Itoa(l.Data.StatusCode)
				}
				why, ok = hookjson.WhyOf(l.Data.ErrorType, l.Data.Message, status), true
			}
			return false
		}
		return true
	})
	return why, ok
}
