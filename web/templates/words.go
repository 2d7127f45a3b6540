package templates

import (
	"context"
	"io"
	"strconv"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/state"
)

// Words a board draws on every row, written from text made once instead of
// through templ's text expressions (which format each value anew): the
// status chip's word and the step count. Anything outside the prepared
// range is escaped and written as templ would.

// chipWords are statusWord's words for the four statuses, escaped.
var chipWords = func() map[string]templ.Component {
	out := map[string]templ.Component{}
	for _, st := range []string{state.StatusWorking, state.StatusAttention, state.StatusDone, state.StatusError} {
		out[st] = templ.Raw(templ.EscapeString(statusWord(st)))
	}
	return out
}()

// chipWord is the status chip's text for status.
func chipWord(status string) templ.Component {
	if c, ok := chipWords[status]; ok {
		return c
	}
	return text(statusWord(status))
}

// maxPreparedSteps bounds the step counts prepared ahead.
const maxPreparedSteps = 100

// stepWords are "1 step", "2 steps", … "99 steps".
var stepWords = func() []templ.Component {
	out := make([]templ.Component, maxPreparedSteps)
	for n := 1; n < maxPreparedSteps; n++ {
		out[n] = templ.Raw(stepsText(n))
	}
	return out
}()

func stepsText(n int) string {
	if n == 1 {
		return "1 step"
	}
	return strconv.Itoa(n) + " steps"
}

// stepsWord is a row's step count in words.
func stepsWord(n int) templ.Component {
	if n > 0 && n < maxPreparedSteps {
		return stepWords[n]
	}
	return text(stepsText(n))
}

// text writes s escaped, as a templ text expression would.
func text(s string) templ.Component { return templ.Raw(templ.EscapeString(s)) }

// writeStrings writes parts in order: markup a Go component assembles from
// fixed text and values it escaped itself.
func writeStrings(w io.Writer, parts ...string) error {
	for _, p := range parts {
		if _, err := io.WriteString(w, p); err != nil {
			return err
		}
	}
	return nil
}

// activity is what the session does: the tool that is out, or a model turn
// (with the tool it follows, when there was one). It is on most rows of a
// busy board, so it is written here, the label escaped as templ would.
func activity(a state.Activity) templ.Component {
	var head, tail string
	switch a.Kind {
	case state.ActivityTool:
		head, tail = `<span class="activity" data-kind="tool"><span class="spinner" aria-hidden="true"></span> <span class="label">`, `</span></span>`
	case state.ActivityThinking:
		if a.Label == "" {
			return thinkingWord
		}
		head, tail = `<span class="activity" data-kind="thinking">thinking <span class="after">after `, `</span></span>`
	default:
		return templ.NopComponent
	}
	label := a.Label
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		return writeStrings(w, head, templ.EscapeString(label), tail)
	})
}

// thinkingWord is a model turn with no tool before it.
var thinkingWord = templ.Raw(`<span class="activity" data-kind="thinking">thinking </span>`)
