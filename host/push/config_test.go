package push

import (
	"errors"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// nameRE is what a channel's name may be, as a regexp: the spec nameChars is held to.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// TestConfigLevels: the plan-usage levels are per agent, "*" for the
// others, 80 % and 95 % when the file does not say; an empty list is none.
func TestConfigLevels(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"limits": {"codex": [95, 50, 95], "*": [90], "gemini": []}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		agent string
		want  []float64
	}{{"codex", []float64{50, 95}}, {"claude-code", []float64{90}}, {"gemini", []float64{}}} {
		if got := cfg.LevelsFor(c.agent); !slices.Equal(got, c.want) {
			t.Errorf("LevelsFor(%s) = %v, want %v", c.agent, got, c.want)
		}
	}
	if got := (Config{}).LevelsFor("codex"); !slices.Equal(got, []float64{80, 95}) {
		t.Errorf("the default levels are %v, want 80 and 95", got)
	}
}

func TestParseConfig(t *testing.T) {
	good := `{
	  "delay": "20s",
	  "webpush": {"send": ["needs-you", "failed"], "quiet": "22:00-07:00"},
	  "ntfy": [{"name": "phone", "url": "https://ntfy.sh/my-topic", "token": "tk_abc", "send": ["needs-you"]}],
	  "webhooks": [{"name": "team", "url": "https://hooks.slack.com/services/T/B/X", "shape": "slack"},
	               {"name": "mine", "url": "http://127.0.0.1:9000/hook"}]
	}`
	cfg, err := ParseConfig([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Delay != 20*time.Second || cfg.WebPush.Quiet.String() != "22:00-07:00" || len(cfg.WebPush.Send) != 2 ||
		cfg.Ntfy[0].Token != "tk_abc" || cfg.Webhooks[0].Shape != ShapeSlack || cfg.Webhooks[1].Shape != ShapeJSON ||
		len(cfg.Webhooks[1].Send) != 2 || cfg.Webhooks[1].Send[0] != KindNeedsYou || cfg.Webhooks[1].Send[1] != KindLimits {
		t.Errorf("parsed %+v", cfg)
	}
	if cfg, err := ParseConfig([]byte(`{}`)); err != nil || cfg.Delay != DefaultDelay {
		t.Errorf("{} is the defaults: %+v %v", cfg, err)
	}

	for _, c := range []struct{ name, in, want string }{
		{"not json", `{`, "JSON"},
		{"two objects", `{}{}`, "follows"},
		{"unknown field", `{"dely": "1s"}`, "dely"},
		{"unknown channel field", `{"ntfy": [{"name": "a", "url": "https://x/t", "topic": "t"}]}`, "topic"},
		{"bad delay", `{"delay": "soon"}`, "delay"},
		{"negative delay", `{"delay": "-1s"}`, "delay"},
		{"long delay", `{"delay": "1h"}`, "delay"},
		{"bad name", `{"ntfy": [{"name": "Phone!", "url": "https://x/t"}]}`, "name"},
		{"reserved name", `{"ntfy": [{"name": "webpush", "url": "https://x/t"}]}`, "twice"},
		{"same name twice", `{"ntfy": [{"name": "a", "url": "https://x/t"}], "webhooks": [{"name": "a", "url": "https://x/h"}]}`, "twice"},
		{"no url", `{"ntfy": [{"name": "a"}]}`, "url"},
		{"relative url", `{"ntfy": [{"name": "a", "url": "/topic"}]}`, "url"},
		{"user in url", `{"ntfy": [{"name": "a", "url": "https://u:p@x/t"}]}`, "url"},
		{"ftp url", `{"webhooks": [{"name": "a", "url": "ftp://x/h"}]}`, "url"},
		{"plain http webhook", `{"webhooks": [{"name": "a", "url": "http://example.com/h"}]}`, "https"},
		{"token with space", `{"ntfy": [{"name": "a", "url": "https://x/t", "token": "a b"}]}`, "token"},
		{"token with newline", `{"ntfy": [{"name": "a", "url": "https://x/t", "token": "a\nb"}]}`, "token"},
		{"bad kind", `{"webpush": {"send": ["everything"]}}`, "send"},
		{"bad quiet", `{"webpush": {"quiet": "10pm-7am"}}`, "quiet"},
		{"bad hour", `{"webpush": {"quiet": "24:00-07:00"}}`, "quiet"},
		{"limits not a percentage", `{"limits": {"codex": [120]}}`, "percentage"},
		{"limits zero", `{"limits": {"codex": [0]}}`, "percentage"},
		{"limits not an agent", `{"limits": {"Codex!": [80]}}`, "agent"},
		{"limits too many", `{"limits": {"codex": [1, 2, 3, 4, 5]}}`, "at most"},
		{"limits wrong type", `{"limits": {"codex": "80"}}`, "limits"},
		{"bad shape", `{"webhooks": [{"name": "a", "url": "https://x/h", "shape": "teams"}]}`, "shape"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}

func TestParseConfigErrorsNeverQuoteASecret(t *testing.T) {
	for _, in := range []string{
		`{"ntfy": [{"name": "a", "url": "https://u:hunter2@x/t"}]}`,
		`{"ntfy": [{"name": "a", "url": "https://x/t", "token": "hunter2 x"}]}`,
		`{"webhooks": [{"name": "a", "url": "http://example.com/hunter2"}]}`,
	} {
		if _, err := ParseConfig([]byte(in)); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: error %v quotes the secret", in, err)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ConfigFile)
	if cfg, _, err := LoadConfig(path); !errors.Is(err, ErrNoConfig) || cfg.Delay != DefaultDelay {
		t.Errorf("a missing file: %v %+v", err, cfg)
	}
	if err := os.WriteFile(path, []byte(`{"delay": "3s"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, warn, err := LoadConfig(path)
	if err != nil || cfg.Delay != 3*time.Second || !strings.Contains(warn, "chmod 600") {
		t.Errorf("a 0644 file is read and warned of: %+v %q %v", cfg, warn, err)
	}
	os.Chmod(path, 0o600)
	if _, warn, _ := LoadConfig(path); warn != "" {
		t.Errorf("a 0600 file warns %q", warn)
	}
	os.WriteFile(path, []byte(`{"delay": 3}`), 0o600)
	if _, _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), ConfigFile) {
		t.Errorf("a bad file's error names it: %v", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{}`))                                                    // the defaults
	f.Add([]byte(`{"delay": "10s", "webpush": {"quiet": "22:00-07:00"}}`)) // quiet hours
	f.Add([]byte(`{"ntfy": [{"name": "a", "url": "https://ntfy.sh/t", "token": "tk"}]}`))
	f.Add([]byte(`{"webhooks": [{"name": "a", "url": "https://x/h", "shape": "discord", "send": ["failed"]}]}`))
	f.Add([]byte(`{"ntfy": [{"name": "a", "url": "https://x/t"}], "ntfy": []}`)) // a repeated key
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			return
		}
		if cfg.Delay < 0 || cfg.Delay > maxDelay {
			t.Fatalf("delay %s out of range", cfg.Delay)
		}
		for _, n := range cfg.Ntfy {
			if checkURL("", n.URL, true) != nil || checkToken("", n.Token) != nil || !nameRE.MatchString(n.Name) {
				t.Fatalf("an ntfy entry that does not check: %+v", n)
			}
		}
		for _, w := range cfg.Webhooks {
			if checkURL("", w.URL, false) != nil || !nameRE.MatchString(w.Name) {
				t.Fatalf("a webhook that does not check: %+v", w)
			}
		}
	})
}

func FuzzValidName(f *testing.F) {
	for _, n := range []string{"", "a", "-a", "a-", "phone-2", "Phone", "a b", strings.Repeat("a", 32), strings.Repeat("a", 33), "é"} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := validName(name), nameRE.MatchString(name); got != want {
			t.Errorf("validName(%q) = %v, the regexp says %v", name, got, want)
		}
	})
}

