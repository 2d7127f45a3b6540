package ocplugin

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// The messages of a TUI turn OpenCode 1.18.33 wrote to its database while
// no host listened (make conformance, TestLifecycleOpenCode
// restart_while_turn_ends): the prompt, then the model's answer, completed.
const (
	realSession = "ses_daf604db7ffep7cODdSRw3BdSN"
	realPrompt  = `{"role":"user","time":{"created":1796648980558},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"},"summary":{"diffs":[]}}`
	realAnswer  = `{"parentID":"msg_2509fd04e001gKDqWAPCbkwje2","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/run/project","root":"/"},"cost":0.00618,"tokens":{"total":2012,"input":2000,"output":12,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"claude-sonnet-4-5","providerID":"anthropic","time":{"created":1796648981238,"completed":1796649012949},"finish":"stop"}`
	// The same answer while it streams: not completed yet.
	realStreaming = `{"parentID":"msg_2509fd04e001gKDqWAPCbkwje2","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/run/project","root":"/"},"cost":0,"tokens":{"total":0,"input":0,"output":0,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"claude-sonnet-4-5","providerID":"anthropic","time":{"created":1796648981238}}`
)

// messageTable is OpenCode 1.18.33's message table, as its database has it.
const messageTable = "CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)"

// database writes an OpenCode database holding msgs (data, in order) of
// session.
func database(t *testing.T, session string, msgs ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA journal_mode=WAL`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(messageTable); err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		at := int64(1796648980558 + i)
		if _, err := db.Exec("INSERT INTO message VALUES (?, ?, ?, ?, ?)", "msg_"+string(rune('a'+i)), session, at, at, m); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestSettled(t *testing.T) {
	prompt := time.UnixMilli(1796648980600) // the row's since: its busy status
	withError := func(name string) string {
		return `{"role":"assistant","time":{"created":1796648981238,"completed":1796649012949},"error":{"name":"` + name + `","data":{"message":"x"}},"finish":"stop"}`
	}
	for _, c := range []struct {
		name    string
		msgs    []string
		since   time.Time
		outcome string // "" is not ok
	}{
		{"the answer completed", []string{realPrompt, realAnswer}, prompt, state.OutcomeCompleted},
		{"completed before since", []string{realPrompt, realAnswer}, time.UnixMilli(1796649013000), ""},
		{"the answer streams", []string{realPrompt, realStreaming}, prompt, ""},
		{"the prompt alone", []string{realPrompt}, prompt, ""},
		{"a new prompt after the answer", []string{realPrompt, realAnswer, realPrompt}, prompt, ""},
		{"a step that calls tools", []string{realPrompt, `{"role":"assistant","time":{"created":1796648981238,"completed":1796649012949},"finish":"tool-calls"}`}, prompt, ""},
		{"interrupted", []string{realPrompt, withError(Aborted)}, prompt, state.OutcomeCompleted},
		{"failed", []string{realPrompt, withError("APIError")}, prompt, state.OutcomeError},
		{"not JSON", []string{realPrompt, `{"role":`}, prompt, ""},
		{"no messages", nil, prompt, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := settledIn(database(t, realSession, c.msgs...), realSession, c.since)
			if (c.outcome != "") != ok || got != c.outcome {
				t.Errorf("Settled = %q, %v; want %q", got, ok, c.outcome)
			}
		})
	}
	path := database(t, realSession, realPrompt, realAnswer)
	for _, s := range []string{"", "ses_other", "ses_", "x' OR '1'='1", "msg_a"} {
		if got, ok := settledIn(path, s, prompt); ok {
			t.Errorf("session %q: Settled = %q, true", s, got)
		}
	}
	for name, p := range map[string]string{"no file": filepath.Join(t.TempDir(), "none.db"), "relative": "opencode.db", "a folder": t.TempDir()} {
		if got, ok := settledIn(p, realSession, prompt); ok {
			t.Errorf("%s: Settled = %q, true", name, got)
		}
	}
}

// Database finds OpenCode's database where the host's environment says its
// data lives, whatever bytes its path holds.
func TestSettledFindsTheDatabase(t *testing.T) {
	data := filepath.Join(t.TempDir(), "a dir?mode=rw&x#y%20")
	t.Setenv("XDG_DATA_HOME", data)
	if err := os.MkdirAll(filepath.Join(data, "opencode"), 0o700); err != nil {
		t.Fatal(err)
	}
	src := database(t, realSession, realPrompt, realAnswer)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "opencode", "opencode.db"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := SettledIn(Database("opencode", "opencode.db"), realSession, time.UnixMilli(1796648980600)); !ok || got != state.OutcomeCompleted {
		t.Errorf("Settled = %q, %v", got, ok)
	}
}

// FuzzSettledBy: a message's data is the agent's file, outside input.
func FuzzSettledBy(f *testing.F) {
	for _, seed := range []string{
		realAnswer,    // completed
		realStreaming, // not completed
		realPrompt,    // the prompt
		`{"role":"assistant","time":{"completed":1},"error":{"name":"MessageAbortedError"}}`, // interrupted
		`{"role":"assistant","time":{"completed":-1},"finish":"tool-calls"}`,                 // out of range
		`{"role":"assistant","time":{"completed":"x"}}`,                                      // a wrong type
		`null`, `[]`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if o, ok := settledBy(data, time.UnixMilli(0)); ok != (o != "") || (ok && o != state.OutcomeCompleted && o != state.OutcomeError) {
			t.Fatalf("settledBy = %q, %v", o, ok)
		}
	})
}
