package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/udiff"
)

// ErrUsage is a request Install cannot act on: an unknown agent or scope, a
// missing home or executable. Its errors are usageError: they say what is
// wrong without a prefix of their own, which the caller's line has already.
var ErrUsage = errors.New("install: a request that cannot be acted on")

// usageError is an ErrUsage whose text is its message alone.
type usageError string

func (e usageError) Error() string        { return string(e) }
func (e usageError) Is(target error) bool { return target == ErrUsage }

// usagef is an ErrUsage saying what fmt.Sprintf says.
func usagef(format string, a ...any) error { return usageError(fmt.Sprintf(format, a...)) }

// maxSettings bounds how much of a settings file is read.
const maxSettings = 4 << 20

// Options says what to install where.
type Options struct {
	Agent string // ClaudeCode, Codex or Gemini
	Scope string // ScopeUser ("" too), ScopeProject or ScopeLocal
	Home  string // the user's home directory (user scope)
	Dir   string // the project's directory (project and local scopes)
	// URL is the host's base URL, e.g. http://127.0.0.1:7340: Claude Code's
	// http hooks POST to it; command hooks get it as --url unless it is "".
	URL string
	// Exe is notch-web's executable, which command hooks and Codex's
	// notify run (Codex, Gemini CLI).
	Exe string
	// ApprovalHold is the host's --approval-hold, above which Claude Code's
	// PermissionRequest hook times out; 0 is DefaultApprovalHold.
	ApprovalHold time.Duration
	// Wait > 0 makes the PermissionRequest hook of an agent whose answering
	// from the board is opt-in (agent.Spec.AnswerWait: Codex, Qwen Code)
	// wait that long on the board (hooks install <agent> --approvals); 0
	// keeps it observe-only. It is refused for any other agent.
	Wait time.Duration
	// Statusline (Claude Code) also makes the statusLine command notch-web's,
	// chaining the one that was there (statusline.go). Uninstall always
	// puts a chained statusLine back.
	Statusline bool
	// MCP (hooks install <agent> --mcp) also makes notch-web mcp one of
	// the agent's MCP servers, user-wide (mcp.go). Uninstall always takes
	// notch-web's server out.
	MCP bool
	// MCPURL is the --url notch-web mcp runs with: "" lets it find the host
	// as every command does ($NOTCH_URL, the DSH home's host.json …).
	MCPURL string
	// Otel (Claude Code, Codex, Gemini CLI) also points the agent's own
	// OpenTelemetry at the host's receiver at OtelURL (otel.go); Force
	// replaces an exporter of the user's that it would otherwise refuse
	// to (ErrOtherCollector). Uninstall always takes notch-web's out.
	Otel    bool
	OtelURL string
	Force   bool
	DryRun  bool                // compute and return the diff, write nothing
	Now     func() time.Time    // names backups; nil is time.Now
	Getenv  func(string) string // CLAUDE_CONFIG_DIR, CODEX_HOME; nil reads none

	// newMode is the mode of a file the edit creates (0: 0644). An
	// existing file keeps its own.
	newMode fs.FileMode

	raceAt func() // a test's save racing the write, in the last moment before it is put in place
}

// Change is what Install or Uninstall did (or, in a dry run, would do) to
// one file.
type Change struct {
	Path    string
	Created bool   // the file did not exist
	Changed bool   // its bytes differ; false: nothing to change
	Diff    string // the unified diff of the change ("" when none)
	Backup  string // the copy of the old file written before the change
	Removed bool   // the file was removed (a plugin file of notch-web's)
}

// Result is a run's changes and what the human should know besides.
type Result struct {
	Changes []Change
	Notes   []string
}

// Installed is what one settings file holds of notch-web's hooks.
type Installed struct {
	Agent, Scope, Path string
	Exists             bool
	Problem            string   // why the file cannot be read ("" when it can)
	Events             []string // events with notch-web's hook
	Missing            []string // events notch-web registers that lack it
	Targets            []string // the URLs or commands of notch-web's hooks, distinct
	Notes              []string
}

func (o Options) getenv(k string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(k)
}

