// Package standin is a stand-in model API for the conformance suite: one
// loopback HTTP server that answers the real agent CLIs — Anthropic's
// Messages API (Claude Code; GitHub Copilot CLI and OpenCode through
// their anthropic providers), OpenAI's Responses API (Codex), Google's
// Gemini API (Gemini CLI) and OpenAI's Chat Completions (Qwen Code and the
// other OpenAI-compatible agents) — with scripted, streamed turns, so the
// CLIs run their real hooks offline and deterministically.
//
// A turn is scripted by a tag in the prompt: "scenario:NAME". The names are
// the Scenario constants: a plain text turn, a shell tool that needs the
// user's permission (then a final text after the tool's result), a subagent
// (Claude Code's Agent tool), a model error (HTTP 400 or 500), and a slow
// turn that holds the stream open (something to interrupt). A request is
// scripted only when it offers the tool its script needs; every other
// request — titles, summaries, Codex's title-generation helper, a subagent's
// own requests — gets a short plain text.
//
// Which step of a script to answer is counted from the conversation: the
// number of model turns after the last user message that carries the tag.
// So a tool scenario calls the tool once and answers its result with text,
// and a conversation re-opened later (Claude Code's background subagent
// reporting back) gets text, not a second tool call.
package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Scenario names a scripted turn (the prompt says "scenario:NAME").
type Scenario string

// The scripted turns.
const (
	// Plain answers with text.
	Plain Scenario = "plain"
	// Tool calls the agent's shell tool (ToolCommand), then answers the
	// tool's result with text.
	Tool Scenario = "tool"
	// Subagent calls Claude Code's Agent (or Task) tool, then answers its
	// result with text. The subagent's own prompt carries no tag.
	Subagent Scenario = "subagent"
	// Error400 fails the request with HTTP 400 (not retried).
	Error400 Scenario = "error400"
	// Error500 fails the request with HTTP 500 (retried, unless the agent
	// is told not to).
	Error500 Scenario = "error500"
	// Slow holds the stream open, sending nothing, until the agent hangs
	// up or SlowFor passes: a turn to interrupt. Release ends the held
	// streams as a model that took its time would: with FinalText.
	Slow Scenario = "slow"
	// Ask calls Claude Code's AskUserQuestion with one single-choice
	// question (AskQuestion, AskOptions), then answers its result with text.
	Ask Scenario = "ask"
	// AskMulti is Ask with a multi-select question (AskMultiQuestion).
	AskMulti Scenario = "askmulti"
	// Plan writes PlanText to the plan file Claude Code's plan mode names,
	// calls ExitPlanMode; once the plan is approved, it writes PlanFile in
	// the working directory with the Write tool (an edit: asked for unless
	// edits are accepted), then answers with text. A refused plan is
	// answered with text at once.
	Plan Scenario = "plan"
	// AskUser calls Codex's request_user_input (Copilot CLI's ask_user)
	// with one question
	// (AskQuestion, AskOptions), then answers its result with text.
	AskUser Scenario = "askuser"
	// Edit reads EditFile in the working directory with the Read tool,
	// then edits it with the Edit tool (EditOld → EditNew: an edit, asked
	// for unless edits are accepted), then answers with text. A refused
	// edit is answered with text.
	Edit Scenario = "edit"
	// MCP calls notch-web mcp's list_sessions (MCPListSessions, as Claude
	// Code names an MCP server's tool), then answers its result with text.
	MCP Scenario = "mcp"
)

// MCPListSessions is the name Claude Code gives list_sessions of the MCP
// server it was configured with as "notch-web".
const MCPListSessions = "mcp__notch-web__list_sessions"

// ToolCommand is the shell command the Tool scenario runs: harmless, and
// not on any agent's list of commands it runs without asking.
const ToolCommand = "touch conformance-tool.txt"

// SubagentPrompt is the prompt the Subagent scenario gives the subagent.
const SubagentPrompt = "Reply with one short sentence about the colour blue."

// What the Ask, AskMulti and Plan scenarios ask (Claude Code).
const (
	AskQuestion      = "Which colour should the button be?"
	AskMultiQuestion = "Which checks should run?"
	PlanText         = "# Plan\n\n1. Write conformance-plan.txt.\n2. Say done."
	PlanFile         = "conformance-plan.txt"
)

// What the Edit scenario edits (Claude Code): EditFile in the working
// directory, its line EditOld made EditNew.
const (
	EditFile = "conformance-edit.txt"
	EditOld  = "line two\n"
	EditNew  = "line two, edited by the agent\nand a line added\n"
)

// AskOptions and AskMultiOptions are the questions' options' labels.
var (
	AskOptions      = []string{"Teal", "Coral"}
	AskMultiOptions = []string{"Lint", "Unit tests", "Browser tests"}
)

