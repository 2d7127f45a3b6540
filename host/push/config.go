package push

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/notch-web/notch-web/host/ledger"
	"io"
	"io/fs"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/internal/ascii"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/jsonx"
)

// ConfigFile is the channels file's name in $DSH_HOME/state/agents-notch/.
// It holds tokens: the host reads it, never writes it, and warns when it is
// readable by others.
const ConfigFile = "notify.json"

// DefaultDelay is how long a row waits in its state before it is pushed:
// an approval answered in the terminal within it sends nothing.
const DefaultDelay = 10 * time.Second

// Bounds on the file and its values.
const (
	maxConfigBytes = 64 << 10
	maxDelay       = 10 * time.Minute
	maxChannels    = 16
	maxLevelAgents = 32
	maxLevels      = 4
	maxToken       = 512
	maxURL         = 2048
)

// Shapes of a webhook's body.
const (
	ShapeJSON    = "json"
	ShapeSlack   = "slack"
	ShapeDiscord = "discord"
)

// Config is the channels file, parsed and checked.
type Config struct {
	// Delay is how long a row waits before it is pushed.
	Delay time.Duration
	// WebPush is the Web Push channel's settings (the devices subscribe
	// themselves from the pane); nil: the defaults (needs-you, no quiet
	// hours).
	WebPush *ChannelConfig
	// Ntfy and Webhooks are the other channels, in the file's order.
	Ntfy     []NtfyConfig
	Webhooks []WebhookConfig
	// Levels are the plan-usage levels, in percent, at which a window
	// pushes (once per window), per agent ("*": every other agent); nil:
	// ledger.DefaultLevels for every agent. An empty list pushes none.
	Levels map[string][]float64
}

// LevelsFor are agent's push levels under c.
func (c Config) LevelsFor(agent string) []float64 {
	if l, ok := c.Levels[agent]; ok {
		return l
	}
	if l, ok := c.Levels["*"]; ok {
		return l
	}
	return ledger.DefaultLevels
}

// ChannelConfig is what every channel has: the kinds it sends and its quiet
// hours.
type ChannelConfig struct {
	Send  []string // of Kinds; the default is needs-you and limits (defaultSend)
	Quiet Quiet
}

// NtfyConfig is one ntfy topic.
type NtfyConfig struct {
	ChannelConfig
	Name  string
	URL   string // the topic's URL: https://ntfy.sh/TOPIC or a self-hosted one
	Token string // an access token, "" for none
}

// WebhookConfig is one webhook.
type WebhookConfig struct {
	ChannelConfig
	Name  string
	URL   string
	Shape string // ShapeJSON | ShapeSlack | ShapeDiscord
}

// Quiet is a daily span of local time in which a channel sends nothing
// (a message due then is dropped, not deferred). The zero value is none.
type Quiet struct {
	From, To int // minutes after midnight; From == To is none
}

// In reports whether t falls in the quiet span (local time of t).
func (q Quiet) In(t time.Time) bool {
	if q.From == q.To {
		return false
	}
	m := t.Hour()*60 + t.Minute()
	if q.From < q.To {
		return m >= q.From && m < q.To
	}
	return m >= q.From || m < q.To // across midnight
}

// String is the span as the file writes it ("22:00-07:00"), "" for none.
func (q Quiet) String() string {
	if q.From == q.To {
		return ""
	}
	return fmt.Sprintf("%02d:%02d-%02d:%02d", q.From/60, q.From%60, q.To/60, q.To%60)
}

// sends reports whether c sends kind.
func (c ChannelConfig) sends(kind string) bool {
	if kind == KindTest {
		return true
	}
	return slices.Contains(c.Send, kind)
}

// fileConfig is the file's JSON.
type fileConfig struct {
	Delay    *string              `json:"delay"`
	WebPush  *fileChannel         `json:"webpush"`
	Ntfy     []fileNtfy           `json:"ntfy"`
	Webhooks []fileWebhook        `json:"webhooks"`
	Limits   map[string][]float64 `json:"limits"`
}

