package logx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	logTypeRE   = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+\.v[1-9][0-9]*$`)
	timestampRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$`)
	levels      = map[string]bool{"DEBUG": true, "INFO": true, "WARNING": true, "ERROR": true}
)

// checkLine fails unless line is one standard-log-record.v1 and returns it.
func checkLine(t *testing.T, line string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	var rec map[string]any
	if err := dec.Decode(&rec); err != nil {
		t.Fatalf("not a JSON object: %q: %v", line, err)
	}
	if dec.More() {
		t.Fatalf("more than one value on a line: %q", line)
	}
	// No top-level key twice: with a duplicate, a reader may see either.
	for k, n := range topLevelKeys(t, line) {
		if n != 1 {
			t.Errorf("%q appears %d times at the top of %s", k, n, line)
		}
	}
	ts, _ := rec["timestamp"].(string)
	if !timestampRE.MatchString(ts) {
		t.Errorf("timestamp %q is not RFC 3339 (%s)", ts, line)
	} else if _, err := time.Parse(time.RFC3339, ts); err != nil {
		t.Errorf("timestamp %q: %v", ts, err)
	}
	if lv, _ := rec["level"].(string); !levels[lv] {
		t.Errorf("level %v not one of DEBUG|INFO|WARNING|ERROR (%s)", rec["level"], line)
	}
	if lt, _ := rec["log_type"].(string); !logTypeRE.MatchString(lt) {
		t.Errorf("log_type %v is not a versioned type (%s)", rec["log_type"], line)
	}
	if _, ok := rec["message"].(string); !ok {
		t.Errorf("message missing (%s)", line)
	}
	for _, k := range []string{"time", "msg"} {
		if _, ok := rec[k]; ok {
			t.Errorf("slog's own key %q leaked (%s)", k, line)
		}
	}
	return rec
}

// topLevelKeys counts the keys of the outermost object of line.
func topLevelKeys(t *testing.T, line string) map[string]int {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	counts := map[string]int{}
	depth := 0
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return counts
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				depth++
				expectKey = v == '{' && depth == 1
			case '}', ']':
				depth--
				expectKey = depth == 1
			}
		default:
			if depth == 1 {
				if expectKey {
					counts[v.(string)]++
				}
				expectKey = !expectKey
			}
		}
	}
}

func TestEveryLineIsAStandardRecord(t *testing.T) {
	cases := []struct {
		name    string
		log     func(l *slog.Logger)
		level   string
		logType string
		check   func(t *testing.T, rec map[string]any)
	}{
		{"info, default type", func(l *slog.Logger) { l.Info("listening", "addr", "127.0.0.1:1") }, "INFO", DefaultType, nil},
		{"debug", func(l *slog.Logger) { l.Debug("tick") }, "DEBUG", DefaultType, nil},
		{"warn is WARNING", func(l *slog.Logger) { l.Warn("setting ignored", "log_type", "agents-notch.settings.v1") }, "WARNING", "agents-notch.settings.v1", nil},
		{"error with the error object", func(l *slog.Logger) {
			l.Error("state.json not written", "log_type", "agents-notch.state.v1", Err("WriteError", errors.New("disk full")))
		}, "ERROR", "agents-notch.state.v1", func(t *testing.T, rec map[string]any) {
			e, _ := rec["error"].(map[string]any)
			if e["name"] != "WriteError" || e["message"] != "disk full" {
				t.Errorf("error = %v", rec["error"])
			}
		}},
		{"level between info and warn", func(l *slog.Logger) { l.Log(context.Background(), slog.Level(2), "x") }, "INFO", DefaultType, nil},
		{"level above error", func(l *slog.Logger) { l.Log(context.Background(), slog.Level(12), "x") }, "ERROR", DefaultType, nil},
		{"level below debug", func(l *slog.Logger) { l.Log(context.Background(), slog.Level(-8), "x") }, "DEBUG", DefaultType, nil},
		{"With log_type", func(l *slog.Logger) { l.With("log_type", "agents-notch.hub.v1").Info("x") }, "INFO", "agents-notch.hub.v1", nil},
		{"With other attrs", func(l *slog.Logger) { l.With("operation_id", "op-1").Info("x") }, "INFO", DefaultType, func(t *testing.T, rec map[string]any) {
			if rec["operation_id"] != "op-1" {
				t.Errorf("operation_id = %v", rec["operation_id"])
			}
		}},
		{"data group", func(l *slog.Logger) {
			l.Info("x", "log_type", "agents-notch.settings.v1", slog.Group("data", "file", "a.yml"))
		}, "INFO", "agents-notch.settings.v1", func(t *testing.T, rec map[string]any) {
			if d, _ := rec["data"].(map[string]any); d["file"] != "a.yml" {
				t.Errorf("data = %v", rec["data"])
			}
		}},
		{"WithGroup keeps log_type at the top", func(l *slog.Logger) { l.WithGroup("data").Info("x", "file", "a.yml") }, "INFO", DefaultType, func(t *testing.T, rec map[string]any) {
			if d, _ := rec["data"].(map[string]any); d["file"] != "a.yml" {
				t.Errorf("data = %v", rec["data"])
			}
		}},
		{"typed, then WithGroup", func(l *slog.Logger) {
			l.With("log_type", "agents-notch.follow.v1").WithGroup("data").Info("x", "n", 1)
		}, "INFO", "agents-notch.follow.v1", nil},
		{"an attribute named time", func(l *slog.Logger) { l.Info("x", "time", "yesterday") }, "INFO", DefaultType, nil},
		{"an attribute named level", func(l *slog.Logger) { l.Warn("x", "level", 3) }, "WARNING", DefaultType, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			c.log(New(&buf, slog.Level(-10)))
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if len(lines) != 1 || lines[0] == "" {
				t.Fatalf("%d lines, want 1: %q", len(lines), buf.String())
			}
			rec := checkLine(t, lines[0])
			if rec["level"] != c.level {
				t.Errorf("level %v, want %s", rec["level"], c.level)
			}
			if rec["log_type"] != c.logType {
				t.Errorf("log_type %v, want %s", rec["log_type"], c.logType)
			}
			if c.check != nil {
				c.check(t, rec)
			}
		})
	}
}

func TestLevelFilter(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf, slog.LevelInfo)
	l.Debug("hidden")
	l.Info("shown")
	if strings.Contains(buf.String(), "hidden") || !strings.Contains(buf.String(), "shown") {
		t.Errorf("level filter: %q", buf.String())
	}
}

func TestTimestampIsUTCNow(t *testing.T) {
	var buf bytes.Buffer
	before := time.Now().Add(-time.Second)
	New(&buf, slog.LevelInfo).Info("x")
	rec := checkLine(t, strings.TrimSpace(buf.String()))
	ts, err := time.Parse(time.RFC3339Nano, rec["timestamp"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if ts.Before(before) || ts.After(time.Now().Add(time.Second)) || !strings.HasSuffix(rec["timestamp"].(string), "Z") {
		t.Errorf("timestamp %v is not now in UTC", rec["timestamp"])
	}
}
