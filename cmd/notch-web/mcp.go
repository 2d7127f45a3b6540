package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/state"
)

const mcpUsage = `usage: notch-web mcp [--url URL] [--dsh-home DIR]

A Model Context Protocol server on stdin/stdout, for an agent to ask the
board: list_sessions (every machine's rows: state, wait, agent, project,
title), waiting (who waits on you, oldest first), session_events (a
session's recent events) and search_history (the lasting history).

It is a client of the running host, read-only: it never answers an
approval, a question or a plan (docs/security.md says why). The host is
--url, else $NOTCH_URL, else the host that serves the DSH home (--dsh-home,
else $DSH_HOME, else ~/.dsh), else the default address. docs/mcp.md.
`

// mcpText bounds each text an agent is handed (a title, a project, an
// approval's reason): the host bounds them too, this is in case it is
// another version.
const mcpText = 300

// mcpMaxRows bounds the rows one answer lists.
const mcpMaxRows = 200

// runMCP is "notch-web mcp": an MCP server over in/out until in ends or
// ctx does.
func runMCP(ctx context.Context, args []string, getenv func(string) string, in io.Reader, out io.Writer, stderr io.Writer) error {
	fail := func(err error) error {
		fmt.Fprintln(stderr, "notch-web mcp:", err)
		return err
	}
	fs := flag.NewFlagSet("notch-web mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := addGlobals(fs)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(out, fit(mcpUsage))
		return nil
	} else if err != nil {
		return fail(fmt.Errorf("%v (notch-web mcp -h)", err))
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q (notch-web mcp -h)", fs.Arg(0)))
	}
	// The host is found at each call, not once: a host restarted (or
	// started after the agent) on another port is found again.
	base := func() string { return g.hostURL(getenv) }
	srv := newMCPServer(base, agentProcess()) // the agent that started this server
	err := srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fail(err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// newMCPServer is the MCP server with its tools; base is the host's URL.
func newMCPServer(base func() string, caller proc.ID) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "notch-web", Version: version()}, &mcp.ServerOptions{
		Instructions: "notch-web's board of AI coding-agent sessions, read-only. It never answers an approval, a question or a plan: a human does, on the board.",
	})
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "list_sessions", Annotations: ro,
		Description: "Every session on the notch-web board, on every machine: id, machine (\"\" is this one), agent, project, title, status (working, attention = waits on a human, done, error), since, how long it has waited."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, mcpSessions, error) {
			r, err := askSessions(ctx, base())
			if err != nil {
				return nil, mcpSessions{}, err
			}
			out := mcpSessions{Total: len(r.Sessions), Sessions: []mcpSession{}}
			for _, x := range r.Sessions {
				if len(out.Sessions) == mcpMaxRows {
					break
				}
				out.Sessions = append(out.Sessions, x.clean())
			}
			return nil, out, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "waiting", Annotations: ro,
		Description: "The queue of sessions waiting on a human (an approval, a question or a plan), oldest wait first, with what each asks. Read-only: only a human answers them, on the board."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, mcpSessions, error) {
			r, err := askSessions(ctx, base())
			if err != nil {
				return nil, mcpSessions{}, err
			}
			byID := make(map[string]hostSession, len(r.Sessions))
			for _, x := range r.Sessions {
				byID[x.ID] = x
			}
			out := mcpSessions{Total: len(r.Queue), Sessions: []mcpSession{}}
			for _, id := range r.Queue {
				if x, ok := byID[id]; ok && len(out.Sessions) < mcpMaxRows {
					out.Sessions = append(out.Sessions, x.clean())
				}
			}
			return nil, out, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "session_events", Annotations: ro,
		Description: "A session's recent events (the board's last 50 for it: turns, tools and their outcomes, answers), oldest first. The session is an id from list_sessions. For older sessions, search_history."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpEventsIn) (*mcp.CallToolResult, mcpEvents, error) {
			if !state.ValidSessionID(in.Session) {
				return nil, mcpEvents{}, errors.New("session must be a session id from list_sessions")
			}
			var r mcpEvents
			if err := askJSON(ctx, base(), "/agents-notch/history?session="+url.QueryEscape(in.Session), &r); err != nil {
				return nil, mcpEvents{}, err
			}
			if r.Events == nil {
				r.Events = []mcpEvent{}
			}
			for i := range r.Events {
				e := &r.Events[i]
				e.What, e.Tool, e.Outcome = clip(e.What), clip(e.Tool), clip(e.Outcome)
			}
			return nil, r, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "search_history", Annotations: ro,
		Description: "Search the lasting history of sessions (every machine the host hears), newest first, 50 at most: words of the title, project, machine, agent or folder; optionally an agent, project, machine, day (YYYY-MM-DD) or outcome (done, error, ended, open)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpSearchIn) (*mcp.CallToolResult, mcpSearch, error) {
			q := url.Values{}
			for k, v := range map[string]string{"q": in.Query, "agent": in.Agent, "project": in.Project, "machine": in.Machine, "day": in.Day, "outcome": in.Outcome} {
				if v != "" {
					q.Set(k, v)
				}
			}
			var r mcpSearch
			if err := askJSON(ctx, base(), "/agents-notch/history?"+q.Encode(), &r); err != nil {
				return nil, mcpSearch{}, err
			}
			if r.Off {
				return nil, mcpSearch{}, errors.New("this notch-web keeps no history (--history off)")
			}
			if r.Sessions == nil {
				r.Sessions = []mcpPast{}
			}
			for i := range r.Sessions {
				p := &r.Sessions[i]
				p.Title, p.Project, p.Cwd, p.Agent, p.Machine = clip(p.Title), clip(p.Project), clip(p.Cwd), clip(p.Agent), clip(p.Machine)
			}
			return nil, r, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "send_message",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)},
		Description: "Type a message into another session of this machine, as a human's Reply from the board: only when that session's turn is over, its agent still in its tmux pane and its input empty. Off unless this machine's notch-web runs with --mcp-steer; each use is logged with your session. It never answers an approval, a question or a plan."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpMessageIn) (*mcp.CallToolResult, mcpMessageOut, error) {
			if !state.ValidSessionID(in.Session) {
				return nil, mcpMessageOut{}, errors.New("session must be a session id from list_sessions")
			}
			body, _ := json.Marshal(map[string]string{"sessionId": in.Session, "text": in.Text})
			if err := askPost(ctx, base(), "/agents-notch/mcp/message", body, caller); err != nil {
				return nil, mcpMessageOut{}, err
			}
			return nil, mcpMessageOut{Sent: true}, nil
		})
	return s
}

