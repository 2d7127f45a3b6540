package standin

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// post sends body to path and returns the status and the SSE data lines
// (or the whole body, when it is not a stream).
func post(t *testing.T, srv *httptest.Server, path, body string) (int, []string) {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	for sc.Scan() {
		l := sc.Text()
		if !stream {
			lines = append(lines, l)
		} else if d, ok := strings.CutPrefix(l, "data: "); ok {
			lines = append(lines, d)
		}
	}
	return resp.StatusCode, lines
}

func newTest(t *testing.T) (*Server, *httptest.Server) {
	s := New()
	srv := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); srv.Close() })
	return s, srv
}

const (
	claudeTools = `"tools":[{"name":"Bash"},{"name":"Agent"},{"name":"Read"}]`
	userTool    = `{"role":"user","content":[{"type":"text","text":"scenario:tool Create the file."}]}`
	toolUse     = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}`
	toolResult  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`
)

// chatTools is what Qwen Code offers (in part): its shell tool takes
// is_background, its subagent tool run_in_background.
const chatTools = `"tools":[{"type":"function","function":{"name":"run_shell_command","parameters":{"type":"object","properties":{"command":{},"description":{},"is_background":{}}}}},` +
	`{"type":"function","function":{"name":"agent","parameters":{"properties":{"description":{},"prompt":{},"subagent_type":{},"run_in_background":{}}}}}]`

const (
	planTools  = `"tools":[{"name":"Bash"},{"name":"Write"},{"name":"ToolSearch"}]`
	planSystem = `{"role":"system","content":[{"type":"text","text":"Primary working directory: /src/p\n\nThe following deferred tools are now available via ToolSearch:\nEnterPlanMode\nExitPlanMode\nMonitor\nNo plan file exists yet. You should create your plan at /h/me/.claude/plans/p.md using the Write tool."}]}`
	refused    = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Keep planning","is_error":true}]}`
)

