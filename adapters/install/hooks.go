package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// ErrUnsupported is a settings file that parses but whose shape notch-web
// will not edit (a "hooks" that is not an object, an event that is not a
// list, a key given twice on the way). Install refuses it untouched.
var ErrUnsupported = errors.New("a settings file notch-web will not edit")

// hooksFormat is one agent's hooks configuration: the documented shape
// {"hooks": {"<Event>": [{"matcher": "…", "hooks": [<hook>, …]}, …]}} that
// Claude Code's, Codex's hooks.json and Gemini CLI's settings share.
type hooksFormat struct {
	events  []string          // the events notch-web registers, in order
	matcher map[string]string // an event's matcher ("" or absent: every occurrence)
	entry   any               // the hook notch-web writes (an ordered struct)
	// entries are the events whose hook is another than entry (Claude
	// Code's SessionStart: a command hook, for it skips http hooks).
	entries map[string]any
	ours    func(hook *node) bool
}

// group is one matcher group as notch-web writes it.
type group struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []any  `json:"hooks"`
}

// entryFor is the hook notch-web writes for event.
func (f hooksFormat) entryFor(event string) any {
	if e, ok := f.entries[event]; ok {
		return e
	}
	return f.entry
}

// want is event's entry as a reader decodes it, to compare with the file's.
func (f hooksFormat) want(event string) any {
	b, err := json.Marshal(f.entryFor(event))
	if err != nil {
		panic(err)
	}
	var v any
	json.Unmarshal(b, &v)
	return v
}

// hooksObject is the root's "hooks" object (nil when absent), or why the
// file is not one notch-web edits.
func hooksObject(d *doc) (*node, error) {
	if d.root.kind != kObject {
		return nil, fmt.Errorf("%w: the top level is not an object", ErrUnsupported)
	}
	switch d.root.count("hooks") {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("%w: \"hooks\" is given more than once", ErrUnsupported)
	}
	h := d.root.get("hooks")
	if h.kind != kObject {
		return nil, fmt.Errorf("%w: \"hooks\" is not an object", ErrUnsupported)
	}
	return h, nil
}

// found is one of our hooks in the file: the event, and its place.
type found struct {
	event        string
	ev, grp, hk  int // member index in hooks, group index, hook index
	matcher      string
	value        any
	target       string // its url or command
	onlyInItsGrp bool
}

// ours lists notch-web's hooks in the file, in file order. Entries that do
// not have the documented shape are the user's business and skipped.
func (f hooksFormat) find(hooks *node) []found {
	var out []found
	if hooks == nil {
		return nil
	}
	for ei, m := range hooks.members {
		if m.val.kind != kArray {
			continue
		}
		for gi, g := range m.val.elems {
			list := g.get("hooks")
			if list == nil || list.kind != kArray {
				continue
			}
			matcher := ""
			if mt := g.get("matcher"); mt != nil && mt.kind == kString {
				matcher = mt.str
			}
			for hi, h := range list.elems {
				if h.kind != kObject || !f.ours(h) {
					continue
				}
				target := ""
				for _, k := range []string{"url", "command"} {
					if v := h.get(k); v != nil && v.kind == kString {
						target = v.str
						break
					}
				}
				out = append(out, found{event: m.key, ev: ei, grp: gi, hk: hi, matcher: matcher,
					value: h.value(), target: target, onlyInItsGrp: len(list.elems) == 1})
			}
		}
	}
	return out
}

// installed reports whether the file already holds exactly what Install
// would write: one hook of ours per event, as we write it, under our
// matcher, and none anywhere else.
func (f hooksFormat) installed(hooks *node) bool {
	fs := f.find(hooks)
	if len(fs) != len(f.events) {
		return false
	}
	seen := map[string]bool{}
	for _, x := range fs {
		if !slices.Contains(f.events, x.event) || seen[x.event] || x.matcher != f.matcher[x.event] ||
			!reflect.DeepEqual(x.value, f.want(x.event)) || hooks.count(x.event) != 1 {
			return false
		}
		seen[x.event] = true
	}
	return true
}