type fileChannel struct {
	Send  []string `json:"send"`
	Quiet string   `json:"quiet"`
}

type fileNtfy struct {
	Name  string   `json:"name"`
	URL   string   `json:"url"`
	Token string   `json:"token"`
	Send  []string `json:"send"`
	Quiet string   `json:"quiet"`
}

type fileWebhook struct {
	Name  string   `json:"name"`
	URL   string   `json:"url"`
	Shape string   `json:"shape"`
	Send  []string `json:"send"`
	Quiet string   `json:"quiet"`
}

var (
	// A channel's name: 1 to 32 of a-z, 0-9 and -, not starting with -.
	nameChars = ascii.NewSet(ascii.Lower, ascii.Digits, "-")
	quietRE   = regexp.MustCompile(`^([01][0-9]|2[0-3]):([0-5][0-9])-([01][0-9]|2[0-3]):([0-5][0-9])$`)
)

// validName reports whether name may name a channel.
func validName(name string) bool { return nameChars.Span(name, 1, 32) && name[0] != '-' }

// ErrNoConfig: there is no channels file (no channel but Web Push, which
// needs none).
var ErrNoConfig = errors.New("no " + ConfigFile)

// LoadConfig reads the channels file at path. A missing file is
// ErrNoConfig with the defaults; a file readable by others is read, and
// warn says so (it holds tokens).
func LoadConfig(path string) (cfg Config, warn string, err error) {
	cfg = Config{Delay: DefaultDelay}
	data, err := fsx.ReadFileLimit(path, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, "", ErrNoConfig
	}
	if err != nil {
		return cfg, "", fmt.Errorf("reading %s: %w", filepath.Base(path), err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		warn = fmt.Sprintf("%s is readable by others (mode %04o) and holds tokens: chmod 600 it", ConfigFile, fi.Mode().Perm())
	}
	cfg, err = ParseConfig(data)
	if err != nil {
		return Config{Delay: DefaultDelay}, warn, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	return cfg, warn, nil
}

// ParseConfig parses the channels file's bytes: exactly one JSON object, no
// unknown or repeated fields, every value in its domain. Its errors name the
// line and the field and never quote a token or a URL.
func ParseConfig(data []byte) (Config, error) {
	cfg, err := parseConfig(data)
	var fe *fieldError
	if errors.As(err, &fe) {
		if line, ok := keyLines(data)[fe.path]; ok {
			return cfg, fmt.Errorf("line %d: %w", line, fe.err)
		}
		return cfg, fe.err
	}
	return cfg, err
}

// fieldError is a value refused, with the path of its key in the file
// ("ntfy[0].url"), so the error can name its line.
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string { return e.err.Error() }

func at(path string, err error) error { return &fieldError{path: path, err: err} }

func parseConfig(data []byte) (Config, error) {
	cfg := Config{Delay: DefaultDelay}
	var f fileConfig
	if err := jsonx.DecodeOne(data, &f, jsonx.Options{Strict: true}); err != nil {
		return cfg, errors.New(decodeReason(data, err))
	}
	if f.Delay != nil {
		d, err := time.ParseDuration(*f.Delay)
		if err != nil || d < 0 || d > maxDelay {
			return cfg, at("delay", fmt.Errorf("delay: %q is not a duration from 0s to %s", clip(*f.Delay), maxDelay))
		}
		cfg.Delay = d
	}
	if f.WebPush != nil {
		c, err := channelOf("webpush", "webpush", f.WebPush.Send, f.WebPush.Quiet)
		if err != nil {
			return cfg, err
		}
		cfg.WebPush = &c
	}
	if len(f.Limits) > maxLevelAgents {
		return cfg, at("limits", fmt.Errorf("limits: at most %d agents", maxLevelAgents))
	}
	for name, levels := range f.Limits {
		if name != "*" && !validName(name) {
			return cfg, at("limits", fmt.Errorf("limits: %q is not an agent's name (or \"*\")", clip(name)))
		}
		if len(levels) > maxLevels {
			return cfg, at("limits", fmt.Errorf("limits %s: at most %d levels", name, maxLevels))
		}
		for _, l := range levels {
			if !(l > 0 && l <= 100) {
				return cfg, at("limits", fmt.Errorf("limits %s: %v is not a percentage from 1 to 100", name, l))
			}
		}
		if cfg.Levels == nil {
			cfg.Levels = map[string][]float64{}
		}
		ls := slices.Clone(levels)
		slices.Sort(ls)
		cfg.Levels[name] = slices.Compact(ls)
	}
	if len(f.Ntfy)+len(f.Webhooks) > maxChannels {
		return cfg, fmt.Errorf("at most %d ntfy topics and webhooks", maxChannels)
	}
	names := map[string]bool{"webpush": true}
	named := func(where, name string) error {
		if !validName(name) {
			return at(where+".name", fmt.Errorf("%s: name %q: use 1–32 of a-z, 0-9 and -", where, clip(name)))
		}
		if names[name] {
			return at(where+".name", fmt.Errorf("%s: the name %q is used twice", where, name))
		}
		names[name] = true
		return nil
	}
	for i, n := range f.Ntfy {
		where := fmt.Sprintf("ntfy[%d]", i)
		if err := named(where, n.Name); err != nil {
			return cfg, err
		}
		path := where
		where = "ntfy " + n.Name
		if err := checkURL(where, n.URL, true); err != nil {
			return cfg, at(path+".url", err)
		}
		if err := checkToken(where, n.Token); err != nil {
			return cfg, at(path+".token", err)
		}
		c, err := channelOf(path, where, n.Send, n.Quiet)
		if err != nil {
			return cfg, err
		}
		cfg.Ntfy = append(cfg.Ntfy, NtfyConfig{ChannelConfig: c, Name: n.Name, URL: n.URL, Token: n.Token})
	}
	for i, w := range f.Webhooks {
		where := fmt.Sprintf("webhooks[%d]", i)
		if err := named(where, w.Name); err != nil {
			return cfg, err
		}
		path := where
		where = "webhook " + w.Name
		if err := checkURL(where, w.URL, false); err != nil {
			return cfg, at(path+".url", err)
		}
		shape := w.Shape
		if shape == "" {
			shape = ShapeJSON
		}
		if shape != ShapeJSON && shape != ShapeSlack && shape != ShapeDiscord {
			return cfg, at(path+".shape", fmt.Errorf("%s: shape %q: use json, slack or discord", where, clip(w.Shape)))
		}
		c, err := channelOf(path, where, w.Send, w.Quiet)
		if err != nil {
			return cfg, err
		}
		cfg.Webhooks = append(cfg.Webhooks, WebhookConfig{ChannelConfig: c, Name: w.Name, URL: w.URL, Shape: shape})
	}
	return cfg, nil
}

// channelOf is a channel's kinds and quiet hours; path is where the
// channel is in the file ("ntfy[0]"), where how its errors name it.
func channelOf(path, where string, send []string, quiet string) (ChannelConfig, error) {
	c := ChannelConfig{Send: slices.Clone(defaultSend)}
	if send != nil {
		c.Send = nil
		for _, k := range send {
			if !slices.Contains(Kinds, k) {
				return c, at(path+".send", fmt.Errorf("%s: send %q: use %s", where, clip(k), strings.Join(Kinds, ", ")))
			}
			if !slices.Contains(c.Send, k) {
				c.Send = append(c.Send, k)
			}
		}
	}
	if quiet != "" {
		m := quietRE.FindStringSubmatch(quiet)
		if m == nil {
			return c, at(path+".quiet", fmt.Errorf("%s: quiet %q: write it as HH:MM-HH:MM (local time), e.g. 22:00-07:00", where, clip(quiet)))
		}
		c.Quiet = Quiet{From: atoi(m[1])*60 + atoi(m[2]), To: atoi(m[3])*60 + atoi(m[4])}
	}
	return c, nil
}

// checkURL: absolute http(s), no user info, bounded. Plain http only to a
// loopback host or when allowed (a self-hosted ntfy on the LAN is common;
// a webhook's URL is a secret and goes over https).
func checkURL(where, raw string, httpOK bool) error {
	u, err := url.Parse(raw)
	if raw == "" || len(raw) > maxURL || err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%s: url: an absolute https:// URL with no user or #fragment, at most %d bytes", where, maxURL)
	}
	if u.Scheme == "http" && !httpOK && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("%s: url: use https:// (plain http only to this machine)", where)
	}
	return nil
}