// spec is the agent of these options, or why there is none.
func (o Options) spec() (agent.Spec, error) {
	s, ok := registry.Get(o.Agent)
	if !ok {
		return agent.Spec{}, usagef("unknown agent %q (want one of %s)", o.Agent, strings.Join(Agents, ", "))
	}
	return s, nil
}

// settingsPath is the agent's settings file for a scope (for Codex, its
// hooks.json), as its Spec says.
func (o Options) settingsPath(scope string) (string, error) {
	s, err := o.spec()
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(s.Install.Scopes, func(sc agent.Scope) bool { return sc.Name == scope })
	if i < 0 {
		return "", usagef("%s has no %q scope (want one of %s)", o.Agent, scope, strings.Join(s.ScopeNames(), ", "))
	}
	sc := s.Install.Scopes[i]
	if sc.Project {
		if o.Dir == "" {
			return "", usagef("no project directory")
		}
		return filepath.Join(o.Dir, sc.Dir, sc.File), nil
	}
	if d := o.getenv(sc.EnvDir); sc.EnvDir != "" && filepath.IsAbs(d) {
		return filepath.Join(d, sc.File), nil
	}
	if o.Home == "" {
		return "", usagef("no home directory (set HOME)")
	}
	return filepath.Join(o.Home, sc.Dir, sc.File), nil
}