// FinalText is the text that ends a scripted turn; PlainText answers every
// request that is not scripted.
const (
	FinalText = "Done: the stand-in's final answer."
	PlainText = "Stand-in title"
)

var tagRE = regexp.MustCompile(`scenario:([a-z0-9]+)`)

// scenarioOf finds the tag in a user message's text: the last one, as an
// agent may send two prompts as one message (Claude Code does after a
// refused tool: the refused prompt and the next one together).
func scenarioOf(text string) (Scenario, bool) {
	m := tagRE.FindAllStringSubmatch(text, -1)
	if m == nil {
		return "", false
	}
	return Scenario(m[len(m)-1][1]), true
}

// Request is one request the server answered, for tests and logs.
type Request struct {
	API      string   // "anthropic", "openai", "gemini" or "chat"
	Path     string   // the URL path
	Scenario Scenario // "" when unscripted
	Step     int      // the script's step answered
	Tools    []string // the tools the request offered
	Status   int      // the HTTP status answered
	// Results are the tool results the request's last user message
	// carries (Anthropic; Chat Completions: the tool messages after the
	// last assistant message): what the agent tells the model of a call, such
	// as a refusal's reason. Each text is bounded by maxResultText.
	Results []ToolResult
	// Prompt is the text of the request's last user message (its text,
	// beside any tool results; "" for results alone), bounded by
	// maxResultText: what a human typed, as the agent sent it.
	Prompt string
}

// ToolResult is one tool_result block a request carried.
type ToolResult struct {
	ID      string // the call's tool_use_id
	Text    string // its content's text (the text blocks, joined)
	IsError bool
}

// maxResultText bounds the text kept of one tool result.
const maxResultText = 4 << 10

// Server is the stand-in. Its zero value is not usable; use New.
type Server struct {
	// SlowFor bounds a Slow turn.
	SlowFor time.Duration
	// LimitReset is when the Limit429 scenario's usage limit resets: the
	// next whole minute an hour from New, so a row's "resumes HH:MM" is
	// known to the test.
	LimitReset time.Time
	// Log, when set, receives one line per request.
	Log func(format string, args ...any)
	// Dump, when set, receives every request's body (to see what a new
	// CLI version sends).
	Dump func(api string, body []byte)

	mu    sync.Mutex
	reqs  []Request
	holds map[*holding]struct{} // Slow turns held now
	seq   atomic.Int64          // numbers the calls and responses: every id is new
	mux   *http.ServeMux
	stop  chan struct{}
	once  sync.Once
	// limits are the plan windows every Responses reply reports.
	limits CodexLimits
}

// New returns a stand-in server; serve it with net/http (on loopback).
func New() *Server {
	s := &Server{SlowFor: 2 * time.Minute, mux: http.NewServeMux(), stop: make(chan struct{}), holds: map[*holding]struct{}{}, limits: newLimits(time.Now()), LimitReset: time.Now().Add(time.Hour).Truncate(time.Minute).Add(time.Minute)}
	s.mux.HandleFunc("POST /v1/messages", s.anthropic)
	s.mux.HandleFunc("POST /v1/messages/count_tokens", s.anthropicCount)
	s.mux.HandleFunc("POST /v1/responses", s.openai)
	s.mux.HandleFunc("POST /v1/chat/completions", s.chat)
	s.mux.HandleFunc("POST /{version}/models/{call}", s.gemini)
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("/", s.notFound)
	return s
}

// nextID is an id no earlier call or response of this server had: an
// agent keys a call's result by its id (the board's approval cards too), so
// two turns of one conversation must not share one, as a real model's never
// do.
func (s *Server) nextID(prefix string) string {
	return fmt.Sprintf("%s_standin_%d", prefix, s.seq.Add(1))
}

// Close ends every Slow turn still held.
func (s *Server) Close() { s.once.Do(func() { close(s.stop) }) }

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Requests returns the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
	if s.Log != nil {
		s.Log("standin: %s %s scenario=%q step=%d status=%d tools=%v", r.API, r.Path, r.Scenario, r.Step, r.Status, r.Tools)
	}
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.record(Request{API: "?", Path: r.Method + " " + r.URL.Path, Status: http.StatusNotFound})
	http.Error(w, "the stand-in does not serve this", http.StatusNotFound)
}

// models answers a model list (some CLIs ask at start).
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.record(Request{API: "models", Path: r.URL.Path, Status: http.StatusOK})
	writeJSON(w, http.StatusOK, map[string]any{"data": []any{}, "models": []any{}, "object": "list"})
}

// maxBody bounds a request body: conversations of a scripted session are
// small, but an agent's system prompt and tool list are tens of kB.
const maxBody = 8 << 20

