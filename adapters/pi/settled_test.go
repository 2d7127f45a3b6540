package pi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// Lines of a session file Pi 0.73.1 wrote (pi -p, scenario:tool, against
// the conformance stand-in), cut to the fields Settled reads and a few.
const (
	realHeader  = `{"type":"session","version":3,"id":"01a2515c-9817-7631-a45e-206d73c5b5f7","timestamp":"2026-12-07T16:35:52.524Z","cwd":"/tmp/px/proj"}`
	realPrompt  = `{"type":"message","id":"6400da9d","parentId":"4af96e15","timestamp":"2026-12-07T16:35:56.997Z","message":{"role":"user","content":[{"type":"text","text":"scenario:tool Create the marker file."}],"timestamp":1796661356930}}`
	realToolUse = `{"type":"message","id":"9d71b35f","parentId":"6400da9d","timestamp":"2026-12-07T16:35:59.098Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_standin_2","name":"bash","arguments":{"command":"touch conformance-tool.txt"}}],"stopReason":"toolUse","timestamp":1796661358000}}`
	realResult  = `{"type":"message","id":"d1499afd","parentId":"9d71b35f","timestamp":"2026-12-07T16:35:59.519Z","message":{"role":"toolResult","toolCallId":"toolu_standin_2","toolName":"bash","content":[{"type":"text","text":"(no output)"}],"isError":false,"timestamp":1796661359519}}`
	realAnswer  = `{"type":"message","id":"f438b41a","parentId":"d1499afd","timestamp":"2026-12-07T16:35:59.977Z","message":{"role":"assistant","content":[{"type":"text","text":"Done: the stand-in's final answer."}],"stopReason":"stop","timestamp":1796661359900}}`
)

// write is a session file of lines.
func write(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "2026-12-07T16-35-52-524Z_s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSettled(t *testing.T) {
	since := time.UnixMilli(1796661356930) // the prompt
	stopped := func(reason string) string {
		return `{"type":"message","message":{"role":"assistant","stopReason":"` + reason + `","timestamp":1796661359900}}`
	}
	for _, c := range []struct {
		name    string
		lines   []string
		since   time.Time
		outcome string // "" is not ok
	}{
		{"the answer stopped", []string{realHeader, realPrompt, realToolUse, realResult, realAnswer}, since, state.OutcomeCompleted},
		{"answered before since", []string{realHeader, realPrompt, realToolUse, realResult, realAnswer}, time.UnixMilli(1796661360000), ""},
		{"the tool runs", []string{realHeader, realPrompt, realToolUse}, since, ""},
		{"the tool's result, the model asked again", []string{realHeader, realPrompt, realToolUse, realResult}, since, ""},
		{"the prompt alone", []string{realHeader, realPrompt}, since, ""},
		{"interrupted", []string{realHeader, realPrompt, stopped("aborted")}, since, state.OutcomeCompleted},
		{"failed", []string{realHeader, realPrompt, stopped("error")}, since, state.OutcomeError},
		{"cut off at its length", []string{realHeader, realPrompt, stopped("length")}, since, state.OutcomeCompleted},
		{"a label after the answer", []string{realHeader, realPrompt, realAnswer, `{"type":"label","id":"x"}`}, since, state.OutcomeCompleted},
		{"not JSON", []string{realHeader, realPrompt, `{"type":`}, since, ""},
		{"the header alone", []string{realHeader}, since, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Settled(write(t, c.lines...), c.since)
			if (c.outcome != "") != ok || got != c.outcome {
				t.Errorf("Settled = %q, %v; want %q", got, ok, c.outcome)
			}
		})
	}
	for name, p := range map[string]string{"no file": filepath.Join(t.TempDir(), "none.jsonl"), "relative": "s.jsonl", "a folder": t.TempDir()} {
		if got, ok := Settled(p, since); ok {
			t.Errorf("%s: Settled = %q, true", name, got)
		}
	}
}