func (o Options) codexHome() string {
	if d := o.getenv("CODEX_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(o.Home, ".codex")
}

// format is the agent's hooks format for these options: its Spec's hooks,
// an http hook's URL from o.URL, a command hook running notch-web's hook
// for the agent (with --url when o.URL is set, or always when the agent
// also has http hooks, so both reach the same host). The approvals' holds
// then lengthen the PermissionRequest hooks (withHold, withWait).
func (o Options) format() (hooksFormat, error) {
	s, err := o.spec()
	if err != nil {
		return hooksFormat{}, err
	}
	if s.HTTP() && o.URL == "" {
		return hooksFormat{}, usagef("no host URL")
	}
	if o.Exe == "" && slices.ContainsFunc(s.Hooks, func(h agent.Hook) bool { return h.Kind == agent.Command }) {
		return hooksFormat{}, usagef("no notch-web executable for the command hooks")
	}
	url := o.URL
	if s.HTTP() {
		url = strings.TrimRight(url, "/")
	}
	cmd := hookCommand(o.Exe, o.Agent, url)
	f := specFormat(s, o.URL, cmd)
	switch o.Agent {
	case ClaudeCode:
		hold := o.ApprovalHold
		if hold <= 0 {
			hold = DefaultApprovalHold
		}
		f = withHold(f, o.URL, hold)
	}
	if o.Wait > 0 {
		if !s.Answers || s.AnswerWait == 0 {
			return hooksFormat{}, usagef("%s: the board's approvals need no --approvals here", s.Display)
		}
		f = withWait(f, cmd, o.Wait)
	}
	return f, nil
}

func (o Options) scope() string {
	if o.Scope == "" {
		return ScopeUser
	}
	return o.Scope
}

// Install merges notch-web's hooks into the agent's settings file for the
// scope: the user's own hooks and every other key stay byte for byte, a
// second run changes nothing, the old file is copied to FILE.bak-<ms>
// before it is replaced (atomically, keeping its mode, through a symlink
// to its target), and a dry run only returns the diff. A file that does not
// parse, or has a shape notch-web will not edit, is refused untouched.
//
// For Codex it also sets notify in config.toml, when that can be done as
// one line without disturbing the rest; otherwise it writes nothing there
// and says in Notes which line to add where.
func Install(o Options) (Result, error) {
	if o.MCP {
		if _, err := o.mcpPath(); err != nil {
			return Result{}, err // before any file is written
		}
	}
	res, err := o.run(true)
	if err == nil && o.MCP {
		err = o.runMCP(&res, true)
	}
	return res, err
}

// Uninstall removes notch-web's hooks, and only those (an http hook to the
// host's hook endpoint on any address, or a command running "notch-web hook
// <agent>"), from the agent's settings file for the scope; for Codex also
// its notify line when it is notch-web's. Same guarantees as Install.
func Uninstall(o Options) (Result, error) {
	res, err := o.run(false)
	if err == nil {
		// notch-web's MCP server goes too; a file it cannot edit is said,
		// never a failure of the hooks' uninstall.
		if merr := o.runMCP(&res, false); merr != nil {
			res.Notes = append(res.Notes, "notch-web mcp was not looked for: "+oneLine(merr.Error()))
		}
	}
	return res, err
}

func (o Options) run(install bool) (Result, error) {
	path, err := o.settingsPath(o.scope())
	if err != nil {
		return Result{}, err
	}
	if err := o.otelPossible(install); err != nil {
		return Result{}, err
	}
	if s, _ := o.spec(); s.Install.Plugin != nil {
		return o.runPlugin(s, path, install)
	}
	f, err := o.format()
	if err != nil {
		return Result{}, err
	}
	if s, _ := o.spec(); !install && s.Install.OwnFile {
		// A file of notch-web's own that would be left empty goes whole.
		emptied := func(src []byte) bool {
			out, err := f.uninstallHooks(src)
			return err == nil && !bytes.Equal(out, src) && string(bytes.TrimSpace(out)) == "{}"
		}
		if _, was, err := readSettings(path); err == nil && was.exists && emptied(was.src) {
			ch, err := o.removeOurs(path, emptied)
			if !errors.Is(err, errNotOurs) {
				return Result{Changes: []Change{ch}}, err
			}
		}
	}
	var res Result
	ch, err := o.editFile(path, func(src []byte, exists bool) ([]byte, error) {
		if install {
			out, err := f.installHooks(src)
			if err == nil && o.Statusline && o.Agent == ClaudeCode {
				out, err = setStatusLine(out, o.Exe, o.URL)
			}
			if err == nil && o.Otel {
				out, err = o.setOtel(out)
			}
			return out, err
		}
		if !exists {
			return src, nil
		}
		out, err := f.uninstallHooks(src)
		if err == nil && o.Agent == ClaudeCode {
			out, err = removeStatusLine(out)
		}
		if err == nil {
			out, err = o.removeOtel(out)
		}
		return out, err
	})
	if err != nil {
		return Result{}, err
	}
	res.Changes = append(res.Changes, ch)
	res.Notes = append(res.Notes, o.notes(path, install)...)
	if s, _ := o.spec(); s.Install.CodexConfig {
		if err := o.codexOtel(&res, install); err != nil {
			return res, err
		}
		o.codexNotify(&res, install)
		if install {
			res.Notes = append(res.Notes, CodexTrustNote+" (`notch-web hooks status codex` says whether they are)")
		}
	}
	return res, nil
}

// notes are what the human should know about a file after a run: settings
// that keep the hooks from running.
func (o Options) notes(path string, install bool) []string {
	if !install {
		return nil
	}
	_, f, err := readSettings(path)
	if err != nil || !f.exists {
		return nil
	}
	d, err := newDoc(f.src)
	if err != nil || d.root.kind != kObject {
		return nil
	}
	return settingsNotes(o.Agent, path, d.root)
}

// settingsNotes flags what in a settings file stops hooks from running:
// the agent's Spec's warnings.
func settingsNotes(name, path string, root *node) []string {
	s, ok := registry.Get(name)
	if !ok {
		return nil
	}
	var out []string
	path = textrule.Show(path)
	for _, w := range s.Install.Warnings {
		n := root
		for _, k := range w.Keys {
			n = n.get(k)
		}
		switch {
		case n == nil:
		case w.When == "set", n.kind == kLiteral && n.str == w.When:
			out = append(out, path+" "+w.Says)
		}
	}
	return out
}

// codexNotify sets (or removes) notify in Codex's config.toml, or says why
// not and what to add by hand.
func (o Options) codexNotify(res *Result, install bool) {
	path := filepath.Join(o.codexHome(), "config.toml")
	argv := []string{o.Exe, "hook", Codex}
	if o.URL != "" {
		argv = append(argv, "--url", o.URL)
	}
	snippet := "notify = " + tomlArray(argv)
	shown := textrule.Show(path)
	ch, err := o.editFile(path, func(src []byte, exists bool) ([]byte, error) {
		var out string
		var err error
		if install {
			out, err = setNotify(string(src), argv)
		} else {
			out, err = removeNotify(string(src))
		}
		return []byte(out), err
	})
	switch {
	case errors.Is(err, ErrTOMLLayout) && install:
		if fe := (*FileError)(nil); errors.As(err, &fe) {
			err = errors.New(fe.Problem)
		}
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %v. notch-web's hooks in hooks.json already report every turn; "+
			"to have notify too, put this line at the top level of %s (above the first [table]):\n  %s", shown, err, shown, snippet))
	case err != nil:
		var fe *FileError
		if errors.As(err, &fe) {
			res.Notes = append(res.Notes, fe.Error()+" (config.toml is left as it is)")
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %v; left as it is", shown, err))
		}
	default:
		res.Changes = append(res.Changes, ch)
	}
	if _, f, err := readSettings(path); err == nil && f.exists {
		if st, err := readNotify(string(f.src)); err == nil && st.disabled != "" && install {
			res.Notes = append(res.Notes, fmt.Sprintf("%s sets %s: Codex runs no hooks until it is removed (notify still works)", shown, st.disabled))
		}
	}
}

