package logx

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// Every record is at most MaxRecord bytes (the standard's 65,536), still a
// standard record: a hand-edited settings.json with a 70,000-character key
// makes a warning whose data is cut, not a 140 KB line.
func TestRecordsAreCapped(t *testing.T) {
	huge := strings.Repeat("k", 70_000)
	cases := []struct {
		name string
		log  func(l *slog.Logger)
		keep string // a word the capped record must still hold
	}{
		{"a huge data value", func(l *slog.Logger) {
			l.Warn("setting ignored", "log_type", TypeSettings, slog.Group("data", "key", huge, "reason", "unknown key"))
		}, "setting ignored"},
		{"a huge message", func(l *slog.Logger) { l.Info(huge + " tail") }, "kkkk"},
		{"a huge error", func(l *slog.Logger) {
			l.Error("state.json not written", "log_type", TypeState, Err("WriteError", errors.New(huge)))
		}, "WriteError"},
		{"many attributes", func(l *slog.Logger) {
			var as []any
			for i := range 2000 {
				as = append(as, strings.Repeat("a", 10)+string(rune('a'+i%26))+strings.Repeat("b", i%7), huge[:100])
			}
			l.Info("wide", as...)
		}, "wide"},
		// JSON writes these bytes as six each (\u003c, \u0001, \ufffd): a
		// cut by bytes of text alone left a 98,524-byte record.
		{"a huge message and error JSON escapes", func(l *slog.Logger) {
			lt := strings.Repeat("<", 70_000)
			l.Error(lt, "log_type", TypeState, Err("WriteError", errors.New(lt)), slog.Group("data", "k", lt))
		}, "WriteError"},
		{"control characters", func(l *slog.Logger) {
			cc := strings.Repeat("\x01", 70_000)
			l.Error(cc, "log_type", TypeState, Err("WriteError", errors.New(cc)))
		}, "WriteError"},
		{"invalid UTF-8", func(l *slog.Logger) {
			bad := strings.Repeat("\xff", 70_000)
			l.Error(bad, "log_type", TypeState, Err("WriteError", errors.New(bad)))
		}, "WriteError"},
		{"a panic's stack of escapes", func(l *slog.Logger) {
			Fatal(l, strings.Repeat("&", 70_000), []byte(strings.Repeat("<", 70_000)))
		}, "Panic"},
		{"a small record is as it was", func(l *slog.Logger) { l.Info("small", "log_type", TypeHost) }, "small"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			tc.log(New(&buf, slog.LevelDebug))
			line := buf.Bytes()
			if len(line) > MaxRecord {
				t.Fatalf("a %d-byte record (max %d)", len(line), MaxRecord)
			}
			if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
				t.Fatalf("not one line: %q…", line[:min(200, len(line))])
			}
			var rec map[string]any
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			for _, k := range []string{"timestamp", "level", "log_type", "message"} {
				if _, ok := rec[k]; !ok {
					t.Errorf("the record lost %s: %v", k, rec)
				}
			}
			if !strings.Contains(string(line), tc.keep) {
				t.Errorf("the record lost %q", tc.keep)
			}
		})
	}
}

// A panic becomes the standard fatal ERROR record (level ERROR, fatal
// true, error {name Panic, message, stack}), then the exit it is given.
func TestPanicIsTheFatalRecord(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf, slog.LevelInfo)
	code := -1
	func() {
		defer Recover(l, func(c int) { code = c })()
		var s []int
		_ = s[len(s)] // out of range: a runtime panic
	}()
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	var rec struct {
		Level, LogType, Message string
		Fatal                   bool
		Error                   struct{ Name, Message, Stack string }
	}
	if err := json.Unmarshal(bytes.ReplaceAll(buf.Bytes(), []byte(`"log_type"`), []byte(`"logtype"`)), &rec); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	if rec.Level != "ERROR" || !rec.Fatal || rec.Error.Name != "Panic" || !strings.Contains(rec.Error.Message, "index out of range") ||
		!strings.Contains(rec.Error.Stack, "TestPanicIsTheFatalRecord") || !strings.Contains(rec.Message, "index out of range") {
		t.Errorf("record %+v", rec)
	}
	// No panic: nothing written, no exit.
	buf.Reset()
	code = -1
	func() { defer Recover(l, func(c int) { code = c })() }()
	if code != -1 || buf.Len() != 0 {
		t.Errorf("without a panic: exit %d, %q", code, buf.String())
	}
}

// Guard ends a goroutine's panic with the fatal record and Exit, which a
// test replaces (SetExit); restored, Exit is os.Exit again.
func TestGuardUsesSetExit(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf, slog.LevelInfo)
	codes := make(chan int, 1)
	restore := SetExit(func(c int) { codes <- c })
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer Guard(l)()
		panic("a goroutine's defect")
	}()
	<-done
	restore()
	if c := <-codes; c != 2 {
		t.Fatalf("exit %d, want 2", c)
	}
	if !strings.Contains(buf.String(), `"fatal":true`) || !strings.Contains(buf.String(), `"name":"Panic"`) || !strings.Contains(buf.String(), "a goroutine's defect") {
		t.Errorf("record %s", buf.String())
	}
	if exitFn.Load() != nil {
		t.Errorf("restore left a stand-in")
	}
}

// FuzzRecordCap: whatever a record's message, error and data hold, and
// however large, the line written is one standard record of at most
// MaxRecord bytes.
func FuzzRecordCap(f *testing.F) {
	f.Add("setting ignored", "", "k", 1)
	f.Add("<", "&", ">", 70_000)
	f.Add("\x01", "\x7f", "\u2028", 40_000)
	f.Add("\xff", "\xc3", "é", 30_000)
	f.Fuzz(func(t *testing.T, msg, errMsg, data string, n int) {
		n = 1 + (n%80_000+80_000)%80_000
		rep := func(s string) string {
			if s == "" {
				return s
			}
			return strings.Repeat(s, min(n, 200_000/len(s)+1))
		}
		var buf bytes.Buffer
		l := New(&buf, slog.LevelDebug)
		l.Error(rep(msg), "log_type", TypeState, Err("E", errors.New(rep(errMsg))), slog.Group("data", "k", rep(data)))
		line := buf.Bytes()
		if len(line) > MaxRecord {
			t.Fatalf("a %d-byte record (max %d)", len(line), MaxRecord)
		}
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("not one line")
		}
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		for _, k := range []string{"timestamp", "level", "log_type", "message"} {
			if _, ok := rec[k]; !ok {
				t.Fatalf("the record lost %s", k)
			}
		}
	})
}
