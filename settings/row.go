package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"go.yaml.in/yaml/v3"
)

// DefaultRowID is the plugin row's id in cordis.patch.yml.
const DefaultRowID = "agents-notch"

// MaxPatchBytes bounds a patch file; a larger one is refused, not read.
const MaxPatchBytes = 4 << 20

// ErrNotPatch is returned for YAML that is not a patch file (a top-level list).
var ErrNotPatch = errors.New("not a patch file: want a top-level list of rows")

// RowContext is what the row says of the route's context window. Budget is
// nil unless the row states the real window (docs/contract.md rule 1: never guessed).
type RowContext struct {
	Budget *int64  `json:"budget"`
	HotAt  float64 `json:"hotAt"`
}

// DefaultHotAt is where the context bar turns amber when the row is silent.
const DefaultHotAt = 0.5

// ValidHotAt reports whether f can be a hotAt: a fraction in (0, 1]. It is
// the one check of hotAt's range; the row's parser, the snapshot and a
// followed document all apply it, so what state.json publishes is what the
// board draws.
func ValidHotAt(f float64) bool { return f > 0 && f <= 1 }

// Row is the plugin row's config as the patch files leave it.
type Row struct {
	// Found reports whether any patch file targets the row.
	Found bool
	// Config holds the 14 keys the row sets, clamped.
	Config Partial
	// Context and Retire are the row's other facts for state.json.
	Context RowContext
	Retire  string
}

// rowEntry is what one patch file says of the row: the config of its last
// entry that targets the row, raw.
type rowEntry struct {
	found     bool
	hasConfig bool
	config    map[string]any
	ids       []string // every row id the file names, in order, once each
}

// parsePatch finds the last entry of one patch file that targets rowID. An
// entry targets the row when it is `- id: <rowID>` (a patch), or an
// `- insert:` whose row (or one of whose rows) has that id.
func parsePatch(data []byte, rowID string) (rowEntry, error) {
	var doc any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	// An empty or comment-only file decodes as io.EOF: report it as empty.
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return rowEntry{}, fmt.Errorf("parsing YAML: %w", err)
	}
	list, ok := doc.([]any)
	if !ok {
		if doc == nil {
			return rowEntry{}, fmt.Errorf("%w (the file is empty; use [] for no patch)", ErrNotPatch)
		}
		return rowEntry{}, ErrNotPatch
	}
	var out rowEntry
	take := func(m map[string]any) {
		out.found = true
		if c, ok := m["config"]; ok {
			out.hasConfig = true
			out.config, _ = c.(map[string]any)
			if c != nil && out.config == nil {
				out.config = map[string]any{"\x00": c} // reported by readRow as a bad config
			}
		}
	}
	seen := map[string]bool{}
	note := func(id string) {
		if id != "" && !seen[id] && len(out.ids) < 20 {
			seen[id] = true
			out.ids = append(out.ids, id)
		}
	}
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		if id, _ := m["id"].(string); id != "" {
			note(id)
			if id == rowID {
				take(m)
			}
			continue
		}
		switch ins := m["insert"].(type) {
		case map[string]any:
			id, _ := ins["id"].(string)
			note(id)
			if id == rowID {
				take(ins)
			}
		case []any:
			for _, r := range ins {
				if rm, ok := r.(map[string]any); ok {
					id, _ := rm["id"].(string)
					note(id)
					if id == rowID {
						take(rm)
					}
				}
			}
		}
	}
	return out, nil
}

// buildRow turns the winning entry's raw config into a Row, with warnings for
// everything ignored.
func buildRow(file string, e rowEntry) (Row, []Warning) {
	r := Row{Found: e.found, Config: Partial{}, Context: RowContext{HotAt: DefaultHotAt}, Retire: "route"}
	if !e.hasConfig {
		return r, nil
	}
	raw := make(map[string]any, len(e.config))
	var warns []Warning
	for k, v := range e.config {
		switch k {
		case "\x00":
			warns = append(warns, Warning{File: file, Key: "config", Message: "config is not a mapping; ignored"})
		case "context":
			var w []Warning
			r.Context, w = parseContext(file, v)
			warns = append(warns, w...)
		case "retire":
			if s, ok := v.(string); ok && (s == "route" || s == "timer") {
				r.Retire = s
			} else {
				warns = append(warns, Warning{File: file, Key: "retire", Message: fmt.Sprintf(`want "route" or "timer", got %s; using "route"`, describe(v))})
			}
		default:
			raw[k] = v
		}
	}
	cfg, w := Clamp(file, raw)
	r.Config = cfg
	warns = append(warns, w...)
	sortWarnings(warns)
	return r, warns
}

func parseContext(file string, v any) (RowContext, []Warning) {
	c := RowContext{HotAt: DefaultHotAt}
	m, ok := v.(map[string]any)
	if !ok {
		return c, []Warning{{File: file, Key: "context", Message: "context is not a mapping; budget unknown"}}
	}
	var warns []Warning
	for k := range m {
		if k != "budget" && k != "hotAt" {
			warns = append(warns, Warning{File: file, Key: "context." + k, Message: fmt.Sprintf("unknown key %q under context ignored (it takes budget and hotAt)", k)})
		}
	}
	if b, ok := m["budget"]; ok && b != nil {
		f, err := toNumber(b)
		if err != nil || f < 1 || f != math.Trunc(f) || f > 1e12 {
			warns = append(warns, Warning{File: file, Key: "context.budget", Message: fmt.Sprintf("want a whole number of tokens, got %s; budget unknown", describe(b))})
		} else {
			n := int64(f)
			c.Budget = &n
		}
	}
	if h, ok := m["hotAt"]; ok && h != nil {
		f, err := toNumber(h)
		if err != nil || !ValidHotAt(f) {
			warns = append(warns, Warning{File: file, Key: "context.hotAt", Message: fmt.Sprintf("want a fraction in (0, 1], got %s; using %v", describe(h), DefaultHotAt)})
		} else {
			c.HotAt = f
		}
	}
	return c, warns
}

func sortWarnings(w []Warning) {
	sort.SliceStable(w, func(i, j int) bool {
		if w[i].File != w[j].File {
			return w[i].File < w[j].File
		}
		return w[i].Key < w[j].Key
	})
}
