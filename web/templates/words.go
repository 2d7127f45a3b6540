package templates

import (
	"context"
	"io"
	"strconv"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/state"
)

// activity is what the session does: the tool that is out, or a model turn
// (with the tool it follows, when there was one). It is on most rows of a
// busy board, so it is written here, the label escaped as templ would.
func activity(a state.Activity) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		m := newMarkup(w)
		writeActivity(m, a)
		return m.err
	})
}

// writeActivity writes activity(a).
func writeActivity(m *markup, a state.Activity) {
	switch a.Kind {
	case state.ActivityTool:
		m.raw(`<span class="activity" data-kind="tool"><span class="spinner" aria-hidden="true"></span> <span class="label">`)
	case state.ActivityThinking:
		if a.Label == "" {
			m.raw(thinkingWord)
			return
		}
		m.raw(`<span class="activity" data-kind="thinking">thinking <span class="after">after `)
	default:
		return
	}
	m.esc(a.Label)
	m.raw(`</span></span>`)
}

// thinkingWord is a model turn with no tool before it.
const thinkingWord = `<span class="activity" data-kind="thinking">thinking </span>`

// historyCount is "event" or "N events".
func historyCount(n int) string {
	if n == 1 {
		return "event"
	}
	return strconv.Itoa(n) + " events"
}

// RoleCan says what a device of the role can do, for the pairing page
// (docs/security.md's roles table, in words).
func RoleCan(role string) string {
	switch role {
	case "view":
		return "it can see the board and the history, and answer nothing"
	case "answer":
		return "it can see the board and answer approvals, questions and plans"
	case "steer":
		return "it can see the board, answer approvals, questions and plans, and Reply to and Stop sessions"
	case "launch":
		return "it can see the board, answer, Reply, Stop, and start sessions"
	}
	return "it can do nothing until its role is set on the host"
}