// editFile applies edit to the file at path and writes the result when it
// differs: a backup of the old file first, then an atomic replace with the
// file's mode (file.go); nothing in a dry run. A symlink is written
// through, so that a settings file kept in a dotfiles repository stays a
// link to it. A change the user saves meanwhile, at any moment up to the
// write itself (commit, file.go), is read again and edited in turn (up to
// three times), never overwritten.
func (o Options) editFile(path string, edit func(src []byte, exists bool) ([]byte, error)) (Change, error) {
	for attempt := 1; ; attempt++ {
		ch, err := o.editOnce(path, edit)
		if !errors.Is(err, errChanged) {
			return ch, err
		}
		if attempt == 3 {
			return ch, &FileError{Path: path, Err: errChanged, Problem: "it changed while notch-web was editing it, three times",
				Fix: "nothing was written; run again once it stays still"}
		}
	}
}

func (o Options) editOnce(path string, edit func(src []byte, exists bool) ([]byte, error)) (Change, error) {
	ch := Change{Path: path}
	real, was, err := readSettings(path)
	if err != nil {
		return ch, err
	}
	if !was.exists && o.newMode != 0 {
		was.mode = o.newMode
	}
	ch.Created = !was.exists
	out, err := edit(was.src, was.exists)
	if err != nil {
		return ch, &FileError{Path: path, Problem: oneLine(err.Error()), Fix: "left untouched: fix it (or move it away) and run again", Err: err}
	}
	if bytes.Equal(out, was.src) {
		ch.Created = false
		return ch, nil
	}
	ch.Changed = true
	ch.Diff = udiff.Unified(path, path, string(was.src), string(out), 3)
	if o.DryRun {
		return ch, nil
	}
	if was.exists {
		if ch.Backup, err = o.backup(path, real, was.src, was.mode); err != nil {
			return ch, err
		}
	}
	if err := replace(path, real, out, was, o.raceAt); err != nil {
		if ch.Backup != "" && errors.Is(err, errChanged) {
			os.Remove(ch.Backup) // of bytes the user has replaced; the next attempt keeps its own
		}
		return ch, err
	}
	return ch, nil
}

// oneLine is s on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// backup writes src next to path as path.bak-<ms> (-2, -3… if that name is
// taken), with path's mode, and returns its name.
func (o Options) backup(path, real string, src []byte, mode fs.FileMode) (string, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	base := real + ".bak-" + strconv.FormatInt(now().UnixMilli(), 10)
	for i := 1; i < 100; i++ {
		name := base
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", backupError(path, err)
		}
		_, err = f.Write(src)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", backupError(path, err)
		}
		return name, nil
	}
	return "", &FileError{Path: path, Problem: "too many backups named " + textrule.Quote(base+"*"),
		Fix: "nothing was changed; remove old backups and run again"}
}

func backupError(path string, err error) error {
	fe := writeError(path, err).(*FileError)
	fe.Problem = "cannot back it up: " + bare(err)
	return fe
}