func (s *Server) readJSON(r *http.Request, api string, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return err
	}
	if s.Dump != nil {
		s.Dump(api, data)
	}
	return json.Unmarshal(data, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// plan is what to answer: the scenario and the step of its script.
type plan struct {
	scenario Scenario
	step     int
	tools    map[string]bool // the tools the request offers (Anthropic)
	refused  bool            // the last tool result was an error (Anthropic)
	planFile string          // where plan mode says to write the plan (Claude Code)
	workDir  string          // the agent's working directory, as it says (Claude Code)
}

// turn is one scripted answer, in no API's terms.
type turn struct {
	status  int      // non-200: fail the request
	failure Scenario // a scripted failure (failures.go), answered as its API does
	text    string   // the answer's text
	tool    string   // a tool to call ("" for none)
	slow    bool
	multi   bool   // AskUserQuestion: the multi-select question
	path    string // Write: the file
	content string // Write: its content
	message string // the error's message
}

// script returns the answer for a plan, given the tool names the request
// offers: shell is the name of the agent's shell tool, agent the name of
// its subagent tool ("" when not offered).
func (s *Server) script(p plan, shell, agent string) turn {
	if failures(p.scenario) {
		return turn{failure: p.scenario}
	}
	switch p.scenario {
	case Error400:
		return turn{status: http.StatusBadRequest, message: "stand-in: scripted bad request (scenario:error400)"}
	case Error500:
		return turn{status: http.StatusInternalServerError, message: "stand-in: scripted server error (scenario:error500)"}
	case Slow:
		if p.step == 0 {
			return turn{slow: true}
		}
	case Tool:
		if p.step == 0 && shell != "" {
			return turn{tool: shell}
		}
	case Subagent:
		if p.step == 0 && agent != "" {
			return turn{tool: agent}
		}
	case AskUser:
		// Copilot CLI's ask_user (its TUI offers it; -p does not).
		if p.step == 0 && p.tools["ask_user"] {
			return turn{tool: "ask_user"}
		}
	case Ask, AskMulti:
		if p.step == 0 && p.tools["AskUserQuestion"] {
			return turn{tool: "AskUserQuestion", multi: p.scenario == AskMulti}
		}
	case MCP:
		if p.step == 0 && p.tools[MCPListSessions] {
			return turn{tool: MCPListSessions}
		}
	case Edit:
		switch {
		case p.step == 0 && p.workDir != "" && p.tools["Read"]:
			return turn{tool: "Read", path: p.workDir + "/" + EditFile}
		case p.step == 1 && !p.refused && p.workDir != "" && p.tools["Edit"]:
			return turn{tool: "Edit", path: p.workDir + "/" + EditFile}
		}
	case Plan:
		switch {
		case p.step == 0 && p.planFile != "" && p.tools["Write"]:
			return turn{tool: "Write", path: p.planFile, content: PlanText}
		case p.step == 1 && p.tools["ExitPlanMode"]:
			return turn{tool: "ExitPlanMode"}
		case p.step == 2 && !p.refused && p.workDir != "" && p.tools["Write"]:
			return turn{tool: "Write", path: p.workDir + "/" + PlanFile, content: "written by the plan\n"}
		}
	}
	return turn{text: FinalText}
}

// bounded is a prompt as a Request keeps it: its first maxResultText
// bytes.
func bounded(prompt string) string { return prompt[:min(len(prompt), maxResultText)] }

// holding is one Slow turn held: the prompt it answers, and its release.
type holding struct {
	prompt  string
	release chan struct{} // closed by Release
}

// Held is how many Slow turns the server holds now whose prompt contains
// tag: a test knows its agent is waiting on the model. Tests run side by
// side on one server, so each tags its slow prompts (a run's own words) and
// counts only those.
func (s *Server) Held(tag string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for h := range s.holds {
		if strings.Contains(h.prompt, tag) {
			n++
		}
	}
	return n
}

// Release answers every Slow turn held now whose prompt contains tag with
// FinalText, as a model that took its time: the turn ends as a completed
// one (a turn that ends while the test has the host down, or after the
// agent's terminal is gone). It returns how many it released; a Slow turn
// that comes later is held.
func (s *Server) Release(tag string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for h := range s.holds {
		if strings.Contains(h.prompt, tag) {
			close(h.release)
			delete(s.holds, h)
			n++
		}
	}
	return n
}

// hold waits out a Slow turn for prompt (whole: an agent may put its
// context before the human's words, past a Request's bound): until the client hangs up, the
// server closes or SlowFor passes (false: end the stream as it is), or
// Release (true: answer it).
func (s *Server) hold(r *http.Request, prompt string) bool {
	h := &holding{prompt: prompt, release: make(chan struct{})}
	s.mu.Lock()
	s.holds[h] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.holds, h)
		s.mu.Unlock()
	}()
	t := time.NewTimer(s.SlowFor)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-s.stop:
	case <-t.C:
	case <-h.release:
		return true
	}
	return false
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func has(names []string, want ...string) string {
	for _, w := range want {
		for _, n := range names {
			if n == w {
				return n
			}
		}
	}
	return ""
}
