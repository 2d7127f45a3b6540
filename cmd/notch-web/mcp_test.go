package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectMCP runs notch-web mcp (run, as the binary does) over pipes and
// connects the MCP SDK's own client to it.
func connectMCP(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	toSrv, fromCli := io.Pipe()
	toCli, fromSrv := io.Pipe()
	done := make(chan error, 1)
	var stderr strings.Builder
	go func() {
		done <- runMCP(ctx, args, env(), toSrv, fromSrv, &stderr)
		fromSrv.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: toCli, Writer: fromCli}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		fromCli.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("notch-web mcp: %v (%s)", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("notch-web mcp did not stop")
		}
	})
	return cs
}

// call calls a tool and decodes its structured answer into out; it
// returns the answer's text.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError && out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return text, res.IsError
}

// The SDK's client against notch-web mcp against a real host: the tools
// list the rows (with the agent a hook named), the queue oldest wait
// first, a row's events and the history's search; a hostile title stays
// text, bounded; and no tool answers anything.
func TestMCPAgainstARealHost(t *testing.T) {
	home := t.TempDir()
	base, stop := startIn(t, home)
	t.Cleanup(stop) // before the temporary home is removed
	hostile := `<script>alert("x")</script> ` + strings.Repeat("é", 900)
	mcpPost(t, base+"/agents-notch/events", strings.Join([]string{
		`{"type":"session.opened","session":"s1","title":"argon build","cwd":"/src/argon"}`,
		`{"type":"session.opened","session":"s2","title":` + mustJSON(hostile) + `,"cwd":"/src/neon"}`,
		`{"type":"turn.started","session":"s1"}`,
		`{"type":"tool.started","session":"s1","tool":"Bash"}`,
		`{"type":"tool.ended","session":"s1","tool":"Bash","outcome":"ok"}`,
		`{"type":"turn.started","session":"s2"}`,
		`{"type":"approval.requested","session":"s2","tool":"Bash","reason":"rm -rf build"}`,
	}, "\n"))
	// s1 waits after s2 began to (the host's clock has moved past s2's
	// wait): the queue's order is not the board's.
	for {
		var r hostSessions
		if err := askJSON(context.Background(), base, "/agents-notch/sessions", &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Queue) == 1 && r.NowMs > r.Sessions[1].SinceMs {
			break
		}
	}
	mcpPost(t, base+"/agents-notch/events", `{"type":"approval.requested","session":"s1","tool":"Edit","reason":"edit main.go"}`)
	mcpPost(t, base+"/agents-notch/hooks/claude-code", `{"hook_event_name":"SessionStart","session_id":"c1","cwd":"/src/xenon"}`)

	cs := connectMCP(t, "--url", base)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		// send_message types into a session (only with --mcp-steer); every
		// other tool only reads.
		if ro := tl.Annotations != nil && tl.Annotations.ReadOnlyHint; ro == (tl.Name == "send_message") {
			t.Errorf("tool %s: read-only %v", tl.Name, ro)
		}
	}
	if got := strings.Join(names, " "); got != "list_sessions search_history send_message session_events waiting" {
		t.Errorf("tools = %s", got)
	}

	var list mcpSessions
	text, isErr := call(t, cs, "list_sessions", nil, &list)
	if isErr || list.Total != 3 || len(list.Sessions) != 3 {
		t.Fatalf("list_sessions: %v %s", isErr, text)
	}
	byID := map[string]mcpSession{}
	for _, s := range list.Sessions {
		byID[s.ID] = s
	}
	if s := byID["s1"]; s.Status != "attention" || s.Title != "argon build" || s.Project == "" || s.Asks != "Edit: edit main.go" {
		t.Errorf("s1 = %+v", s)
	}
	var agent string
	for _, s := range list.Sessions {
		if strings.Contains(s.ID, "c1") {
			agent = s.Agent
		}
	}
	if agent != "claude-code" {
		t.Errorf("the hooked row's agent = %q, want claude-code (%s)", agent, text)
	}
	s2 := byID["s2"]
	if !strings.HasPrefix(s2.Title, `<script>alert("x")</script> é`) || len([]rune(s2.Title)) > mcpText+1 {
		t.Errorf("hostile title: %d runes, %q…", len([]rune(s2.Title)), s2.Title[:min(40, len(s2.Title))])
	}
	// The answer's text is JSON too: the title is a quoted string in it,
	// never loose markup.
	var fromText mcpSessions
	if err := json.Unmarshal([]byte(text), &fromText); err != nil || len(fromText.Sessions) != 3 || fromText.Sessions[1].Title != s2.Title {
		t.Errorf("the answer's text is not the same JSON: %v %.200s", err, text)
	}

	var q mcpSessions
	if text, isErr := call(t, cs, "waiting", nil, &q); isErr || q.Total != 2 || len(q.Sessions) != 2 || q.Sessions[0].ID != "s2" || q.Sessions[1].ID != "s1" || q.Sessions[0].Asks != "Bash: rm -rf build" {
		t.Errorf("waiting: %v %s", isErr, text)
	}

	var ev mcpEvents
	if text, isErr := call(t, cs, "session_events", map[string]any{"session": "s1"}, &ev); isErr || !ev.Known || len(ev.Events) < 3 {
		t.Errorf("session_events: %v %s", isErr, text)
	} else if !strings.Contains(text, `"tool":"Bash"`) {
		t.Errorf("session_events does not name Bash: %s", text)
	}
	if text, isErr := call(t, cs, "session_events", map[string]any{"session": "nope"}, nil); !isErr || !strings.Contains(text, "no such session") {
		t.Errorf("an unknown session: %v %s", isErr, text)
	}

	var found mcpSearch
	// The history is written in batches: wait for it, bounded.
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, isErr := call(t, cs, "search_history", map[string]any{"query": "argon"}, &found)
		if !isErr && found.Total == 1 && len(found.Sessions) == 1 && found.Sessions[0].ID == "s1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("search_history: %v %s", isErr, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if text, isErr := call(t, cs, "search_history", map[string]any{"outcome": "maybe"}, nil); !isErr || !strings.Contains(text, "outcome must be one of") {
		t.Errorf("a bad query: %v %s", isErr, text)
	}

	// Nothing was answered: both still wait.
	res, err := http.Get(base + "/agents-notch/sessions")
	if err != nil {
		t.Fatal(err)
	}
	var after struct{ Queue []string }
	json.NewDecoder(res.Body).Decode(&after)
	res.Body.Close()
	if len(after.Queue) != 2 {
		t.Errorf("after the tools, the queue is %v", after.Queue)
	}
}