func checkToken(where, tok string) error {
	if len(tok) > maxToken {
		return fmt.Errorf("%s: token: at most %d bytes", where, maxToken)
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] <= ' ' || tok[i] >= 0x7f {
			return fmt.Errorf("%s: token: printable ASCII with no spaces", where)
		}
	}
	return nil
}

// loopbackHost reports whether h names this machine: localhost, or an
// address that parses as a loopback one (127.0.0.0/8, ::1) — never a name
// that merely begins like one (127.example.invalid).
func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

// decodeReason is why the file did not decode, for a person editing it:
// the line and the field, in the file's words — never a Go type or a byte
// offset.
func decodeReason(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var de *jsonx.DuplicateError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("line %d: not valid JSON (%s)", lineAt(data, se.Offset), strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the file"
		}
		return fmt.Sprintf("line %d: %s: want %s, not a JSON %s", lineAt(data, te.Offset), field, kindWords(te.Type), te.Value)
	case errors.As(err, &de):
		return fmt.Sprintf("line %d: %q is given twice in one object", lineAt(data, int64(de.Offset)), de.Key)
	case errors.Is(err, jsonx.ErrTrailing):
		return "something follows the one JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the JSON stops early"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if key, ok := strings.CutPrefix(msg, "unknown field "); ok {
		if name, err := strconv.Unquote(key); err == nil {
			if i := bytes.Index(data, []byte(strconv.Quote(name))); i >= 0 {
				return fmt.Sprintf("line %d: unknown field %q", lineAt(data, int64(i)), clip(name))
			}
			return fmt.Sprintf("unknown field %q", clip(name))
		}
	}
	return msg
}