// TestPlainHTTPOnlyToThisMachine: a webhook's plain http URL must name
// this machine — an address that parses as loopback, or localhost — not
// any name that merely begins like one.
func TestPlainHTTPOnlyToThisMachine(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:9000/hook", true},
		{"http://127.1.2.3/hook", true},
		{"http://[::1]:9000/hook", true},
		{"http://localhost:9000/hook", true},
		{"https://127.example.invalid/hook", true}, // https goes anywhere
		{"http://127.example.invalid/hook", false},
		{"http://127.0.0.1.example.com/hook", false},
		{"http://127./hook", false},
		{"http://127.0.0.1.nip.io/hook", false},
		{"http://localhost.example.com/hook", false},
		{"http://10.0.0.1/hook", false},
		{"http://[::ffff:127.0.0.1]/hook", true}, // 127.0.0.1, mapped
		{"http://0.0.0.0/hook", false},
		{"http://[::]/hook", false},
		{"http://2130706433/hook", false}, // 127.0.0.1 as a number: resolvers differ, so no
	} {
		err := checkURL("webhook a", c.url, false)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok=%v", c.url, err, c.ok)
		}
	}
}

// FuzzCheckURL: whatever URL a channel's check takes is absolute http(s)
// with no user or fragment, bounded, and plain http only to a loopback
// address or localhost (unless the channel allows http, as ntfy does).
func FuzzCheckURL(f *testing.F) {
	f.Add("https://ntfy.sh/topic", false)           // the usual
	f.Add("http://127.0.0.1:8080/hook", false)      // this machine
	f.Add("http://127.example.invalid/hook", false) // looks like it, is not
	f.Add("http://[::1]/x", false)                  // IPv6 loopback
	f.Add("http://ntfy.lan/topic", true)            // a self-hosted ntfy
	f.Add("https://u:p@x/t", false)                 // user info
	f.Add("http://127.0.0.1%25eth0/x", false)       // a zone
	f.Fuzz(func(t *testing.T, raw string, httpOK bool) {
		if checkURL("x", raw, httpOK) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || len(raw) > maxURL {
			t.Fatalf("took %q", raw)
		}
		switch u.Scheme {
		case "https":
		case "http":
			if httpOK {
				break
			}
			h := u.Hostname()
			a, err := netip.ParseAddr(h)
			if h != "localhost" && (err != nil || !a.IsLoopback()) {
				t.Fatalf("took plain http to %q, not this machine", h)
			}
		default:
			t.Fatalf("took scheme %q", u.Scheme)
		}
	})
}

