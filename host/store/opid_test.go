package store

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
)

// A board click's operation id (host.RecordedAnswer.OperationID, also on
// the approval's and the request's log records) reaches its answer's row
// and the export; a file of schema 5 keeps its answers, with no id.
func TestAnAnswerKeepsItsOperationID(t *testing.T) {
	path, db, exec := atSchema(t, 5)
	m := time.Minute
	exec(`INSERT INTO sessions (rowid, machine, id, started_ms) VALUES (?, ?, 'a', ?)`, startKey(at(0)), Local, at(0))
	exec(`INSERT INTO events (machine, oseq, session, at_ms, type) VALUES (?, 100, 'a', ?, 'session.opened')`, Local, at(0))
	exec(`INSERT INTO answers (machine, session, call, asked_ms, answered_ms, agent, tool, by, device, outcome, oseq) VALUES
		(?, 'a', 't1', ?, ?, 'claude-code', 'Bash', 'board', 'phone', 'allowed', 101)`, Local, at(3*m), at(4*m))
	exec(`INSERT INTO feeds (machine, oseq) VALUES (?, 101)`, Local)
	db.Close()

	now := day0.Add(time.Hour)
	s := openAt(t, path, Options{Now: func() time.Time { return now }})
	var v int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != Version || Version < 7 {
		t.Fatalf("schema %d (%v) after the migration, this build's %d", v, err, Version)
	}
	s.RecordAnswer(host.RecordedAnswer{Session: "a", Call: "t2", By: host.ByBoard, Outcome: host.OutcomeAllowed,
		Asked: day0.Add(10 * m), Answered: day0.Add(11 * m), OperationID: "0123456789abcdef"})
	s.RecordAnswer(host.RecordedAnswer{Session: "a", Call: "t3", By: host.ByBoard, Outcome: host.OutcomeDenied,
		Asked: day0.Add(12 * m), Answered: day0.Add(13 * m), OperationID: "x\u202e<b>" + strings.Repeat("f", 100)})
	flush(t, s)
	ans, err := s.Answers(context.Background(), Local, "a")
	if err != nil || len(ans) != 3 {
		t.Fatalf("answers: %+v %v", ans, err)
	}
	for i, want := range []string{"", "0123456789abcdef", ""} {
		if ans[i].OperationID != want {
			t.Errorf("answer %s: operation id %q, want %q", ans[i].Call, ans[i].OperationID, want)
		}
	}
	var buf bytes.Buffer
	if err := s.Export(context.Background(), &buf, time.Time{}, "jsonl"); err != nil {
		t.Fatal(err)
	}
	var row struct {
		Answers []struct {
			Call        string
			OperationID *string `json:"operationId"`
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &row); err != nil || len(row.Answers) != 3 {
		t.Fatalf("export %s: %v", buf.String(), err)
	}
	if a := row.Answers[1]; a.Call != "t2" || a.OperationID == nil || *a.OperationID != "0123456789abcdef" {
		t.Errorf("exported answer %+v", a)
	}
	if row.Answers[0].OperationID != nil || row.Answers[2].OperationID != nil {
		t.Errorf("an answer with no id exports one: %s", buf.String())
	}
}

func TestOperationIDIsOneOfOurs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"0123456789abcdef", "0123456789abcdef"},
		{"op-1_A", "op-1_A"},
		{strings.Repeat("a", maxOperationID), strings.Repeat("a", maxOperationID)},
		{strings.Repeat("a", maxOperationID+1), ""},
		{"a b", ""},
		{"a\nb", ""},
		{"\u202eabc", ""}, // bidi
		{"<script>", ""},
		{"é", ""},
	} {
		if got := operationID(c.in); got != c.want {
			t.Errorf("operationID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzOperationID: an id from anywhere (another machine's answer, a
// hand-made request) is kept whole only when it is one of ours — at most
// maxOperationID letters, digits, '-' and '_' — and is otherwise empty.
func FuzzOperationID(f *testing.F) {
	for _, s := range []string{"", "op-1_A", "a b", "\u202eabc", "<script>", strings.Repeat("a", maxOperationID+1)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := operationID(in)
		if got == "" {
			return
		}
		if got != in || len(got) > maxOperationID {
			t.Fatalf("operationID(%q) = %q", in, got)
		}
		for _, r := range got {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				t.Fatalf("operationID(%q) kept %q", in, r)
			}
		}
	})
}
