package standin

import (
	"encoding/json"
	"net/http"
	"strings"
)

// openaiRequest is the part of a Responses request the stand-in reads.
type openaiRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Input  []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"input"`
	Tools []struct {
		Type       string          `json:"type"`
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"tools"`
}

func openaiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	out := ""
	for _, p := range parts {
		out += p.Text + "\n"
	}
	return out
}

func (q *openaiRequest) plan() (plan, bool) {
	for i := len(q.Input) - 1; i >= 0; i-- {
		it := q.Input[i]
		if it.Role != "user" {
			continue
		}
		if sc, ok := scenarioOf(openaiText(it.Content)); ok {
			step := 0
			for _, later := range q.Input[i+1:] {
				if later.Type == "function_call" || later.Type == "local_shell_call" || later.Type == "custom_tool_call" ||
					(later.Type == "message" && later.Role == "assistant") {
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
func (q *openaiRequest) lastPrompt() string {
	for i := len(q.Input) - 1; i >= 0; i-- {
		if q.Input[i].Role == "user" {
			text := openaiText(q.Input[i].Content)
			return text
		}
	}
	return ""
}

// codexShells are Codex's shell tools, most preferred first.
var codexShells = []string{"shell_command", "shell", "exec_command"}

func (s *Server) openai(w http.ResponseWriter, r *http.Request) {
	var q openaiRequest
	if err := s.readJSON(r, "openai", &q); err != nil {
		s.record(Request{API: "openai", Path: r.URL.Path, Status: http.StatusBadRequest})
		writeJSON(w, http.StatusBadRequest, openaiError("stand-in: not a Responses request"))
		return
	}
	var tools []string
	params := map[string]string{}
	for _, t := range q.Tools {
		n := t.Name
		if n == "" {
			n = t.Type
		}
		tools = append(tools, n)
		params[n] = string(t.Parameters)
	}
	p, scripted := q.plan()
	t := turn{text: PlainText}
	prompt := q.lastPrompt()
	rec := Request{API: "openai", Path: r.URL.Path, Tools: tools, Prompt: bounded(prompt)}
	shell := has(tools, codexShells...)
	if scripted && shell != "" {
		rec.Scenario, rec.Step = p.scenario, p.step
		t = s.script(p, shell, has(tools, "spawn_agent"))
		if p.scenario == AskUser && p.step == 0 && has(tools, "request_user_input") != "" {
			t = turn{tool: "request_user_input"}
		}
	}
	if t.failure != "" {
		s.fail(w, rec, t.failure, "openai")
		return
	}
	if t.status != 0 {
		rec.Status = t.status
		s.record(rec)
		writeJSON(w, t.status, openaiError(t.message))
		return
	}
	rec.Status = http.StatusOK
	s.record(rec)
	id := s.nextID("resp")
	s.limits.header(w.Header())
	startSSE(w)
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	if t.slow {
		if !s.hold(r, prompt) {
			return
		}
		t = turn{text: FinalText}
	}
	var item map[string]any
	if t.tool != "" {
		args, _ := json.Marshal(codexToolArgs(t.tool, params[t.tool]))
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id, "name": t.tool, "arguments": string(args), "status": "completed"}
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	} else {
		item = map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t.text, "annotations": []any{}}}}
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "in_progress", "content": []any{}}})
		sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_" + id,
			"output_index": 0, "content_index": 0, "delta": t.text})
	}
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "status": "completed",
		"usage": map[string]any{"input_tokens": InputTokens(p.step), "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": InputTokens(p.step) + OutputTokens},
	}})
}

// codexToolArgs are the arguments of a call to one of Codex's tools. A shell
// call asks to run outside the sandbox when the tool takes that, so Codex
// asks the user (under -a on-request) whatever its sandbox allows.
func codexToolArgs(tool, params string) map[string]any {
	args := map[string]any{}
	switch tool {
	case "shell":
		args["command"] = []string{"bash", "-lc", ToolCommand}
	case "exec_command":
		args["cmd"] = ToolCommand
	case "spawn_agent":
		args["message"] = SubagentPrompt
		return args
	case "request_user_input":
		var opts []any
		for _, l := range AskOptions {
			opts = append(opts, map[string]any{"label": l, "description": "The " + strings.ToLower(l) + " option."})
		}
		args["questions"] = []any{map[string]any{"id": "colour", "header": "Colour", "question": AskQuestion, "options": opts}}
		return args
	default:
		args["command"] = ToolCommand
	}
	if strings.Contains(params, "sandbox_permissions") {
		args["sandbox_permissions"] = "require_escalated"
		args["justification"] = "The conformance suite asks for an approval here."
	} else if strings.Contains(params, "with_escalated_permissions") {
		args["with_escalated_permissions"] = true
		args["justification"] = "The conformance suite asks for an approval here."
	}
	return args
}

func openaiError(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": nil, "param": nil}}
}
