package standin

import (
	"net/http"
	"strings"
)

// geminiRequest is the part of a generateContent request the stand-in reads.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

func (q *geminiRequest) plan() (plan, bool) {
	for i := len(q.Contents) - 1; i >= 0; i-- {
		c := q.Contents[i]
		if c.Role != "user" {
			continue
		}
		text := ""
		for _, p := range c.Parts {
			text += p.Text + "\n"
		}
		if sc, ok := scenarioOf(text); ok {
			step := 0
			for _, later := range q.Contents[i+1:] {
				if later.Role == "model" {
					step++
				}
			}
			return plan{scenario: sc, step: step}, true
		}
	}
	return plan{}, false
}

// lastPrompt is the text of the request's last user content, whole: a
// Request keeps it bounded.
func (q *geminiRequest) lastPrompt() string {
	for i := len(q.Contents) - 1; i >= 0; i-- {
		if q.Contents[i].Role == "user" {
			text := ""
			for _, p := range q.Contents[i].Parts {
				text += p.Text
			}
			return text
		}
	}
	return ""
}

// geminiJSON answers Gemini CLI's side requests that want JSON (which
// speaker is next, which model to route to): the user speaks next.
const geminiJSON = `{"reasoning":"The stand-in has answered; the user speaks next.","next_speaker":"user","complexity_reasoning":"A scripted turn.","complexity_score":1}`

func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	call := r.PathValue("call")
	_, method, _ := strings.Cut(call, ":")
	rec := Request{API: "gemini", Path: r.URL.Path}
	if method == "countTokens" {
		rec.Status = http.StatusOK
		s.record(rec)
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": InputTokens(0)})
		return
	}
	if method != "streamGenerateContent" && method != "generateContent" {
		rec.Status = http.StatusNotFound
		s.record(rec)
		writeJSON(w, http.StatusNotFound, geminiError(http.StatusNotFound, "NOT_FOUND", "stand-in: no such method"))
		return
	}
	var q geminiRequest
	if err := s.readJSON(r, "gemini", &q); err != nil {
		rec.Status = http.StatusBadRequest
		s.record(rec)
		writeJSON(w, http.StatusBadRequest, geminiError(http.StatusBadRequest, "INVALID_ARGUMENT", "stand-in: not a generateContent request"))
		return
	}
	for _, t := range q.Tools {
		for _, f := range t.FunctionDeclarations {
			rec.Tools = append(rec.Tools, f.Name)
		}
	}
	prompt := q.lastPrompt()
	rec.Prompt = bounded(prompt)
	p, scripted := q.plan()
	t := turn{text: PlainText}
	if q.GenerationConfig.ResponseMimeType == "application/json" {
		t.text = geminiJSON
	} else if scripted && len(rec.Tools) > 0 {
		// Headless, Gemini CLI leaves out the tools that would ask
		// (run_shell_command without --allowed-tools): a tool turn
		// without its tool is answered with text.
		rec.Scenario, rec.Step = p.scenario, p.step
		t = s.script(p, has(rec.Tools, "run_shell_command"), "")
	}
	if t.failure != "" {
		s.fail(w, rec, t.failure, "gemini")
		return
	}
	if t.status != 0 {
		rec.Status = t.status
		s.record(rec)
		status := "INVALID_ARGUMENT"
		if t.status >= 500 {
			status = "INTERNAL"
		}
		writeJSON(w, t.status, geminiError(t.status, status, t.message))
		return
	}
	rec.Status = http.StatusOK
	s.record(rec)
	stream := method != "generateContent"
	started := false
	if t.slow {
		if stream {
			startSSE(w)
			started = true
		}
		if !s.hold(r, prompt) {
			return
		}
		t = turn{text: FinalText}
	}
	var part map[string]any
	if t.tool != "" {
		part = map[string]any{"functionCall": map[string]any{"name": t.tool, "args": map[string]any{
			"command": ToolCommand, "description": "Create a marker file"}}}
	} else {
		part = map[string]any{"text": t.text}
	}
	chunk := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": InputTokens(p.step), "candidatesTokenCount": OutputTokens,
			"totalTokenCount": InputTokens(p.step) + OutputTokens},
		"modelVersion": "gemini-standin",
	}
	if !stream {
		writeJSON(w, http.StatusOK, chunk)
		return
	}
	if !started {
		startSSE(w)
	}
	sse(w, "", chunk)
}

func geminiError(code int, status, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}
}