// send_message is off unless the host runs with --mcp-steer, and then it
// has every check of the board's Reply: each refusal is the host's own
// words, handed to the agent as the tool's error.
func TestMCPSendMessage(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "start notch-web with --mcp-steer"},
		{[]string{"--mcp-steer"}, "no terminal pane is known for this session"},
		{[]string{"--mcp-steer", "--steer", "off"}, "(--steer off)"},
	} {
		base, stop := startIn(t, t.TempDir(), c.flags...)
		mcpPost(t, base+"/agents-notch/hooks/claude-code", `{"hook_event_name":"SessionStart","session_id":"c1","cwd":"/src/xenon"}`)
		cs := connectMCP(t, "--url", base)
		text, isErr := call(t, cs, "send_message", map[string]any{"session": "c1", "text": "run the tests"}, nil)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: send_message = %v %q, want an error saying %q", c.flags, isErr, text, c.want)
		}
		text, isErr = call(t, cs, "send_message", map[string]any{"session": "c1", "text": "\x1b[2J"}, nil)
		if !isErr {
			t.Errorf("%v: a message with an escape was taken: %q", c.flags, text)
		}
		stop()
	}
}

// With no host answering, each tool says so in one line, and the server
// goes on.
func TestMCPWithNoHost(t *testing.T) {
	cs := connectMCP(t, "--url", "http://127.0.0.1:1")
	for range 2 {
		text, isErr := call(t, cs, "list_sessions", nil, nil)
		if !isErr || !strings.Contains(text, "no notch-web answers at http://127.0.0.1:1") {
			t.Errorf("no host: %v %q", isErr, text)
		}
	}
}

func TestMCPMisuse(t *testing.T) {
	for _, args := range [][]string{{"--nope"}, {"extra"}} {
		var stderr strings.Builder
		err := runMCP(context.Background(), args, env(), strings.NewReader(""), io.Discard, &stderr)
		if err == nil || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "notch-web mcp: ") {
			t.Errorf("%v: %v %q", args, err, stderr.String())
		}
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mcpPost(t *testing.T, url, body string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("POST %s: %d %s", url, res.StatusCode, data)
	}
}