// The scripts, per API: what each request is answered, by the data it
// streams (or the status it fails with).
func TestScripts(t *testing.T) {
	cases := []struct {
		name, path, body string
		status           int
		want             []string // substrings of the answer
	}{
		{"anthropic plain", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:plain hi"}]}`,
			200, []string{`"message_start"`, `"input_tokens":2000`, `"text_delta"`, FinalText, `"end_turn"`, `"message_stop"`}},
		{"anthropic tool, step 0 calls Bash", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[` + userTool + `]}`,
			200, []string{`"tool_use"`, `"name":"Bash"`, `input_json_delta`, `touch conformance-tool.txt`, `"tool_use"`}},
		{"anthropic tool, step 1 answers the result", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[` + userTool + `,` + toolUse + `,` + toolResult + `]}`,
			200, []string{`"input_tokens":2100`, FinalText, `"end_turn"`}},
		{"anthropic subagent calls Agent", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:subagent go"}]}`,
			200, []string{`"name":"Agent"`, `general-purpose`}},
		{"anthropic side request (no Bash) is plain", "/v1/messages?beta=true",
			`{"stream":true,"messages":[{"role":"user","content":"Title this: scenario:tool go"}]}`,
			200, []string{PlainText}},
		{"anthropic not streamed", "/v1/messages",
			`{"messages":[{"role":"user","content":"title"}]}`,
			200, []string{`"type":"message"`, PlainText}},
		{"anthropic 400", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:error400"}]}`,
			400, []string{`invalid_request_error`}},
		{"anthropic 500", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:error500"}]}`,
			500, []string{`api_error`}},
		{"anthropic not JSON", "/v1/messages", `{`, 400, []string{`invalid_request_error`}},
		{"anthropic ask calls AskUserQuestion", "/v1/messages?beta=true",
			`{"stream":true,"tools":[{"name":"Bash"},{"name":"AskUserQuestion"}],"messages":[{"role":"user","content":"scenario:ask pick"}]}`,
			200, []string{`"name":"AskUserQuestion"`, `Which colour should the button be?`, `\"multiSelect\":false`, `Teal`}},
		{"anthropic askmulti is multi-select", "/v1/messages?beta=true",
			`{"stream":true,"tools":[{"name":"Bash"},{"name":"AskUserQuestion"}],"messages":[{"role":"user","content":"scenario:askmulti pick"}]}`,
			200, []string{`Which checks should run?`, `\"multiSelect\":true`}},
		{"anthropic plan writes the plan file plan mode names", "/v1/messages?beta=true",
			`{"stream":true,` + planTools + `,"messages":[{"role":"user","content":"scenario:plan go"},` + planSystem + `]}`,
			200, []string{`"name":"Write"`, `/h/me/.claude/plans/p.md`, `# Plan`}},
		{"anthropic plan, step 1 calls the deferred ExitPlanMode", "/v1/messages?beta=true",
			`{"stream":true,` + planTools + `,"messages":[{"role":"user","content":"scenario:plan go"},` + planSystem + `,` + toolUse + `,` + toolResult + `]}`,
			200, []string{`"name":"ExitPlanMode"`}},
		{"anthropic plan, step 2 edits once approved", "/v1/messages?beta=true",
			`{"stream":true,` + planTools + `,"messages":[{"role":"user","content":"scenario:plan go"},` + planSystem + `,` + toolUse + `,` + toolResult + `,` + toolUse + `,` + toolResult + `]}`,
			200, []string{`"name":"Write"`, `/src/p/conformance-plan.txt`}},
		{"anthropic plan, step 2 answers a refused plan with text", "/v1/messages?beta=true",
			`{"stream":true,` + planTools + `,"messages":[{"role":"user","content":"scenario:plan go"},` + planSystem + `,` + toolUse + `,` + toolResult + `,` + toolUse + `,` + refused + `]}`,
			200, []string{FinalText}},

		{"openai tool asks to leave the sandbox", "/v1/responses",
			`{"stream":true,"tools":[{"type":"function","name":"shell_command","parameters":{"properties":{"sandbox_permissions":{}}}}],` +
				`"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"scenario:tool go"}]}]}`,
			200, []string{`"response.created"`, `"function_call"`, `"name":"shell_command"`, `require_escalated`, `"response.completed"`}},
		{"openai tool, step 1", "/v1/responses",
			`{"stream":true,"tools":[{"type":"function","name":"shell_command"}],` +
				`"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"scenario:tool go"}]},` +
				`{"type":"function_call","name":"shell_command"},{"type":"function_call_output","output":"ok"}]}`,
			200, []string{`"output_text"`, FinalText, `"input_tokens":2100`}},
		{"openai title helper (no tools) is plain", "/v1/responses",
			`{"stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Generate a concise, single-line task title: scenario:tool"}]}]}`,
			200, []string{PlainText, `"response.completed"`}},
		{"openai 500", "/v1/responses",
			`{"stream":true,"tools":[{"type":"function","name":"shell"}],"input":[{"type":"message","role":"user","content":"scenario:error500"}]}`,
			500, []string{`server_error`}},

		{"chat plain", "/v1/chat/completions",
			`{"model":"m","stream":true,"stream_options":{"include_usage":true},` + chatTools + `,"messages":[{"role":"system","content":"sys"},{"role":"user","content":"scenario:plain hi"}]}`,
			200, []string{`"chat.completion.chunk"`, FinalText, `"finish_reason":"stop"`, `"prompt_tokens":2000`, `[DONE]`}},
		{"chat tool calls the shell tool it offers", "/v1/chat/completions",
			`{"model":"m","stream":true,` + chatTools + `,"messages":[{"role":"user","content":[{"type":"text","text":"scenario:tool go"}]}]}`,
			200, []string{`"tool_calls"`, `"name":"run_shell_command"`, `touch conformance-tool.txt`, `\"is_background\":false`, `"finish_reason":"tool_calls"`, `[DONE]`}},
		{"chat tool, step 1 answers the result", "/v1/chat/completions",
			`{"model":"m","stream":true,"stream_options":{"include_usage":true},` + chatTools + `,"messages":[{"role":"user","content":"scenario:tool go"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"run_shell_command","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
			200, []string{FinalText, `"prompt_tokens":2100`}},
		{"chat subagent calls the agent tool", "/v1/chat/completions",
			`{"model":"m","stream":true,` + chatTools + `,"messages":[{"role":"user","content":"scenario:subagent go"}]}`,
			200, []string{`"name":"agent"`, `general-purpose`, `\"run_in_background\":false`}},
		{"chat OpenCode's bash tool", "/v1/chat/completions",
			`{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"bash","parameters":{"properties":{"command":{},"description":{}}}}}],"messages":[{"role":"user","content":"scenario:tool go"}]}`,
			200, []string{`"name":"bash"`, `\"description\":\"Create a marker file\"`}},
		{"chat not streamed", "/v1/chat/completions",
			`{"model":"m",` + chatTools + `,"messages":[{"role":"user","content":"scenario:tool go"}]}`,
			200, []string{`"object":"chat.completion"`, `"tool_calls"`, `"finish_reason":"tool_calls"`, `"prompt_tokens":2000`}},
		{"chat side request (no tools) is plain", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"Title this: scenario:tool"}]}`,
			200, []string{`"content":"` + PlainText + `"`}},
		{"chat 400", "/v1/chat/completions",
			`{"model":"m","stream":true,` + chatTools + `,"messages":[{"role":"user","content":"scenario:error400"}]}`,
			400, []string{`invalid_request_error`, `scenario:error400`}},
		{"chat 500", "/v1/chat/completions",
			`{"model":"m","stream":true,` + chatTools + `,"messages":[{"role":"user","content":"scenario:error500"}]}`,
			500, []string{`server_error`}},
		{"chat tool without a shell tool is text", "/v1/chat/completions",
			`{"model":"m","tools":[{"type":"function","function":{"name":"read_file"}}],"messages":[{"role":"user","content":"scenario:tool go"}]}`,
			200, []string{`"content":"` + FinalText + `"`}},
		{"chat not JSON", "/v1/chat/completions", `{`, 400, []string{`invalid_request_error`}},

		{"gemini tool", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
			`{"contents":[{"role":"user","parts":[{"text":"scenario:tool go"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
			200, []string{`"functionCall"`, `run_shell_command`, `"promptTokenCount":2000`}},
		{"gemini tool, step 1", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
			`{"contents":[{"role":"user","parts":[{"text":"scenario:tool go"}]},{"role":"model","parts":[{"functionCall":{}}]},{"role":"user","parts":[{"functionResponse":{}}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
			200, []string{FinalText, `"promptTokenCount":2100`}},
		{"gemini JSON side request", "/v1beta/models/gemini-2.5-flash:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"who speaks next? scenario:tool"}]}],"generationConfig":{"responseMimeType":"application/json"}}`,
			200, []string{`next_speaker`}},
		{"gemini 400", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
			`{"contents":[{"role":"user","parts":[{"text":"scenario:error400"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
			400, []string{`INVALID_ARGUMENT`}},
		{"gemini countTokens", "/v1beta/models/gemini-2.5-pro:countTokens", `{}`, 200, []string{`totalTokens`}},
		// The scripted failures, each as its API says it (failures.go).
		{"anthropic usage limit", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:limit429"}]}`,
			429, []string{`rate_limit_error`, `"resets_at":`}},
		{"anthropic bad key", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:auth401"}]}`,
			401, []string{`authentication_error`}},
		{"anthropic overloaded", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:overloaded"}]}`,
			529, []string{`overloaded_error`}},
		{"anthropic too long", "/v1/messages?beta=true",
			`{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:toolong"}]}`,
			400, []string{`prompt is too long`}},
		{"chat usage limit", "/v1/chat/completions",
			`{"model":"m","stream":true,` + chatTools + `,"messages":[{"role":"user","content":"scenario:limit429"}]}`,
			429, []string{`usage_limit_reached`, `"resets_in_seconds":`}},
		{"chat too long", "/v1/chat/completions",
			`{"model":"m","stream":true,` + chatTools + `,"messages":[{"role":"user","content":"scenario:toolong"}]}`,
			400, []string{`context_length_exceeded`}},
		{"gemini usage limit", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
			`{"contents":[{"role":"user","parts":[{"text":"scenario:limit429"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
			429, []string{`RESOURCE_EXHAUSTED`, `retryDelay`}},
		{"gemini bad key", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
			`{"contents":[{"role":"user","parts":[{"text":"scenario:auth401"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
			401, []string{`UNAUTHENTICATED`}},
		{"unknown path", "/v2/whatever", `{}`, 404, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, srv := newTest(t)
			status, lines := post(t, srv, c.path, c.body)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, lines)
			}
			all := strings.Join(lines, "\n")
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Fatalf("%q not found in:\n%s", w, all)
				}
			}
			for _, l := range lines {
				if strings.HasPrefix(l, "{") && !json.Valid([]byte(l)) {
					t.Errorf("not JSON: %s", l)
				}
			}
		})
	}
}

// The tag counts in the last user message that has one: a later
// conversation re-opened with text of its own (Claude Code's background
// subagent reporting) is answered with text, not a second tool call.
func TestReopenedConversationGetsText(t *testing.T) {
	s, srv := newTest(t)
	body := `{"stream":true,` + claudeTools + `,"messages":[` + userTool + `,` + toolUse + `,` + toolResult +
		`,{"role":"assistant","content":"done"},{"role":"user","content":"<task-notification>finished</task-notification>"}]}`
	status, lines := post(t, srv, "/v1/messages?beta=true", body)
	if status != 200 || !strings.Contains(strings.Join(lines, ""), FinalText) {
		t.Fatalf("status %d: %s", status, lines)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Scenario != Tool || reqs[0].Step != 2 {
		t.Fatalf("requests %+v", reqs)
	}
}

// The tool results of a request's last user message are kept (a refusal's
// reason is what the conformance suite looks for), as a string or as text
// blocks, bounded; an earlier message's results are not.
func TestResultsAreRecorded(t *testing.T) {
	s, srv := newTest(t)
	long := strings.Repeat("x", maxResultText+100)
	body := `{"stream":true,` + claudeTools + `,"messages":[` + userTool + `,` + toolUse + `,` + toolResult + `,` + toolUse +
		`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"The user said: not now"}]},` +
		`{"type":"tool_result","tool_use_id":"t3","content":"` + long + `"},{"type":"text","text":"aside"}]}]}`
	post(t, srv, "/v1/messages?beta=true", body)
	reqs := s.Requests()
	if len(reqs) != 1 || len(reqs[0].Results) != 2 {
		t.Fatalf("requests %+v", reqs)
	}
	r := reqs[0].Results
	if r[0] != (ToolResult{ID: "t2", Text: "The user said: not now", IsError: true}) {
		t.Errorf("first result %+v", r[0])
	}
	if r[1].ID != "t3" || len(r[1].Text) != maxResultText || r[1].IsError {
		t.Errorf("second result %s %d %v", r[1].ID, len(r[1].Text), r[1].IsError)
	}
	// A prompt in a string carries none.
	post(t, srv, "/v1/messages?beta=true", `{"stream":true,`+claudeTools+`,"messages":[{"role":"user","content":"scenario:plain hi"}]}`)
	if reqs := s.Requests(); len(reqs) != 2 || reqs[1].Results != nil {
		t.Fatalf("a plain prompt's results: %+v", reqs[1].Results)
	}
}

// After an interrupted tool, Claude Code 2.1.328 re-sends the subagent
// prompt with only a "system" notice after it (the Agent call is left
// out): that is the subagent's report, answered with text, not another
// Agent call (which loops for ever).
func TestSystemNoticeCountsAsAStep(t *testing.T) {
	s, srv := newTest(t)
	s.SlowFor = 100 * time.Millisecond
	body := `{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:subagent go"},` +
		`{"role":"system","content":[{"type":"text","text":"[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated background-task event, NOT a message from the user."}]}]}`
	_, lines := post(t, srv, "/v1/messages?beta=true", body)
	if all := strings.Join(lines, ""); !strings.Contains(all, FinalText) || strings.Contains(all, `"tool_use"`) {
		t.Fatalf("answered %s", all)
	}
	// Its environment, also sent as a "system" message, is no step.
	body = `{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:slow go"},` +
		`{"role":"system","content":[{"type":"text","text":"# Environment\nYou have been invoked in the following environment"}]}]}`
	status, lines := post(t, srv, "/v1/messages?beta=true", body)
	if status != 200 || strings.Contains(strings.Join(lines, ""), FinalText) {
		t.Fatalf("a slow turn after the environment notice answered %d %s", status, lines)
	}
}

// Two prompts in one user message (Claude Code after a refused tool): the
// last tag is the one asked.
func TestLastTagWins(t *testing.T) {
	s, srv := newTest(t)
	body := `{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":[` +
		`{"type":"text","text":"scenario:tool Create it again."},{"type":"text","text":"[Request interrupted by user for tool use]"},` +
		`{"type":"text","text":"scenario:plain Hello."}]}]}`
	post(t, srv, "/v1/messages?beta=true", body)
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].Scenario != Plain {
		t.Fatalf("requests %+v", reqs)
	}
}

// A slow turn holds the stream until the agent hangs up.
func TestSlowHoldsUntilTheClientHangsUp(t *testing.T) {
	s, srv := newTest(t)
	s.SlowFor = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/messages?beta=true",
		strings.NewReader(`{"stream":true,`+claudeTools+`,"messages":[{"role":"user","content":"scenario:slow"}]}`))
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_, err = bufio.NewReader(resp.Body).ReadString('\x00')
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("the slow turn ended by itself")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the slow turn held %v after the client hung up", d)
	}
}

// FuzzServe: whatever body an agent sends, the stand-in answers without
// panicking. Seeds: one request of each API, and broken ones.
func FuzzServe(f *testing.F) {
	for _, seed := range []struct{ path, body string }{
		{"/v1/messages", `{"stream":true,` + claudeTools + `,"messages":[` + userTool + `]}`},
		{"/v1/messages", `{"messages":[{"role":"user","content":[{"type":"text"}]}]}`},
		{"/v1/responses", `{"tools":[{"type":"function","name":"shell"}],"input":[{"role":"user","content":"scenario:tool"}]}`},
		{"/v1beta/models/m:streamGenerateContent", `{"contents":[{"role":"user","parts":[{"text":"scenario:subagent"}]}]}`},
		{"/v1/messages", `{"messages":[{"role":"user","content":7}]}`},
		{"/v1/responses", `[]`},
		{"/v1beta/models/m:generateContent", `null`},
		// Chat Completions: a streamed tool turn, a call's answer, and
		// broken ones (content of the wrong type, no messages).
		{"/v1/chat/completions", `{"stream":true,"stream_options":{"include_usage":true},` + chatTools + `,"messages":[{"role":"user","content":"scenario:tool"}]}`},
		{"/v1/chat/completions", `{` + chatTools + `,"messages":[{"role":"user","content":"scenario:subagent"},{"role":"assistant","tool_calls":[{}]},{"role":"tool","content":"x"}]}`},
		{"/v1/chat/completions", `{"tools":[{"function":{"name":"bash","parameters":7}}],"messages":[{"role":"user","content":{"text":1}}]}`},
		{"/v1/chat/completions", `{"messages":null}`},
	} {
		f.Add(seed.path, seed.body)
	}
	s := New()
	s.SlowFor = time.Millisecond
	f.Fuzz(func(t *testing.T, path, body string) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequest("POST", "http://standin"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code == 0 {
			t.Fatal("no status")
		}
	})
}

// Two tool turns of one conversation call with different ids, as a real
// model does (an agent keys a call's result by it).
func TestCallIDsAreNew(t *testing.T) {
	_, srv := newTest(t)
	body := `{"stream":true,` + claudeTools + `,"messages":[` + userTool + `]}`
	id := regexp.MustCompile(`"id":"(toolu_[^"]+)"`)
	_, a := post(t, srv, "/v1/messages?beta=true", body)
	_, b := post(t, srv, "/v1/messages?beta=true", body)
	x, y := id.FindStringSubmatch(strings.Join(a, "")), id.FindStringSubmatch(strings.Join(b, ""))
	if x == nil || y == nil || x[1] == y[1] {
		t.Fatalf("call ids %v and %v", x, y)
	}
}

// Release answers the held slow turns with the final text, for each API,
// as a completed answer (Anthropic: its message_start once, then the text
// and message_stop); a slow turn that comes after it is held again.
func TestReleaseAnswersTheHeldSlowTurns(t *testing.T) {
	for _, c := range []struct{ api, path, body, want string }{
		{"anthropic", "/v1/messages?beta=true", `{"stream":true,` + claudeTools + `,"messages":[{"role":"user","content":"scenario:slow"}]}`, `"type":"message_stop"`},
		{"openai", "/v1/responses", `{"tools":[{"type":"function","name":"shell"}],"input":[{"role":"user","content":"scenario:slow"}]}`, `"type":"response.completed"`},
		{"gemini", "/v1beta/models/m:streamGenerateContent?alt=sse", `{"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}],"contents":[{"role":"user","parts":[{"text":"scenario:slow"}]}]}`, `"finishReason":"STOP"`},
		{"chat", "/v1/chat/completions", `{"stream":true,` + chatTools + `,"messages":[{"role":"user","content":"scenario:slow"}]}`, `"finish_reason":"stop"`},
		{"chat unary", "/v1/chat/completions", `{` + chatTools + `,"messages":[{"role":"user","content":"scenario:slow"}]}`, `"finish_reason":"stop"`},
		{"gemini unary", "/v1beta/models/m:generateContent", `{"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}],"contents":[{"role":"user","parts":[{"text":"scenario:slow"}]}]}`, `"finishReason":"STOP"`},
	} {
		t.Run(c.api, func(t *testing.T) {
			s, srv := newTest(t)
			s.SlowFor = time.Minute
			type answer struct {
				status int
				lines  []string
			}
			got := make(chan answer, 1)
			go func() {
				status, lines := post(t, srv, c.path, c.body)
				got <- answer{status, lines}
			}()
			deadline := time.Now().Add(10 * time.Second)
			for s.Held("scenario:slow") != 1 {
				if time.Now().After(deadline) {
					t.Fatalf("the slow turn is not held (Held %d)", s.Held("scenario:slow"))
				}
				time.Sleep(10 * time.Millisecond)
			}
			// Another test's tag neither counts it nor releases it.
			if n, m := s.Held("run 2."), s.Release("run 2."); n != 0 || m != 0 {
				t.Errorf("another tag: Held %d, Release %d, want 0, 0", n, m)
			}
			if n := s.Release("scenario:slow"); n != 1 {
				t.Errorf("Release released %d, want 1", n)
			}
			var a answer
			select {
			case a = <-got:
			case <-time.After(10 * time.Second):
				t.Fatal("the released turn did not end")
			}
			all := strings.Join(a.lines, "\n")
			if a.status != http.StatusOK || !strings.Contains(all, FinalText) || !strings.Contains(all, c.want) {
				t.Fatalf("released: %d\n%s", a.status, all)
			}
			if n := strings.Count(all, `"type":"message_start"`); c.api == "anthropic" && n != 1 {
				t.Errorf("%d message_start events, want 1", n)
			}
			if n := s.Held("scenario:slow"); n != 0 {
				t.Errorf("Held %d after the release", n)
			}
			// The release is of the turns held then: the next is held.
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+c.path, strings.NewReader(c.body))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil {
					t.Error("a slow turn after the release was not held")
				}
			}
		})
	}
}

