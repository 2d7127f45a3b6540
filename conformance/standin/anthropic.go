package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// InputTokens is the prompt size the stand-in reports for a script's step
// (every API): each step larger, so a reader that shows an earlier step's
// count is caught.
func InputTokens(step int) int { return 2000 + 100*step }

// OutputTokens is the answer size the stand-in reports.
const OutputTokens = 12

// anthropicRequest is the part of a Messages request the stand-in reads.
type anthropicRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	// System is the top-level system prompt (a string or text blocks).
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// anthropicResults are the tool_result blocks of a message's content
// (none when the content is a string or not blocks), their text bounded.
func anthropicResults(raw json.RawMessage) []ToolResult {
	var blocks []struct {
		Type    string          `json:"type"`
		ID      string          `json:"tool_use_id"`
		Content json.RawMessage `json:"content"`
		IsError bool            `json:"is_error"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []ToolResult
	for _, b := range blocks {
		if b.Type != "tool_result" {
			continue
		}
		text := strings.TrimSuffix(anthropicText(b.Content), "\n")
		if len(text) > maxResultText {
			text = text[:maxResultText]
		}
		out = append(out, ToolResult{ID: b.ID, Text: text, IsError: b.IsError})
	}
	return out
}

// Where Claude Code's plan mode says to write the plan, and its working
// directory, as its messages say.
var (
	planFileRE = regexp.MustCompile(`(?:create your plan at|plan file exists at) (/\S+\.md)`)
	workDirRE  = regexp.MustCompile(`Primary working directory: (/\S+)`)
)

// allText is the text of every message of the conversation.
func (q *anthropicRequest) allText() string {
	out := ""
	for _, m := range q.Messages {
		out += anthropicText(m.Content)
	}
	return out
}

// systemText is the text of the conversation's "system" messages.
func (q *anthropicRequest) systemText() string {
	out := ""
	for _, m := range q.Messages {
		if m.Role == "system" {
			out += anthropicText(m.Content)
		}
	}
	return out
}

// lastPrompt is the text of the request's last user message (its text
// blocks, beside any tool results), whole: a
// Request keeps it bounded.
func (q *anthropicRequest) lastPrompt() string {
	for i := len(q.Messages) - 1; i >= 0; i-- {
		if q.Messages[i].Role == "user" {
			// Its text, tool results or not: after a call the human refused,
			// OpenCode ends the turn, and its next prompt goes in one user
			// message with that call's result (the API wants roles to
			// alternate).
			text := anthropicText(q.Messages[i].Content)
			return text
		}
	}
	return ""
}

// lastUserResults are the tool results of a request's last user message.
func (q *anthropicRequest) lastUserResults() []ToolResult {
	for i := len(q.Messages) - 1; i >= 0; i-- {
		if q.Messages[i].Role == "user" {
			return anthropicResults(q.Messages[i].Content)
		}
	}
	return nil
}

// anthropicText is a message's text: a string, or its text blocks.
func anthropicText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	out := ""
	for _, b := range blocks {
		if b.Type == "text" {
			out += b.Text + "\n"
		}
	}
	return out
}

// EarlierAnswerTokens is what each of the model's answers already in the
// conversation adds to the prompt size the stand-in reports to Claude Code
// (Anthropic): the context grows turn by turn, and shrinks when the
// conversation is compacted (its answers become one summary, a user
// message).
const EarlierAnswerTokens = 1000

// inputTokens is the prompt size reported for a request answered at step:
// InputTokens(step), and EarlierAnswerTokens for each of the model's
// messages in the conversation but the step's own (those after the tagged
// prompt: every one, for a request with no tag).
func (q *anthropicRequest) inputTokens(step int) int {
	return InputTokens(step) + EarlierAnswerTokens*max(0, q.answers()-step)
}

// answers counts the model's messages in the conversation.
func (q *anthropicRequest) answers() int {
	n := 0
	for _, m := range q.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

func (q *anthropicRequest) plan() (plan, bool) {
	for i := len(q.Messages) - 1; i >= 0; i-- {
		m := q.Messages[i]
		if m.Role != "user" {
			continue
		}
		if sc, ok := scenarioOf(anthropicText(m.Content)); ok {
			// The model's turns after it count, and so does the "system"
			// notice Claude Code 2.1 sends when a background subagent
			// finishes (after an interrupted tool it sends that notice
			// without the Agent call before it). Its other "system"
			// messages (the environment) do not.
			step := 0
			for _, later := range q.Messages[i+1:] {
				if later.Role == "assistant" || later.Role == "system" && isTaskNotice(anthropicText(later.Content)) {
					step++
				}
			}
			return plan{scenario: sc, step: step}, true
		}
	}
	return plan{}, false
}

// isTaskNotice reports whether a "system" message is Claude Code's notice
// that a background task finished.
func isTaskNotice(text string) bool {
	return strings.Contains(text, "background-task") || strings.Contains(text, "<task-notification>")
}

func (s *Server) anthropicCount(w http.ResponseWriter, r *http.Request) {
	s.record(Request{API: "anthropic", Path: r.URL.Path, Status: http.StatusOK})
	writeJSON(w, http.StatusOK, map[string]any{"input_tokens": InputTokens(0)})
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	var q anthropicRequest
	if err := s.readJSON(r, "anthropic", &q); err != nil {
		s.record(Request{API: "anthropic", Path: r.URL.Path, Status: http.StatusBadRequest})
		writeJSON(w, http.StatusBadRequest, anthropicError("invalid_request_error", "stand-in: not a Messages request"))
		return
	}
	var tools []string
	for _, t := range q.Tools {
		tools = append(tools, t.Name)
	}
	p, scripted := q.plan()
	t := turn{text: PlainText}
	prompt := q.lastPrompt()
	rec := Request{API: "anthropic", Path: r.URL.Path, Tools: tools, Results: q.lastUserResults(), Prompt: bounded(prompt)}
	p.tools = map[string]bool{}
	for _, n := range tools {
		p.tools[n] = true
	}
	// Claude Code 2.1 defers ExitPlanMode (named in a system message, its
	// schema loaded by ToolSearch); a model may call it directly.
	sys := q.systemText()
	if strings.Contains(sys, "\nExitPlanMode\n") {
		p.tools["ExitPlanMode"] = true
	}
	if m := planFileRE.FindStringSubmatch(q.allText()); m != nil {
		p.planFile = m[1]
	}
	if m := workDirRE.FindStringSubmatch(sys); m != nil {
		p.workDir = m[1]
	}
	if n := len(rec.Results); n > 0 {
		p.refused = rec.Results[n-1].IsError
	}
	// Claude Code's shell tool is Bash; GitHub Copilot CLI's and OpenCode's
	// (their anthropic providers) bash, with task for their subagents.
	if shell := has(tools, "Bash", "bash"); scripted && shell != "" {
		rec.Scenario, rec.Step = p.scenario, p.step
		t = s.script(p, shell, has(tools, "Agent", "Task", "task"))
	}
	if t.failure != "" {
		s.fail(w, rec, t.failure, "anthropic")
		return
	}
	if t.status != 0 {
		rec.Status = t.status
		s.record(rec)
		kind := "invalid_request_error"
		if t.status >= 500 {
			kind = "api_error"
		}
		writeJSON(w, t.status, anthropicError(kind, t.message))
		return
	}
	rec.Status = http.StatusOK
	s.record(rec)
	usage := q.inputTokens(p.step)
	started := false
	if t.slow {
		if q.Stream {
			startSSE(w)
			sse(w, "message_start", anthropicStart(q.Model, p.step, usage))
			started = true
		}
		if !s.hold(r, prompt) {
			return
		}
		t = turn{text: FinalText}
	}
	id := s.nextID("toolu")
	var block map[string]any
	var input any
	if t.tool != "" {
		input = anthropicToolInput(t)
		if opencode := opencodeToolInput(anthropicText(q.System), t.tool); opencode != nil {
			input = opencode
		}
		block = map[string]any{"type": "tool_use", "id": id, "name": t.tool, "input": map[string]any{}}
	} else {
		block = map[string]any{"type": "text", "text": ""}
	}
	stop := "end_turn"
	if t.tool != "" {
		stop = "tool_use"
	}
	if !q.Stream {
		if t.tool != "" {
			block["input"] = input
		} else {
			block["text"] = t.text
		}
		msg := anthropicStart(q.Model, p.step, usage)["message"].(map[string]any)
		msg["content"] = []any{block}
		msg["stop_reason"] = stop
		writeJSON(w, http.StatusOK, msg)
		return
	}
	if !started {
		startSSE(w)
		sse(w, "message_start", anthropicStart(q.Model, p.step, usage))
	}
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
	if t.tool != "" {
		js, _ := json.Marshal(input)
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(js)}})
	} else {
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": t.text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": OutputTokens}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

func anthropicToolInput(t turn) map[string]any {
	switch t.tool {
	case "Bash":
		return map[string]any{"command": ToolCommand, "description": "Create a marker file"}
	case "AskUserQuestion":
		q, header, labels := AskQuestion, "Colour", AskOptions
		if t.multi {
			q, header, labels = AskMultiQuestion, "Checks", AskMultiOptions
		}
		var opts []any
		for _, l := range labels {
			opts = append(opts, map[string]any{"label": l, "description": "The " + strings.ToLower(l) + " option."})
		}
		return map[string]any{"questions": []any{map[string]any{"question": q, "header": header, "options": opts, "multiSelect": t.multi}}}
	case "ExitPlanMode":
		return map[string]any{"plan": PlanText}
	case "bash", "task", "ask_user":
		return copilotToolInput(t.tool)
	case "Write":
		return map[string]any{"file_path": t.path, "content": t.content}
	case "Read":
		return map[string]any{"file_path": t.path}
	case "Edit":
		return map[string]any{"file_path": t.path, "old_string": EditOld, "new_string": EditNew}
	case MCPListSessions:
		return map[string]any{}
	}
	return map[string]any{"description": "Colour sentence", "prompt": SubagentPrompt, "subagent_type": "general-purpose"}
}

func anthropicStart(model string, step, inputTokens int) map[string]any {
	if model == "" {
		model = "claude-standin"
	}
	return map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_standin_%d", step), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": inputTokens, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}}
}

func anthropicError(kind, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}}
}
