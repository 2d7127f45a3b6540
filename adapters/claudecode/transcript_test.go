package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/tail"
	"github.com/notch-web/notch-web/state"
)

// line is one transcript line of type typ with a usage, as Claude Code
// writes an assistant message's content block.
func line(typ, requestID string, input, creation, read int64, extra string) string {
	return fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"type":%q,"requestId":%q,"message":{"model":"claude-sonnet-4-5","id":"msg","type":"message","role":"assistant","content":[{"type":"text","text":"…"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":12}}%s}`,
		typ, requestID, input, creation, read, extra)
}

// compactBoundary is the line Claude Code writes when a compaction is
// done: the context before it and what it left.
func compactBoundary(pre, post int64) string {
	return fmt.Sprintf(`{"parentUuid":null,"logicalParentUuid":"p","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","level":"info","compactMetadata":{"trigger":"manual","preTokens":%d,"postTokens":%d}}`, pre, post)
}

// compactSummary is the summary line that follows a compaction's boundary.
const compactSummary = `{"parentUuid":"c","isSidechain":false,"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued from a previous conversation…"}}`

const userLine = `{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"ok"}]}}`

// writeTranscript writes lines (each followed by a newline unless noEOL) to
// a .jsonl file in a temp dir and returns its path.
func writeTranscript(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "5d1f0c2e.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestContextTokens(t *testing.T) {
	big := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 100<<10) + `"}}`
	for _, tc := range []struct {
		name    string
		content string
		lim     tail.Limits
		want    int64
		ok      bool
	}{
		{"the latest assistant message", strings.Join([]string{
			line("assistant", "req_1", 10, 20, 30, ""), userLine,
			line("assistant", "req_2", 3, 1000, 400_000, ""), userLine, ""}, "\n"), tail.DefaultLimits, 401_003, true},
		{"one response over several lines counts once", strings.Join([]string{
			line("assistant", "req_1", 10, 20, 30, ""),
			line("assistant", "req_2", 5, 100, 1000, ""), userLine,
			line("assistant", "req_2", 5, 100, 1000, ""), ""}, "\n"), tail.DefaultLimits, 1105, true},
		{"an early partial usage of the same response is not the answer", strings.Join([]string{
			line("assistant", "req_2", 5, 100, 2000, ""),
			line("assistant", "req_2", 5, 0, 0, ""), ""}, "\n"), tail.DefaultLimits, 2105, true},
		{"sidechain and synthetic lines are skipped", strings.Join([]string{
			line("assistant", "req_1", 1, 2, 3, ""),
			strings.Replace(line("assistant", "req_s", 9, 9, 9, ""), `"isSidechain":false`, `"isSidechain":true`, 1),
			strings.Replace(line("assistant", "", 0, 0, 0, ""), "claude-sonnet-4-5", "<synthetic>", 1), ""}, "\n"), tail.DefaultLimits, 6, true},
		{"no requestId: the latest line", strings.Join([]string{
			line("assistant", "", 1, 1, 1, ""), line("assistant", "", 2, 2, 2, ""), ""}, "\n"), tail.DefaultLimits, 6, true},
		{"malformed and truncated lines are skipped", strings.Join([]string{
			line("assistant", "req_1", 7, 0, 0, ""), `{"type":"assistant","usage":`, "garbage \"usage\" \"assistant\"",
			line("assistant", "req_2", 1, 1, 1, "")[:60]}, "\n"), tail.DefaultLimits, 7, true},
		{"the line still being written has no newline", line("assistant", "req_1", 1, 1, 1, "") + "\n" + line("assistant", "req_2", 2, 2, 2, ""), tail.DefaultLimits, 6, true},
		{"a partial first line in the window is dropped", strings.Repeat("y", 50) + line("assistant", "req_1", 9, 9, 9, "") + "\n" + userLine + "\n",
			bytesLim(int64(len(userLine) + 1 + len(line("assistant", "req_1", 9, 9, 9, "")) + 1 - 10)), 0, false},
		{"a window that starts exactly at a line", "junk\n" + line("assistant", "req_1", 9, 9, 9, "") + "\n",
			bytesLim(int64(len(line("assistant", "req_1", 9, 9, 9, "")) + 1)), 27, true},
		// Claude Code 2.1.328's prompt_snapshot: ~64 KB right after the
		// reply; it cannot hide the reply's usage.
		{"a long line after the reply does not hide it", line("assistant", "req_1", 1, 1, 1, "") + "\n" + big + "\n" + userLine + "\n", tail.DefaultLimits, 3, true},
		{"a line beyond MaxLine is passed over", line("assistant", "req_1", 1, 1, 1, "") + "\n" + big + "\n",
			tail.Limits{MaxLines: 10, MaxBytes: 1 << 20, MaxLine: 1 << 10}, 3, true},
		{"bounded by entries", line("assistant", "req_1", 1, 1, 1, "") + "\n" + strings.Repeat(userLine+"\n", 5),
			tail.Limits{MaxLines: 5, MaxBytes: 1 << 20, MaxLine: 1 << 20}, 0, false},
		{"negative counts are 0, a huge sum is bounded", line("assistant", "req_1", -5, 1<<62, 1<<62, "") + "\n", tail.DefaultLimits, 1<<53 - 1, true},
		// After /compact (or an auto-compaction) the context is what the
		// compaction left, in its boundary line, not the last reply's
		// usage before it — until the next reply.
		{"a compaction after the reply: what it left", strings.Join([]string{
			line("assistant", "req_1", 3, 1000, 82_000, ""), userLine, compactBoundary(83_000, 9_000), compactSummary, big, ""}, "\n"), tail.DefaultLimits, 9_000, true},
		{"a reply after the compaction: its usage", strings.Join([]string{
			line("assistant", "req_1", 3, 1000, 82_000, ""), compactBoundary(83_000, 9_000), compactSummary,
			line("assistant", "req_2", 3, 200, 9_500, ""), ""}, "\n"), tail.DefaultLimits, 9_703, true},
		{"a compaction that says not what it left: nothing known, not the old figure", strings.Join([]string{
			line("assistant", "req_1", 3, 1000, 82_000, ""), strings.Replace(compactBoundary(83_000, 0), `,"postTokens":0`, "", 1), compactSummary, ""}, "\n"), tail.DefaultLimits, 0, true},
		{"a subagent's compaction is not the session's", strings.Join([]string{
			line("assistant", "req_1", 1, 1, 1, ""), strings.Replace(compactBoundary(83_000, 9_000), `"isSidechain":false`, `"isSidechain":true`, 1), ""}, "\n"), tail.DefaultLimits, 3, true},
		{"another system line is no compaction", line("assistant", "req_1", 1, 1, 1, "") + "\n" +
			`{"type":"system","subtype":"turn_duration","isSidechain":false,"content":"compact_boundary","durationMs":5}` + "\n", tail.DefaultLimits, 3, true},
		{"no assistant message", userLine + "\n", tail.DefaultLimits, 0, false},
		{"empty", "", tail.DefaultLimits, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := contextTokens(writeTranscript(t, tc.content), tc.lim, false)
			if got != tc.want || ok != tc.ok {
				t.Errorf("ContextTokens = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestContextTokensRefuses(t *testing.T) {
	good := writeTranscript(t, line("assistant", "r", 1, 1, 1, "")+"\n")
	if n, ok := ContextTokens(good); !ok || n != 3 {
		t.Fatalf("the control case: %d, %v", n, ok)
	}
	dir := t.TempDir()
	txt := filepath.Join(dir, "notes.txt")
	os.WriteFile(txt, []byte(line("assistant", "r", 1, 1, 1, "")+"\n"), 0o600)
	asDir := filepath.Join(dir, "dir.jsonl")
	os.Mkdir(asDir, 0o755)
	rel, _ := filepath.Rel(mustGetwd(t), good)
	for name, path := range map[string]string{
		"missing":       filepath.Join(dir, "missing.jsonl"),
		"not .jsonl":    txt,
		"a directory":   asDir,
		"relative path": rel,
		"empty path":    "",
	} {
		if n, ok := ContextTokens(path); ok || n != 0 {
			t.Errorf("%s: %d, %v", name, n, ok)
		}
	}
	if n, ok := contextTokens(good, tail.Limits{}, false); ok || n != 0 {
		t.Errorf("no limits: %d, %v", n, ok)
	}
}

// bytesLim is a walk bounded by bytes alone.
func bytesLim(n int64) tail.Limits {
	return tail.Limits{MaxLines: 1 << 20, MaxBytes: n, MaxLine: 1 << 20}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// BenchmarkContextTokens reads the tail of a 4 MiB transcript, as a host
// does on every hook.
func BenchmarkContextTokens(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 4<<20; i++ {
		sb.WriteString(line("assistant", fmt.Sprintf("req_%d", i), 3, 1000, int64(i), ""))
		sb.WriteString("\n")
		sb.WriteString(userLine)
		sb.WriteString("\n")
	}
	path := writeTranscript(b, sb.String())
	b.ResetTimer()
	for b.Loop() {
		if _, ok := ContextTokens(path); !ok {
			b.Fatal("no answer")
		}
	}
}

// FuzzLatestUsage: any tail of a transcript — torn lines, huge numbers,
// lines that are not JSON — gives a count in the vocabulary's range or
// nothing, never a panic.
func FuzzLatestUsage(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","requestId":"r","message":{"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3}}}` + "\n"))
	f.Add([]byte(`ge":{"input_tokens":5}}}` + "\n" + `{"type":"assistant","requestId":"a","message":{"usage":{"input_tokens":9e999}}}` + "\n"))
	f.Add([]byte("\n\n{}\n[1]\nnot json\n"))
	// A compaction's boundary, whole and odd.
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","isSidechain":false,"compactMetadata":{"trigger":"auto","preTokens":5,"postTokens":2}}` + "\n"))
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"postTokens":-7}}` + "\n" + `{"type":"system","subtype":"compact_boundary","compactMetadata":{"postTokens":1e400}}` + "\n"))
	f.Fuzz(func(t *testing.T, tail []byte) {
		for _, sidechain := range []bool{false, true} {
			n, ok := latestUsage(tail, sidechain)
			if ok && (n < 0 || n > state.MaxInteger) {
				t.Fatalf("latestUsage(sidechain %v) gave %d", sidechain, n)
			}
		}
	})
}

// TestSubagentContextTokens: every line of a subagent's own transcript is a
// sidechain line (Claude Code 2.1), so ContextTokens, which skips them, finds
// nothing there; SubagentContextTokens reads exactly them.
func TestSubagentContextTokens(t *testing.T) {
	side := func(s string) string { return strings.Replace(s, `"isSidechain":false`, `"isSidechain":true`, 1) }
	sub := writeTranscript(t, strings.Join([]string{
		side(line("assistant", "req_a", 3, 100, 2000, "")),
		side(userLine),
		side(line("assistant", "req_b", 4, 200, 5000, "")), ""}, "\n"))
	if n, ok := ContextTokens(sub); ok || n != 0 {
		t.Errorf("ContextTokens of a subagent transcript = %d, %v; want none (it skips sidechain lines)", n, ok)
	}
	if n, ok := SubagentContextTokens(sub); !ok || n != 5204 {
		t.Errorf("SubagentContextTokens = %d, %v; want 5204", n, ok)
	}
	if n, ok := Tokens(hookjson.Transcript{Path: sub, Sidechain: true}); !ok || n != 5204 {
		t.Errorf("Tokens(sidechain) = %d, %v; want 5204", n, ok)
	}
	main := writeTranscript(t, line("assistant", "req_1", 1, 2, 3, "")+"\n"+side(line("assistant", "req_s", 9, 9, 9, ""))+"\n")
	if n, ok := SubagentContextTokens(main); !ok || n != 27 {
		t.Errorf("SubagentContextTokens of a session's transcript = %d, %v; want its sidechain line's 27", n, ok)
	}
	if n, ok := Tokens(hookjson.Transcript{Path: main}); !ok || n != 6 {
		t.Errorf("Tokens(session) = %d, %v; want 6", n, ok)
	}
}