// Claude Code's prompt grows with the model's earlier answers and shrinks
// when they are compacted into a summary: the context a reader shows
// after /compact is smaller.
func TestAnthropicContextGrowsWithTheConversation(t *testing.T) {
	_, srv := newTest(t)
	inputTokens := func(messages string) int {
		t.Helper()
		_, lines := post(t, srv, "/v1/messages?beta=true", `{"stream":true,`+claudeTools+`,"messages":[`+messages+`]}`)
		for _, l := range lines {
			var ev struct {
				Type    string `json:"type"`
				Message struct {
					Usage struct {
						InputTokens int `json:"input_tokens"`
					} `json:"usage"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(l), &ev) == nil && ev.Type == "message_start" {
				return ev.Message.Usage.InputTokens
			}
		}
		t.Fatalf("no message_start: %v", lines)
		return 0
	}
	first := inputTokens(`{"role":"user","content":"scenario:plain one"}`)
	third := inputTokens(`{"role":"user","content":"scenario:plain one"},{"role":"assistant","content":"a"},` +
		`{"role":"user","content":"scenario:plain two"},{"role":"assistant","content":"b"},{"role":"user","content":"scenario:plain three"}`)
	compacted := inputTokens(`{"role":"user","content":"This session is being continued. Summary: a, b."},{"role":"user","content":"scenario:plain four"}`)
	if first != InputTokens(0) || third != InputTokens(0)+2*EarlierAnswerTokens || compacted != InputTokens(0) {
		t.Errorf("input tokens: first %d, third %d, after compaction %d; want %d, %d, %d", first, third, compacted,
			InputTokens(0), InputTokens(0)+2*EarlierAnswerTokens, InputTokens(0))
	}
	// A tool step's own answer is its step's (InputTokens), not an earlier one.
	if got := inputTokens(userTool + `,` + toolUse + `,` + toolResult); got != InputTokens(1) {
		t.Errorf("a tool turn's second step reports %d, want %d", got, InputTokens(1))
	}
}

// A Chat Completions stream is what an OpenAI SDK puts back together: one
// role, the text or one call (its id and name first, then its arguments as
// JSON), the finish reason, the usage last when asked for, then [DONE].
func TestChatStreamAssembles(t *testing.T) {
	for _, c := range []struct {
		name, prompt string
		usage        bool
		wantText     string
		wantCall     string
		wantFinish   string
	}{
		{"text with usage", "scenario:plain hi", true, FinalText, "", "stop"},
		{"call without usage", "scenario:tool go", false, "", "run_shell_command", "tool_calls"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, srv := newTest(t)
			body := `{"model":"m","stream":true,"stream_options":{"include_usage":` + map[bool]string{true: "true", false: "false"}[c.usage] + `},` +
				chatTools + `,"messages":[{"role":"user","content":"` + c.prompt + `"}]}`
			status, lines := post(t, srv, "/v1/chat/completions", body)
			if status != 200 || len(lines) == 0 || lines[len(lines)-1] != "[DONE]" {
				t.Fatalf("status %d, lines %q", status, lines)
			}
			var text, name, args, finish, callID string
			usage := 0
			for i, l := range lines[:len(lines)-1] {
				var ch struct {
					Choices []struct {
						Delta struct {
							Content   string `json:"content"`
							ToolCalls []struct {
								ID       string `json:"id"`
								Function struct {
									Name      string `json:"name"`
									Arguments string `json:"arguments"`
								} `json:"function"`
							} `json:"tool_calls"`
						} `json:"delta"`
						FinishReason *string `json:"finish_reason"`
					} `json:"choices"`
					Usage *struct {
						PromptTokens int `json:"prompt_tokens"`
					} `json:"usage"`
				}
				if err := json.Unmarshal([]byte(l), &ch); err != nil {
					t.Fatalf("line %d: %v: %s", i, err, l)
				}
				if ch.Usage != nil {
					if len(ch.Choices) != 0 || i != len(lines)-2 {
						t.Errorf("usage on line %d of %d, with %d choices", i, len(lines), len(ch.Choices))
					}
					usage = ch.Usage.PromptTokens
				}
				for _, choice := range ch.Choices {
					text += choice.Delta.Content
					for _, tc := range choice.Delta.ToolCalls {
						callID += tc.ID
						name += tc.Function.Name
						args += tc.Function.Arguments
					}
					if choice.FinishReason != nil {
						finish = *choice.FinishReason
					}
				}
			}
			if text != c.wantText || name != c.wantCall || finish != c.wantFinish {
				t.Errorf("text %q, call %q, finish %q; want %q, %q, %q", text, name, finish, c.wantText, c.wantCall, c.wantFinish)
			}
			if c.wantCall != "" {
				var a map[string]any
				if err := json.Unmarshal([]byte(args), &a); err != nil || a["command"] != ToolCommand || callID == "" {
					t.Errorf("call %q arguments %q (%v)", callID, args, err)
				}
			}
			if want := map[bool]int{true: InputTokens(0)}[c.usage]; usage != want {
				t.Errorf("usage %d, want %d", usage, want)
			}
		})
	}
}

// A Chat Completions request's tool messages after its last assistant
// message are its results (Qwen Code's refusal from a hook's deny), in
// order, bounded; a request with none after it carries none.
func TestChatResultsAreRecorded(t *testing.T) {
	s, srv := newTest(t)
	long := strings.Repeat("x", maxResultText+100)
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"run_shell_command","arguments":"{}"}}]}`
	body := `{"model":"standin","stream":true,"messages":[{"role":"user","content":"scenario:tool go"},` + call +
		`,{"role":"tool","tool_call_id":"c0","content":"old"},` + call +
		`,{"role":"tool","tool_call_id":"c1","content":"Not now: use staging"},{"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"` + long + `"}]}]}`
	post(t, srv, "/v1/chat/completions", body)
	post(t, srv, "/v1/chat/completions", `{"model":"standin","stream":true,"messages":[{"role":"user","content":"scenario:plain hi"}]}`)
	reqs := s.Requests()
	if len(reqs) != 2 || len(reqs[0].Results) != 2 || reqs[1].Results != nil {
		t.Fatalf("requests %+v", reqs)
	}
	if r := reqs[0].Results; r[0] != (ToolResult{ID: "c1", Text: "Not now: use staging"}) || r[1].ID != "c2" || len(r[1].Text) != maxResultText {
		t.Errorf("results %+v", r)
	}
}
