package claudecode

import (
	"strings"
	"testing"
	"time"
)

func TestInterrupted(t *testing.T) {
	since := time.Date(2026, 12, 2, 1, 10, 0, 0, time.UTC)
	user := func(ts, content string) string {
		return `{"type":"user","timestamp":"` + ts + `","message":{"role":"user","content":` + content + `}}`
	}
	marker := `[{"type":"text","text":"[Request interrupted by user]"}]`
	for _, tc := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"Esc while the model answers: the marker is the last line", []string{
			user("2026-12-02T01:10:01Z", `"scenario:slow Take your time."`),
			user("2026-12-02T01:10:05Z", marker)}, true},
		{"the marker as a string", []string{user("2026-12-02T01:10:05Z", `"[Request interrupted by user]"`)}, true},
		{"Esc during a tool: the text variant", []string{user("2026-12-02T01:10:05Z", `[{"type":"text","text":"[Request interrupted by user for tool use]"}]`)}, true},
		{"system and attachment lines after it do not hide it", []string{
			user("2026-12-02T01:10:05Z", marker), `{"type":"system","timestamp":"2026-12-02T01:10:06Z"}`, ``}, true},
		{"an interrupt before this turn began is not this turn's", []string{user("2026-12-02T01:09:59Z", marker)}, false},
		{"Claude Code's synthetic note on the aborted request after it", []string{
			user("2026-12-02T01:10:05Z", marker), `{"type":"assistant","timestamp":"2026-12-02T01:10:05Z","message":{"model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}`}, true},
		{"the model answered after it", []string{
			user("2026-12-02T01:10:05Z", marker), `{"type":"assistant","timestamp":"2026-12-02T01:10:07Z","message":{"content":[]}}`}, false},
		{"a new prompt after it", []string{
			user("2026-12-02T01:10:05Z", marker), user("2026-12-02T01:10:09Z", `"next"`)}, false},
		{"a subagent's interrupt is not the session's", []string{
			strings.Replace(user("2026-12-02T01:10:05Z", marker), `"type":"user"`, `"type":"user","isSidechain":true`, 1)}, false},
		{"a prompt that quotes the marker later in its text", []string{user("2026-12-02T01:10:05Z", `"why does it say [Request interrupted by user]?"`)}, false},
		{"torn and foreign lines", []string{`{"type":"user","timestamp":`, `not json`}, false},
		{"empty", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTranscript(t, strings.Join(tc.lines, "\n")+"\n")
			if got := Interrupted(path, since); got != tc.want {
				t.Errorf("Interrupted = %v, want %v", got, tc.want)
			}
		})
	}
	if Interrupted("relative.jsonl", since) || Interrupted("/no/such/file.jsonl", since) {
		t.Error("a path that is not a transcript read as interrupted")
	}
}

func FuzzInterruptedIn(f *testing.F) {
	f.Add([]byte(`{"type":"user","timestamp":"2026-12-02T01:10:05Z","message":{"content":"[Request interrupted by user]"}}` + "\n"))
	f.Add([]byte("{\"type\":\"assistant\"}\n{\n"))
	f.Fuzz(func(t *testing.T, buf []byte) {
		interruptedIn(buf, time.Time{})
	})
}
