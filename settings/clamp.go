package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Keys lists the fourteen settings in the contract's order.
var Keys = []string{
	"scale", "screen", "anchor", "maxRows", "hideFullscreen", "opacity", "motion",
	"showProject", "showDone", "hoverMode", "holdMs", "topEdgeOpens", "ghostOpacity", "alerts",
}

// ErrUnknownKey is returned for a key that is not one of the fourteen.
var ErrUnknownKey = errors.New("unknown setting")

// ValueError says why one key's value was refused.
type ValueError struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

func (e *ValueError) Error() string { return e.Key + ": " + e.Reason }

type kind int

const (
	kindNumber kind = iota
	kindInt
	kindBool
	kindEnum
	kindScreen
)

type spec struct {
	kind     kind
	min, max float64
	enum     []string
}

var specs = map[string]spec{
	"scale":          {kind: kindNumber, min: 0.75, max: 2.0},
	"screen":         {kind: kindScreen},
	"anchor":         {kind: kindEnum, enum: []string{"top-center", "top-left", "top-right"}},
	"maxRows":        {kind: kindInt, min: 3, max: 10},
	"hideFullscreen": {kind: kindBool},
	"opacity":        {kind: kindNumber, min: 0.35, max: 1.0},
	"motion":         {kind: kindEnum, enum: []string{"auto", "on", "off"}},
	"showProject":    {kind: kindBool},
	"showDone":       {kind: kindBool},
	"hoverMode":      {kind: kindEnum, enum: []string{"ghost", "open"}},
	"holdMs":         {kind: kindInt, min: 500, max: 4000},
	"topEdgeOpens":   {kind: kindBool},
	"ghostOpacity":   {kind: kindNumber, min: 0.05, max: 0.6},
	"alerts":         {kind: kindEnum, enum: []string{"all", "needs-you", "off"}},
}

// maxScreen bounds the 1-based display number; no desk has more.
const maxScreen = 64

// IsKey reports whether key is one of the fourteen settings.
func IsKey(key string) bool { _, ok := specs[key]; return ok }

// Range returns the clamp bounds of a numeric key (ok false for the others).
func Range(key string) (lo, hi float64, ok bool) {
	s, found := specs[key]
	if !found || (s.kind != kindNumber && s.kind != kindInt) {
		return 0, 0, false
	}
	return s.min, s.max, true
}

// Choices returns the allowed values of an enumerated key.
func Choices(key string) []string { return specs[key].enum }

// ParseValue parses one raw value of key, as it arrives from JSON or YAML, and
// clamps it into the key's range. Numbers clamp; a value of the wrong type, an
// unknown choice or a non-finite number is refused with a *ValueError, so the
// caller can fall back to the layer beneath. The result has the Go type of the
// Settings field: float64, int, bool or string.
func ParseValue(key string, raw any) (any, error) {
	s, ok := specs[key]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownKey, key)
	}
	bad := func(format string, a ...any) error {
		return &ValueError{Key: key, Reason: fmt.Sprintf(format, a...)}
	}
	switch s.kind {
	case kindNumber, kindInt:
		f, err := toNumber(raw)
		if err != nil {
			return nil, bad("%v", err)
		}
		f = math.Min(math.Max(f, s.min), s.max)
		if s.kind == kindInt {
			return int(math.Round(f)), nil
		}
		return f, nil
	case kindBool:
		switch v := raw.(type) {
		case bool:
			return v, nil
		case string:
			switch strings.TrimSpace(v) {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
		}
		return nil, bad("want true or false, got %s", describe(raw))
	case kindEnum:
		if v, ok := raw.(string); ok {
			for _, c := range s.enum {
				if strings.TrimSpace(v) == c {
					return c, nil
				}
			}
		}
		return nil, bad("want one of %s, got %s", strings.Join(quoteAll(s.enum), ", "), describe(raw))
	case kindScreen:
		var str string
		switch v := raw.(type) {
		case string:
			str = strings.TrimSpace(v)
		case float64, int, int64, uint64, json.Number:
			f, err := toNumber(v)
			if err == nil && f == math.Trunc(f) && math.Abs(f) < 1e6 {
				str = strconv.Itoa(int(f))
			}
		}
		if str == "primary" || str == "cursor" {
			return str, nil
		}
		if n, err := strconv.Atoi(str); err == nil && n >= 1 && n <= maxScreen && str == strconv.Itoa(n) {
			return str, nil
		}
		return nil, bad(`want "primary", "cursor" or a display number "1" … "%d", got %s`, maxScreen, describe(raw))
	}
	return nil, bad("unsupported")
}

func toNumber(raw any) (float64, error) {
	var f float64
	switch v := raw.(type) {
	case float64:
		f = v
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	case uint64:
		f = float64(v)
	case json.Number:
		p, err := v.Float64()
		if err != nil {
			return 0, fmt.Errorf("want a number, got %q", string(v))
		}
		f = p
	case string:
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0, fmt.Errorf("want a number, got %s", describe(raw))
		}
		f = p
	default:
		return 0, fmt.Errorf("want a number, got %s", describe(raw))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a finite number, got %v", f)
	}
	return f, nil
}