// keyLines maps the path of each key in data ("delay", "ntfy[0].url") to
// its line (the first, when a path repeats). data has decoded already; a
// token the walk cannot read ends it.
func keyLines(data []byte) map[string]int {
	type frame struct {
		obj  bool
		path string
		key  string // an object's current key
		has  bool   // key is set: the next token is its value
		n    int    // an array's values so far
	}
	out := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	// valuePath is the path of the value about to be read.
	valuePath := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if !f.obj {
			return fmt.Sprintf("%s[%d]", f.path, f.n)
		}
		if f.path == "" {
			return f.key
		}
		return f.path + "." + f.key
	}
	// done moves the parent past the value just read.
	done := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.obj {
			f.key, f.has = "", false
		} else {
			f.n++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				stack = append(stack, &frame{obj: d == '{', path: valuePath()})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
			continue
		}
		if f := stackTop(stack); f != nil && f.obj && !f.has {
			k, _ := tok.(string)
			f.key, f.has = k, true
			p := valuePath()
			if _, seen := out[p]; !seen {
				out[p] = lineAt(data, dec.InputOffset())
			}
			continue
		}
		done()
	}
}

func stackTop[T any](s []*T) *T {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

// lineAt is the line (from 1) of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// kindWords says what a field takes, in JSON's words.
func kindWords(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list [...]"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object {...}"
	case reflect.Bool:
		return "true or false"
	default:
		return "a number"
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// clip bounds a value quoted in an error.
func clip(s string) string {
	const max = 40
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
