package claudecode

import (
	"os"
	"path/filepath"
	"testing"
)

const refusedLine = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true}]},"toolUseResult":"User rejected tool use"}`

func TestScanResults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines string
		ids   []string
		want  map[string]Result
	}{
		{"a No at the prompt", refusedLine + "\n", []string{"toolu_1"}, map[string]Result{"toolu_1": {Refused: true, Error: true, Stopped: true}}},
		{"Esc, as text blocks", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}]}}` + "\n",
			[]string{"toolu_1"}, map[string]Result{"toolu_1": {Refused: true, Error: true, Stopped: true}}},
		{"a subagent's refusal carries on", `{"type":"user","isSidechain":true,"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"Permission for this tool use was denied. Try a different approach."}]}}` + "\n",
			[]string{"toolu_1"}, map[string]Result{"toolu_1": {Refused: true, Error: true}}},
		{"the tool ran", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}` + "\n",
			[]string{"toolu_1"}, map[string]Result{"toolu_1": {}}},
		{"the tool failed", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"exit 1","is_error":true}]}}` + "\n",
			[]string{"toolu_1"}, map[string]Result{"toolu_1": {Error: true}}},
		{"another call", refusedLine + "\n", []string{"toolu_2"}, nil},
		{"the refusal text inside an assistant line", `{"type":"assistant","message":{"content":[{"type":"text","text":"tool_result toolu_1 The user doesn't want to proceed"}]}}` + "\n", []string{"toolu_1"}, nil},
		{"a partial last line", refusedLine[:80], []string{"toolu_1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := scanResults([]byte(tc.lines), tc.ids)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Fatalf("%s: %+v, want %+v", k, got[k], v)
				}
			}
		})
	}
}

func TestToolResultsReadsTheTail(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	os.WriteFile(p, []byte(refusedLine+"\n"), 0o644)
	if r := ToolResults(p, []string{"toolu_1"}, ResultsTail); !r["toolu_1"].Refused {
		t.Fatalf("%v", r)
	}
	for _, bad := range []string{"s.jsonl", filepath.Join(dir, "nope.jsonl"), filepath.Join(dir, "s.txt"), dir} {
		if r := ToolResults(bad, []string{"toolu_1"}, ResultsTail); r != nil {
			t.Errorf("%s: %v", bad, r)
		}
	}
}

// scanResults never panics and reports only the calls asked about.
func FuzzScanResults(f *testing.F) {
	f.Add([]byte(refusedLine+"\n"), "toolu_1")                           // a refusal
	f.Add([]byte(`{"type":"user","message":{"content":"x"}}`+"\n"), "t") // a plain prompt
	f.Add([]byte("tool_result\n{\n"), "tool_result")                     // not JSON
	f.Fuzz(func(t *testing.T, buf []byte, id string) {
		for k := range scanResults(buf, []string{id}) {
			if k != id {
				t.Fatalf("reported %q, asked about %q", k, id)
			}
		}
	})
}