// installHooks returns src with notch-web's hooks in it (src itself when
// they already are): our old hooks (another URL, another path) removed,
// then one group per event appended after the user's own.
func (f hooksFormat) installHooks(src []byte) ([]byte, error) {
	if len(trimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	d, err := newDoc(src)
	if err != nil {
		return nil, err
	}
	hooks, err := hooksObject(d)
	if err != nil {
		return nil, err
	}
	if f.installed(hooks) {
		return src, nil
	}
	if err := f.removeOurs(d, false); err != nil {
		return nil, err
	}
	for _, event := range f.events {
		hooks, err := hooksObject(d)
		if err != nil {
			return nil, err
		}
		if hooks == nil {
			if err := d.add(d.root, "hooks", struct{}{}); err != nil {
				return nil, err
			}
			if hooks, err = hooksObject(d); err != nil {
				return nil, err
			}
		}
		g := group{Matcher: f.matcher[event], Hooks: []any{f.entryFor(event)}}
		switch hooks.count(event) {
		case 0:
			err = d.add(hooks, event, []any{g})
		case 1:
			list := hooks.get(event)
			if list.kind != kArray {
				return nil, fmt.Errorf("%w: hooks.%s is not a list", ErrUnsupported, event)
			}
			err = d.add(list, "", g)
		default:
			return nil, fmt.Errorf("%w: hooks.%s is given more than once", ErrUnsupported, event)
		}
		if err != nil {
			return nil, err
		}
	}
	return d.src, nil
}

// uninstallHooks returns src without notch-web's hooks (src itself when
// there are none): a group left empty goes, an event left empty goes, and
// "hooks" goes if nothing is left in it.
func (f hooksFormat) uninstallHooks(src []byte) ([]byte, error) {
	if len(trimSpace(src)) == 0 {
		return src, nil
	}
	d, err := newDoc(src)
	if err != nil {
		return nil, err
	}
	hooks, err := hooksObject(d)
	if err != nil {
		return nil, err
	}
	if len(f.find(hooks)) == 0 {
		return src, nil
	}
	if err := f.removeOurs(d, true); err != nil {
		return nil, err
	}
	return d.src, nil
}

// removeOurs deletes our hooks one at a time (each edit re-parses), with
// the groups and events they leave empty; and "hooks" itself when dropEmpty
// and nothing is left in it.
func (f hooksFormat) removeOurs(d *doc, dropEmpty bool) error {
	for {
		hooks, err := hooksObject(d)
		if err != nil {
			return err
		}
		fs := f.find(hooks)
		if len(fs) == 0 {
			if dropEmpty && hooks != nil && len(hooks.members) == 0 && len(bytes.TrimSpace(d.src[hooks.start+1:hooks.end-1])) == 0 {
				for i, m := range d.root.members {
					if m.key == "hooks" {
						return d.remove(d.root, i)
					}
				}
			}
			return nil
		}
		x := fs[0]
		eventList := hooks.members[x.ev].val
		grp := eventList.elems[x.grp]
		// A group is ours when it holds our hook alone and nothing but a
		// matcher besides: then the group goes (the event too, if it was
		// its only group). Otherwise only our hook goes.
		ourGroup := x.onlyInItsGrp && grp.count("hooks") == 1 &&
			(len(grp.members) == 1 || (len(grp.members) == 2 && grp.count("matcher") == 1))
		switch {
		case !ourGroup:
			err = d.remove(grp.get("hooks"), x.hk)
		case !d.bare(eventList, x.grp):
			// Other groups, or comments, stay in the event's list.
			err = d.remove(eventList, x.grp)
		default:
			err = d.remove(hooks, x.ev)
		}
		if err != nil {
			return err
		}
	}
}

func trimSpace(b []byte) []byte { return bytes.TrimSpace(b) }