// A file that does not decode is told by line and field, in JSON's words:
// never a Go type (push.fileNtfy) or a byte offset.
func TestConfigDecodeErrorsNameTheLineAndField(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"ntfy": {}}`, `line 1: ntfy: want a list [...], not a JSON object`},
		{"{\n \"ntfy\": [\n  {\"name\": 5}]}", `line 3: ntfy.name: want a string, not a JSON number`},
		{"{\n\"delay\": 10}", `line 2: delay: want a string, not a JSON number`},
		{"{\n\n \"ntfy\": [,]}", `line 3: not valid JSON`},
		{`{"webhooks":[{"name":"a","url":"https://x","send":"failed"}]}`, `line 1: webhooks.send: want a list [...], not a JSON string`},
		{"{\n\"x\": 1}", `line 2: unknown field "x"`},
		{"{\n\"delay\": \"1s\",\n\"delay\": \"2s\"}", `line 3: "delay" is given twice`},
		{"{\n\"webpush\": true}", `line 2: webpush: want an object {...}, not a JSON bool`},
		{`{} {}`, `something follows`},
		{`{"delay": "1s"`, `stops early`},
	} {
		_, err := ParseConfig([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "push.") || strings.Contains(err.Error(), "byte") {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// A value refused by its check is told by its line too.
func TestConfigCheckErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\n  \"delay\": \"soon\"\n}", "line 2: delay:"},
		{"{\"webpush\": {\n  \"send\": [\"all\"]}}", "line 2: webpush: send"},
		{"{\"webpush\": {\"send\": [\"failed\"],\n \"quiet\": \"10pm\"}}", "line 2: webpush: quiet"},
		{"{\"ntfy\": [\n {\"name\": \"a\", \"url\": \"https://x/t\"},\n {\"name\": \"B\",\n  \"url\": \"https://x/t\"}]}", "line 3: ntfy[1]: name"},
		{"{\"ntfy\": [{\"name\": \"a\",\n \"url\": \"ftp://x/t\"}]}", "line 2: ntfy a: url"},
		{"{\"ntfy\": [{\"name\": \"a\", \"url\": \"https://x/t\",\n\n \"token\": \"a b\"}]}", "line 3: ntfy a: token"},
		{"{\"webhooks\": [{\"name\": \"a\", \"url\": \"https://x/h\",\n \"shape\": \"teams\"}]}", "line 2: webhook a: shape"},
		{"{\"webhooks\": [{\"name\": \"a\",\n \"url\": \"http://127.example.invalid/h\"}]}", "line 2: webhook a: url"},
		{"{\"webhooks\": [{\"name\": \"a\", \"url\": \"https://x/h\"},\n {\"name\": \"a\", \"url\": \"https://x/h\"}]}", "line 2: webhooks[1]: the name"},
	} {
		_, err := ParseConfig([]byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want it to start %q", c.in, err, c.want)
		}
	}
}

// FuzzKeyLines: the walk over any input ends, and names lines within it.
func FuzzKeyLines(f *testing.F) {
	f.Add([]byte(`{"ntfy": [{"name": "a", "url": "https://x/t"}]}`)) // a channel
	f.Add([]byte("{\n\"\": {\"\": [1, {\"a\": 2}]}}"))               // empty keys, nesting
	f.Add([]byte(`[[[]]]`))                                          // no object
	f.Add([]byte(`{"a":`))                                           // truncated
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := 1 + strings.Count(string(data), "\n")
		for p, l := range keyLines(data) {
			if l < 1 || l > lines {
				t.Fatalf("%q at line %d of %d", p, l, lines)
			}
		}
	})
}