// Status reports, for each scope of the agent (or only o.Scope when set),
// what its settings file holds of notch-web's hooks. It reads and never
// writes; Options.URL and Exe are not needed.
func Status(o Options) ([]Installed, error) {
	spec, err := o.spec()
	if err != nil {
		return nil, err
	}
	sc := spec.ScopeNames()
	if o.Scope != "" {
		sc = []string{o.Scope}
	}
	f := specFormat(spec, "", "")
	var out []Installed
	for _, scope := range sc {
		path, err := o.settingsPath(scope)
		if err != nil {
			if errors.Is(err, ErrUsage) && o.Scope == "" {
				continue // e.g. no project directory: skip that scope
			}
			return nil, err
		}
		if spec.Install.Plugin != nil {
			out = append(out, pluginStatus(spec, scope, path))
			continue
		}
		in := status(o.Agent, scope, path, f)
		in.Notes = append(in.Notes, otelStatus(o.Agent, path)...)
		if spec.Install.CodexConfig && len(in.Events) > 0 {
			in.Notes = append(in.Notes, o.codexTrustOf(path, f).Notes()...)
		}
		out = append(out, in)
	}
	if spec.Install.CodexConfig && (o.Scope == "" || o.Scope == ScopeUser) && o.Home != "" {
		out = append(out, codexConfigStatus(filepath.Join(o.codexHome(), "config.toml")))
	}
	if note := o.mcpStatus(); note != "" && len(out) > 0 && (o.Scope == "" || o.Scope == ScopeUser) {
		out[0].Notes = append(out[0].Notes, note)
	}
	return out, nil
}

func status(agent, scope, path string, f hooksFormat) Installed {
	in := Installed{Agent: agent, Scope: scope, Path: path}
	_, file, err := readSettings(path)
	if err != nil {
		in.Exists, in.Problem = true, problem(err)
		return in
	}
	if !file.exists {
		in.Missing = slices.Clone(f.events)
		return in
	}
	in.Exists = true
	src := file.src
	if len(trimSpace(src)) == 0 {
		in.Missing = slices.Clone(f.events)
		return in
	}
	d, err := newDoc(src)
	if err != nil {
		in.Problem = err.Error()
		return in
	}
	hooks, err := hooksObject(d)
	if err != nil {
		in.Problem = err.Error()
		return in
	}
	have := map[string]bool{}
	for _, x := range f.find(hooks) {
		if !have[x.event] {
			in.Events = append(in.Events, x.event)
		}
		have[x.event] = true
		if x.target != "" && !slices.Contains(in.Targets, x.target) {
			in.Targets = append(in.Targets, x.target)
		}
	}
	for _, e := range f.events {
		if !have[e] {
			in.Missing = append(in.Missing, e)
		}
	}
	in.Notes = settingsNotes(agent, path, d.root)
	return in
}

func codexConfigStatus(path string) Installed {
	in := Installed{Agent: Codex, Scope: ScopeUser, Path: path}
	_, file, err := readSettings(path)
	if err != nil {
		in.Exists, in.Problem = true, problem(err)
		return in
	}
	if !file.exists {
		in.Notes = []string{"no notify (the file does not exist)"}
		return in
	}
	in.Exists = true
	st, err := readNotify(string(file.src))
	if err != nil {
		in.Problem = err.Error()
		return in
	}
	switch {
	case st.line < 0:
		in.Notes = append(in.Notes, "no notify")
	case isOurNotify(st.argv):
		in.Events = []string{"notify"}
		in.Targets = []string{strings.Join(st.argv, " ")}
	case st.oneLine:
		in.Notes = append(in.Notes, "notify runs another program: "+strings.Join(st.argv, " "))
	default:
		in.Notes = append(in.Notes, "notify is set to something notch-web does not read")
	}
	if st.disabled != "" {
		in.Notes = append(in.Notes, "sets "+st.disabled+": Codex runs no hooks")
	}
	return in
}

// problem is what Status says of a file it cannot read: the FileError's
// problem and fix (the path is on the line above), or the error.
func problem(err error) string {
	var fe *FileError
	if errors.As(err, &fe) {
		return fe.Problem + "; " + fe.Fix
	}
	return err.Error()
}