type mcpMessageIn struct {
	Session string `json:"session" jsonschema:"the session to message: an id from list_sessions, of this machine"`
	Text    string `json:"text" jsonschema:"the message, at most 8 KiB; newlines allowed, no other control characters"`
}

type mcpMessageOut struct {
	Sent bool `json:"sent" jsonschema:"the message was typed into the session"`
}

// askPost posts body to the host as the agent caller (proc.Header): the
// host's refusal is the error, in its own words.
func askPost(ctx context.Context, base, path string, body []byte, caller proc.ID) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("--url %q: %v", base, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if v := caller.Encode(); v != "" {
		req.Header.Set(proc.Header, v)
	}
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("no notch-web answers at %s: start it (notch-web), or give notch-web mcp --url URL", base)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode/100 == 2 {
		return nil
	}
	var e struct{ Error, Message string }
	if json.Unmarshal(data, &e) == nil && (e.Error != "" || e.Message != "") {
		return errors.New(clip(e.Error + e.Message))
	}
	return fmt.Errorf("the host at %s answered %s", base, res.Status)
}

// clip is a text from the host made plain and bounded for an agent.
func clip(s string) string { return state.Cut(state.CleanText(s), mcpText) }

// hostSessions is what GET /agents-notch/sessions answers (web's
// sessionsReply).
type hostSessions struct {
	NowMs    int64         `json:"nowMs"`
	Sessions []hostSession `json:"sessions"`
	Queue    []string      `json:"queue"`
}

type hostSession struct {
	ID       string          `json:"id"`
	Machine  string          `json:"machine"`
	Agent    string          `json:"agent"`
	Project  string          `json:"project"`
	Title    string          `json:"title"`
	Cwd      string          `json:"cwd"`
	Status   string          `json:"status"`
	SinceMs  int64           `json:"sinceMs"`
	WaitMs   int64           `json:"waitMs"`
	Waiting  bool            `json:"waiting"`
	Activity *state.Activity `json:"activity"`
	Approval *state.Approval `json:"approval"`
	Parent   string          `json:"parent"`
}

// mcpSession is one session as the tools give it.
type mcpSession struct {
	ID      string `json:"id"`
	Machine string `json:"machine" jsonschema:"the machine; empty for the one the host runs on"`
	Agent   string `json:"agent,omitempty"`
	Project string `json:"project"`
	Title   string `json:"title"`
	Cwd     string `json:"cwd,omitempty"`
	Status  string `json:"status" jsonschema:"working, attention (waits on a human), done or error"`
	Since   string `json:"since" jsonschema:"when it entered its status, RFC 3339"`
	WaitSec int64  `json:"waitSeconds,omitempty" jsonschema:"how long it has waited on a human"`
	Doing   string `json:"doing,omitempty" jsonschema:"the tool it runs, or thinking"`
	Asks    string `json:"asks,omitempty" jsonschema:"what it waits on a human for"`
	Parent  string `json:"parent,omitempty" jsonschema:"a subagent's parent session"`
}

