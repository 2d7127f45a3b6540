package ocplugin

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/notch-web/notch-web/state"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// OpenCode 1.18 keeps its sessions in one SQLite database,
// <XDG_DATA_HOME or ~/.local/share>/opencode/opencode.db, and Kilo Code CLI
// 7.7 in its own, .../kilo/kilo.db, of the same tables (checked with the
// real binaries in tmux against a stand-in model). The message table holds
// each message of a session as a row (id, session_id, time_created, data):
// the prompt is {"role": "user"}, and each step of the model's answer an
// {"role": "assistant", "time": {"created", "completed"}, "finish",
// "error"} — "completed" is set when the step ends, "finish" is
// "tool-calls" for a step whose tools run before the next, and "error"
// names what ended it (MessageAbortedError: the human's interrupt). No
// event names the file: the plugin's events carry no path.

// maxMessage bounds the one message SettledIn reads.
const maxMessage = 1 << 20

// settledTimeout bounds one read of the database: the host asks again.
const settledTimeout = 500 * time.Millisecond

// Database is the agent's database file under its data folder dir
// ("opencode", "kilo"), as the host's own environment says where data
// lives ($XDG_DATA_HOME, else ~/.local/share); "" when it cannot tell.
func Database(dir, file string) string {
	data := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(data) {
		home, err := os.UserHomeDir()
		if err != nil || !filepath.IsAbs(home) {
			return ""
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, dir, file)
}

// SettledIn reports how the latest turn of session ended, as the database
// at path says: its latest message, when it is the model's answer,
// completed no earlier than since and not a step that calls tools, is
// completed, or error when it carries an error other than the human's
// interrupt. ok is false while the turn runs (the latest message is the
// prompt, a step not completed, or one that calls tools), or when nothing
// can be told (no database, no such session, a session id out of form, a
// read that fails).
func SettledIn(path, session string, since time.Time) (outcome string, ok bool) {
	return settledIn(path, session, since)
}

// settledIn is SettledIn.
func settledIn(path, session string, since time.Time) (string, bool) {
	if !validSession(session) || !filepath.IsAbs(path) {
		return "", false
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "", false // never open a FIFO or a device
	}
	// Read-only and never waiting long on OpenCode's own writes; the URI
	// form keeps any byte of the path from being read as a parameter.
	dsn := "file:" + url.PathEscape(path) + "?mode=ro&_pragma=busy_timeout(200)&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return "", false
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), settledTimeout)
	defer cancel()
	var data []byte
	err = db.QueryRowContext(ctx, `SELECT data FROM message WHERE session_id = ? AND length(data) <= ? ORDER BY time_created DESC, id DESC LIMIT 1`,
		session, maxMessage).Scan(&data)
	if err != nil {
		return "", false
	}
	return settledBy(data, since)
}

// message is the part of a message's data Settled reads.
type message struct {
	Role string `json:"role"`
	Time struct {
		Completed int64 `json:"completed"`
	} `json:"time"`
	Finish string `json:"finish"`
	Error  *struct {
		Name string `json:"name"`
	} `json:"error"`
}

// settledBy is how the turn whose latest message is data ended, if it did
// no earlier than since.
func settledBy(data []byte, since time.Time) (string, bool) {
	var m message
	if json.Unmarshal(data, &m) != nil || m.Role != "assistant" || m.Time.Completed <= 0 {
		return "", false
	}
	if m.Time.Completed < since.UnixMilli() {
		return "", false
	}
	switch {
	case m.Error != nil && m.Error.Name == Aborted:
		return state.OutcomeCompleted, true
	case m.Error != nil:
		return state.OutcomeError, true
	case m.Finish == "tool-calls":
		return "", false // its tools run, and the model is asked again
	}
	return state.OutcomeCompleted, true
}

// validSession reports whether s can be an OpenCode session id
// ("ses_" and letters and digits).
func validSession(s string) bool {
	rest, ok := strings.CutPrefix(s, "ses_")
	return ok && rest != "" && len(s) <= 64 && strings.Trim(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == ""
}
