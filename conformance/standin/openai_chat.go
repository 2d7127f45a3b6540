package standin

import (
	"encoding/json"
	"net/http"
	"slices"
)

// chatRequest is the part of an OpenAI Chat Completions request the
// stand-in reads (Qwen Code and the other OpenAI-compatible agents).
type chatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  json.RawMessage `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// plan finds the last user message with a tag; the step is the number of
// the model's messages after it (a tool call is one, its text another).
func (q *chatRequest) plan() (plan, bool) {
	for i := len(q.Messages) - 1; i >= 0; i-- {
		m := q.Messages[i]
		if m.Role != "user" {
			continue
		}
		if sc, ok := scenarioOf(openaiText(m.Content)); ok {
			step := 0
			for _, later := range q.Messages[i+1:] {
				if later.Role == "assistant" {
					step++
				}
			}
			return plan{scenario: sc, step: step}, true
		}
	}
	return plan{}, false
}

// lastPrompt is the text of the request's last user message, whole: a
// Request keeps it bounded.
func (q *chatRequest) lastPrompt() string {
	for i := len(q.Messages) - 1; i >= 0; i-- {
		if q.Messages[i].Role == "user" {
			text := openaiText(q.Messages[i].Content)
			return text
		}
	}
	return ""
}

// results are the tool messages after the request's last assistant
// message: what the agent tells the model of the calls it made (a
// refusal's reason), each bounded. Chat Completions marks no error.
func (q *chatRequest) results() []ToolResult {
	var out []ToolResult
	for i := len(q.Messages) - 1; i >= 0 && q.Messages[i].Role == "tool"; i-- {
		text := openaiText(q.Messages[i].Content)
		out = append(out, ToolResult{ID: q.Messages[i].ToolCallID, Text: text[:min(len(text), maxResultText)]})
	}
	slices.Reverse(out)
	return out
}

// chatShells are the shell tools of the agents that speak Chat
// Completions, most preferred first: Qwen Code's (Gemini CLI's name),
// OpenCode's and GitHub Copilot CLI's.
var chatShells = []string{"run_shell_command", "bash", "shell", "Bash", "shell_command", "exec_command"}

// chatAgents are their subagent tools: Qwen Code's, OpenCode's.
var chatAgents = []string{"agent", "task", "Agent", "Task"}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var q chatRequest
	if err := s.readJSON(r, "chat", &q); err != nil {
		s.record(Request{API: "chat", Path: r.URL.Path, Status: http.StatusBadRequest})
		writeJSON(w, http.StatusBadRequest, chatError("stand-in: not a Chat Completions request", "invalid_request_error"))
		return
	}
	var tools []string
	params := map[string]string{}
	for _, t := range q.Tools {
		tools = append(tools, t.Function.Name)
		params[t.Function.Name] = string(t.Function.Parameters)
	}
	p, scripted := q.plan()
	t := turn{text: PlainText}
	prompt := q.lastPrompt()
	rec := Request{API: "chat", Path: r.URL.Path, Tools: tools, Prompt: bounded(prompt), Results: q.results()}
	// Side requests (titles, summaries) offer no tools. Headless, an agent
	// may leave out the tools that would ask (Qwen Code's -p offers no
	// run_shell_command unless allowed): a tool turn without its tool is
	// answered with text.
	if scripted && len(tools) > 0 {
		rec.Scenario, rec.Step = p.scenario, p.step
		t = s.script(p, has(tools, chatShells...), has(tools, chatAgents...))
	}
	if t.failure != "" {
		s.fail(w, rec, t.failure, "chat")
		return
	}
	if t.status != 0 {
		rec.Status = t.status
		s.record(rec)
		kind := "invalid_request_error"
		if t.status >= 500 {
			kind = "server_error"
		}
		writeJSON(w, t.status, chatError(t.message, kind))
		return
	}
	rec.Status = http.StatusOK
	s.record(rec)
	id := s.nextID("chatcmpl")
	if t.slow {
		if q.Stream {
			startSSE(w)
		}
		if !s.hold(r, prompt) {
			return
		}
		t = turn{text: FinalText}
	} else if q.Stream {
		startSSE(w)
	}
	usage := map[string]any{"prompt_tokens": InputTokens(p.step), "completion_tokens": OutputTokens,
		"total_tokens": InputTokens(p.step) + OutputTokens}
	var call map[string]any
	finish := "stop"
	if t.tool != "" {
		args, _ := json.Marshal(chatToolArgs(t.tool, params[t.tool]))
		call = map[string]any{"id": "call_" + id, "type": "function",
			"function": map[string]any{"name": t.tool, "arguments": string(args)}}
		finish = "tool_calls"
	}
	base := func(choices []any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1764720000,
			"model": q.Model, "choices": choices}
	}
	if !q.Stream {
		msg := map[string]any{"role": "assistant", "content": t.text}
		if call != nil {
			msg["content"] = nil
			msg["tool_calls"] = []any{call}
		}
		out := base([]any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}})
		out["object"] = "chat.completion"
		out["usage"] = usage
		writeJSON(w, http.StatusOK, out)
		return
	}
	sse(w, "", base([]any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": ""}, "finish_reason": nil}}))
	if call != nil {
		// A call streams as real models stream it: its id and name first,
		// then its arguments.
		fn := call["function"].(map[string]any)
		sse(w, "", base([]any{map[string]any{"index": 0, "finish_reason": nil, "delta": map[string]any{"tool_calls": []any{
			map[string]any{"index": 0, "id": call["id"], "type": "function", "function": map[string]any{"name": fn["name"], "arguments": ""}}}}}}))
		sse(w, "", base([]any{map[string]any{"index": 0, "finish_reason": nil, "delta": map[string]any{"tool_calls": []any{
			map[string]any{"index": 0, "function": map[string]any{"arguments": fn["arguments"]}}}}}}))
	} else {
		sse(w, "", base([]any{map[string]any{"index": 0, "delta": map[string]any{"content": t.text}, "finish_reason": nil}}))
	}
	sse(w, "", base([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}))
	if q.StreamOptions.IncludeUsage {
		last := base([]any{})
		last["usage"] = usage
		sse(w, "", last)
	}
	done(w)
}

// chatToolArgs are the arguments of a call to a Chat Completions agent's
// tool, filled in by the tool's own parameters: the command (or the
// subagent's prompt), a description where it takes one, in the foreground.
func chatToolArgs(tool, params string) map[string]any {
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal([]byte(params), &schema)
	takes := func(name string) bool { _, ok := schema.Properties[name]; return ok || schema.Properties == nil }
	args := map[string]any{}
	if has(chatAgents, tool) != "" {
		args["description"] = "Answer about blue"
		args["prompt"] = SubagentPrompt
		args["subagent_type"] = "general-purpose"
		if _, ok := schema.Properties["run_in_background"]; ok {
			args["run_in_background"] = false
		}
		return args
	}
	args["command"] = ToolCommand
	if takes("description") {
		args["description"] = "Create a marker file"
	}
	if _, ok := schema.Properties["is_background"]; ok {
		args["is_background"] = false
	}
	return args
}

// done ends a Chat Completions stream.
func done(w http.ResponseWriter) {
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func chatError(msg, kind string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": kind, "code": nil, "param": nil}}
}