func (x hostSession) clean() mcpSession {
	m := mcpSession{ID: clip(x.ID), Machine: clip(x.Machine), Agent: clip(x.Agent), Project: clip(x.Project), Title: clip(x.Title), Cwd: clip(x.Cwd),
		Status: clip(x.Status), WaitSec: x.WaitMs / 1000, Parent: clip(x.Parent)}
	if x.SinceMs > 0 {
		m.Since = time.UnixMilli(x.SinceMs).UTC().Format(time.RFC3339)
	}
	if a := x.Activity; a != nil {
		m.Doing = clip(strings.TrimSpace(a.Kind + " " + a.Label))
	}
	if a := x.Approval; a != nil && x.Waiting {
		m.Asks = clip(strings.TrimSpace(a.ToolName + ": " + a.Reason))
	}
	return m
}

// mcpSessions is list_sessions' and waiting's answer.
type mcpSessions struct {
	Total    int          `json:"total" jsonschema:"how many there are (the list stops at 200)"`
	Sessions []mcpSession `json:"sessions"`
}

type mcpEventsIn struct {
	Session string `json:"session" jsonschema:"a session id, as list_sessions gives it"`
}

type mcpEvents struct {
	Session string     `json:"session"`
	Known   bool       `json:"known" jsonschema:"the board holds the session"`
	Lasting bool       `json:"lasting" jsonschema:"read from the history file rather than the host's memory"`
	Events  []mcpEvent `json:"events"`
}

type mcpEvent struct {
	AtMs    int64  `json:"atMs"`
	What    string `json:"what"`
	Tool    string `json:"tool,omitempty"`
	Outcome string `json:"outcome,omitempty"`
}

type mcpSearchIn struct {
	Query   string `json:"query,omitempty" jsonschema:"words, each a word or the start of one"`
	Agent   string `json:"agent,omitempty"`
	Project string `json:"project,omitempty"`
	Machine string `json:"machine,omitempty"`
	Day     string `json:"day,omitempty" jsonschema:"YYYY-MM-DD, the host's local day"`
	Outcome string `json:"outcome,omitempty" jsonschema:"done, error, ended or open"`
}

type mcpSearch struct {
	Off      bool      `json:"-"`
	Problem  string    `json:"problem,omitempty"`
	Total    int       `json:"total"`
	Sessions []mcpPast `json:"sessions"`
}

// UnmarshalJSON reads the host's history reply, whose "off" the tool
// turns into an error rather than passing on.
func (r *mcpSearch) UnmarshalJSON(b []byte) error {
	var v struct {
		Off      bool      `json:"off"`
		Problem  string    `json:"problem"`
		Total    int       `json:"total"`
		Sessions []mcpPast `json:"sessions"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = mcpSearch{Off: v.Off, Problem: clip(v.Problem), Total: v.Total, Sessions: v.Sessions}
	return nil
}

// mcpPast is a session of the history.
type mcpPast struct {
	Machine   string   `json:"machine"`
	ID        string   `json:"id"`
	Agent     string   `json:"agent"`
	Project   string   `json:"project"`
	Cwd       string   `json:"cwd"`
	Title     string   `json:"title"`
	StartedMs int64    `json:"startedMs"`
	EndedMs   int64    `json:"endedMs" jsonschema:"0 while open"`
	Outcome   string   `json:"outcome"`
	Turns     int      `json:"turns"`
	WorkingMs int64    `json:"workingMs"`
	WaitingMs int64    `json:"waitingMs" jsonschema:"time it waited on a human"`
	CostUSD   *float64 `json:"costUsd" jsonschema:"the agent's own cost report; null where none"`
}

func askSessions(ctx context.Context, base string) (hostSessions, error) {
	var r hostSessions
	err := askJSON(ctx, base, "/agents-notch/sessions", &r)
	return r, err
}

// askJSON GETs path from the running host as JSON. A 503 from the history
// (unavailable) still carries its reply, and is read.
func askJSON(ctx context.Context, base, path string, reply any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return fmt.Errorf("--url %q: %v", base, err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("no notch-web answers at %s: start it (notch-web), or give notch-web mcp --url URL", base)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if res.StatusCode/100 != 2 && res.StatusCode != http.StatusServiceUnavailable || res.StatusCode == http.StatusServiceUnavailable && !strings.Contains(path, "/history?") {
		var e struct {
			Error   string
			Message string
		}
		if json.Unmarshal(data, &e) == nil && (e.Error != "" || e.Message != "") {
			return errors.New(clip(e.Error + e.Message))
		}
		return fmt.Errorf("the host at %s answered %s", base, res.Status)
	}
	if err := json.Unmarshal(data, reply); err != nil {
		return fmt.Errorf("the host at %s gave an answer this build does not read: is it another notch-web version?", base)
	}
	return nil
}