func describe(raw any) string {
	switch v := raw.(type) {
	case nil:
		return "null"
	case string:
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case float64, int, int64, uint64, json.Number:
		return fmt.Sprint(v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", raw)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// Partial is one layer: only the keys that layer sets, each already parsed
// and clamped (float64, int, bool or string).
type Partial map[string]any

// Warning reports a value a layer's file carried that was ignored, and why.
type Warning struct {
	File    string `json:"file"`
	Key     string `json:"key,omitempty"`
	Message string `json:"message"`
	// clamped marks a value that was used, clamped into range: nothing of
	// the file was lost, so a rewrite need not keep its bytes aside.
	clamped bool
}

// Clamp is the contract's clampSettings: it turns a layer's raw key/value
// map into a Partial. Out-of-range values clamp; unknown keys and values that
// do not parse are left out (so the layer beneath shows through) and reported
// as warnings against file.
func Clamp(file string, raw map[string]any) (Partial, []Warning) {
	out := Partial{}
	var warns []Warning
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !IsKey(k) {
			warns = append(warns, Warning{File: file, Key: k, Message: fmt.Sprintf("unknown setting %q ignored", k)})
			continue
		}
		v, err := ParseValue(k, raw[k])
		if err != nil {
			var ve *ValueError
			msg := err.Error()
			if errors.As(err, &ve) {
				msg = ve.Reason
			}
			warns = append(warns, Warning{File: file, Key: k, Message: msg + "; using the layer beneath"})
			continue
		}
		if from, ok := outOfRange(k, raw[k]); ok {
			warns = append(warns, Warning{File: file, Key: k, Message: fmt.Sprintf("%s %s → %v: out of range %v … %v, clamped",
				k, from, v, specs[k].min, specs[k].max), clamped: true})
		}
		out[k] = v
	}
	return out, warns
}

// outOfRange reports whether raw (a value that parses) lies outside key's
// clamp range, and how it read.
func outOfRange(key string, raw any) (string, bool) {
	sp := specs[key]
	if sp.kind != kindNumber && sp.kind != kindInt {
		return "", false
	}
	f, err := toNumber(raw)
	if err != nil || (f >= sp.min && f <= sp.max) {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

// apply sets key on s from a value ParseValue returned.
func (s *Settings) apply(key string, v any) {
	switch key {
	case "scale":
		s.Scale = v.(float64)
	case "screen":
		s.Screen = v.(string)
	case "anchor":
		s.Anchor = v.(string)
	case "maxRows":
		s.MaxRows = v.(int)
	case "hideFullscreen":
		s.HideFullscreen = v.(bool)
	case "opacity":
		s.Opacity = v.(float64)
	case "motion":
		s.Motion = v.(string)
	case "showProject":
		s.ShowProject = v.(bool)
	case "showDone":
		s.ShowDone = v.(bool)
	case "hoverMode":
		s.HoverMode = v.(string)
	case "holdMs":
		s.HoldMs = v.(int)
	case "topEdgeOpens":
		s.TopEdgeOpens = v.(bool)
	case "ghostOpacity":
		s.GhostOpacity = v.(float64)
	case "alerts":
		s.Alerts = v.(string)
	}
}

// Source names the layer a key's effective value came from.
const (
	SourceDefault = "default"
	SourceRow     = "row"
	SourcePane    = "pane"
)

// Compose stacks the layers: Defaults, then row, then pane, each beating the
// one before. It returns the effective settings and, per key, the layer that
// decided it.
func Compose(row, pane Partial) (Settings, map[string]string) {
	s := Defaults
	src := make(map[string]string, len(Keys))
	for _, k := range Keys {
		src[k] = SourceDefault
		if v, ok := row[k]; ok {
			s.apply(k, v)
			src[k] = SourceRow
		}
		if v, ok := pane[k]; ok {
			s.apply(k, v)
			src[k] = SourcePane
		}
	}
	return s, src
}

// Get returns the value of key in s (nil for an unknown key).
func (s Settings) Get(key string) any {
	switch key {
	case "scale":
		return s.Scale
	case "screen":
		return s.Screen
	case "anchor":
		return s.Anchor
	case "maxRows":
		return s.MaxRows
	case "hideFullscreen":
		return s.HideFullscreen
	case "opacity":
		return s.Opacity
	case "motion":
		return s.Motion
	case "showProject":
		return s.ShowProject
	case "showDone":
		return s.ShowDone
	case "hoverMode":
		return s.HoverMode
	case "holdMs":
		return s.HoldMs
	case "topEdgeOpens":
		return s.TopEdgeOpens
	case "ghostOpacity":
		return s.GhostOpacity
	case "alerts":
		return s.Alerts
	}
	return nil
}

// Clamped returns s with every key brought into its domain, as a reader of
// a document from elsewhere must (docs/contract.md rule 4: the window clamps what it is
// given): numbers clamp, a value that does not parse takes its default.
func (s Settings) Clamped() Settings {
	out := Defaults
	for _, k := range Keys {
		if v, err := ParseValue(k, s.Get(k)); err == nil {
			out.apply(k, v)
		}
	}
	return out
}
