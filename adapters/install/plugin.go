package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/udiff"
)

// An agent that loads plugins from a folder (OpenCode) gets a file
// notch-web owns whole (agent.Plugin) instead of entries in a settings
// file. The same care applies: written atomically with a backup of the
// old one, a new file 0644 less the umask and an old one's mode kept, written through a
// symlink, and a save racing the write never lost (editFile). A file at
// that path that is not notch-web's (its first line is not the marker) is
// never overwritten nor removed.

// errNotOurs is a file at the plugin's path that notch-web did not write.
var errNotOurs = errors.New("not notch-web's plugin (its first line is not notch-web's marker)")

// ours reports whether src is a plugin file notch-web wrote.
func (p *pluginFormat) ours(src []byte) bool {
	return bytes.HasPrefix(src, []byte(p.spec.Marker+"\n"))
}

type pluginFormat struct {
	spec *agent.Plugin
}

// runPlugin writes (install) or removes (uninstall) the agent's plugin
// file at path.
func (o Options) runPlugin(s agent.Spec, path string, install bool) (Result, error) {
	p := &pluginFormat{spec: s.Install.Plugin}
	if !install {
		ch, err := o.removeOurs(path, p.ours)
		if err != nil {
			return Result{}, err
		}
		return Result{Changes: []Change{ch}}, nil
	}
	if o.Exe == "" {
		return Result{}, usagef("no notch-web executable for the plugin to run")
	}
	want := p.spec.Source(o.Exe, o.URL)
	ch, err := o.editFile(path, func(src []byte, exists bool) ([]byte, error) {
		if exists && !p.ours(src) {
			return nil, errNotOurs
		}
		return want, nil
	})
	if err != nil {
		return Result{}, err
	}
	return Result{Changes: []Change{ch}}, nil
}

// removeOurs removes the file at path when it is notch-web's (ours says
// so of its bytes: the plugin's, or a hooks file holding nothing but
// notch-web's hooks), after a backup; a file the user saved meanwhile is
// read again (up to three times), never removed unseen.
func (o Options) removeOurs(path string, ours func([]byte) bool) (Change, error) {
	for range 3 {
		ch := Change{Path: path}
		real, was, err := readSettings(path)
		if err != nil || !was.exists {
			return ch, err
		}
		if !ours(was.src) {
			return ch, &FileError{Path: path, Problem: errNotOurs.Error(), Fix: "left as it is: it is yours to remove", Err: errNotOurs}
		}
		ch.Changed, ch.Removed = true, true
		ch.Diff = udiff.Unified(path, path, string(was.src), "", 3)
		if o.DryRun {
			return ch, nil
		}
		if ch.Backup, err = o.backup(path, real, was.src, was.mode); err != nil {
			return ch, err
		}
		if o.raceAt != nil {
			o.raceAt()
		}
		now, err := readFile(path, real)
		if err != nil {
			return ch, err
		}
		if !now.exists || !bytes.Equal(now.src, was.src) {
			os.Remove(ch.Backup)
			continue
		}
		if err := os.Remove(real); err != nil {
			return ch, writeError(path, err)
		}
		return ch, nil
	}
	return Change{Path: path}, &FileError{Path: path, Err: errChanged, Problem: "it changed while notch-web was removing it, three times",
		Fix: "nothing was removed; run again once it stays still"}
}

// The two values the plugin's source is made from, as it holds them.
var (
	pluginExeRE = regexp.MustCompile(`(?m)^const EXE = (".*")$`)
	pluginURLRE = regexp.MustCompile(`(?m)^const URL_FLAG = (".*")$`)
)

// pluginValue is the JavaScript string a const line of the plugin holds.
func pluginValue(re *regexp.Regexp, src []byte) (string, bool) {
	m := re.FindSubmatch(src)
	var s string
	if m == nil || json.Unmarshal(m[1], &s) != nil {
		return "", false
	}
	return s, true
}

// pluginStatus is what the plugin file at path is: notch-web's (every
// event is "installed"), as this notch-web would write it or not, or
// another file.
func pluginStatus(s agent.Spec, scope, path string) Installed {
	in := Installed{Agent: s.Name, Scope: scope, Path: path}
	p := &pluginFormat{spec: s.Install.Plugin}
	_, file, err := readSettings(path)
	switch {
	case err != nil:
		in.Exists, in.Problem = true, problem(err)
		return in
	case !file.exists:
		in.Missing = s.Events()
		return in
	}
	in.Exists = true
	if !p.ours(file.src) {
		in.Missing = s.Events()
		in.Notes = []string{"a file notch-web did not write is at this path; notch-web leaves it alone"}
		return in
	}
	in.Events = s.Events()
	exe, okExe := pluginValue(pluginExeRE, file.src)
	url, okURL := pluginValue(pluginURLRE, file.src)
	switch {
	case okURL && url != "":
		in.Targets = []string{url + HookPath(s.Name)}
	case okExe:
		in.Targets = []string{hookCommand(exe, s.Name, "")}
	}
	if !okExe || !okURL || !bytes.Equal(file.src, p.spec.Source(exe, url)) {
		in.Notes = append(in.Notes, "written by another notch-web version: run "+textrule.Quote("notch-web hooks install "+s.Name)+" again")
	}
	return in
}
