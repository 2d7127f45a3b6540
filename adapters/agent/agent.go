// Package agent is what one agent is to notch-web, in one value (Spec):
// its name, the hooks notch-web installs (each with its kind and timeout),
// where its settings live, how its hook payloads map to session events, how
// its transcripts give context tokens, and its help text. Each adapter
// package (adapters/claudecode, codex, gemini, opencode) declares its Spec;
// adapters/registry lists them; the installer, the host and the command
// line read everything agent-specific from there (docs/adding-an-agent.md).
package agent

import (
	"slices"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
)

// Kind is how the agent delivers a hook to notch-web.
type Kind string

const (
	// HTTP: the agent POSTs the hook's JSON to the host's endpoint itself.
	HTTP Kind = "http"
	// Command: the agent runs "notch-web hook <agent>", which relays it.
	Command Kind = "command"
)

// Hook is one hook notch-web installs.
type Hook struct {
	Event   string        // the agent's name for it
	Kind    Kind          // HTTP or Command
	Timeout time.Duration // written in the agent's unit (Style)
	Matcher string        // "" for every occurrence
}

// Style is the shape of a hook entry in the agent's settings file.
type Style string

const (
	// StyleClaude: {"type": "http", "url", "timeout"} or {"type":
	// "command", "command", "timeout"}, timeouts in seconds (Claude Code,
	// and Codex's hooks.json, which copies it).
	StyleClaude Style = "claude"
	// StyleGemini: {"name", "type": "command", "command", "timeout"},
	// timeout in milliseconds, named so /hooks enable|disable can name it.
	StyleGemini Style = "gemini"
)

// Scope is one settings file the hooks can go in.
type Scope struct {
	Name    string // "user", "project", "local"
	Project bool   // under the project directory (--dir); else under the home
	Dir     string // the folder, e.g. ".claude"
	File    string // the file, e.g. "settings.json"
	// EnvDir names an environment variable that, set to an absolute path,
	// is the folder instead (CLAUDE_CONFIG_DIR, CODEX_HOME).
	EnvDir string
}

// Warning is a setting in the agent's settings file that keeps hooks from
// running: when the value at Keys is When ("true", "false", or "set": any
// value), status and install say Says.
type Warning struct {
	Keys []string
	When string
	Says string
}

// Install is where and how the hooks are installed.
type Install struct {
	Scopes   []Scope // the first is the default
	Style    Style
	Name     string // the hooks' name (StyleGemini)
	Warnings []Warning
	// CodexConfig: the agent is Codex, whose config.toml beside hooks.json
	// takes notify and records which hooks a human trusted.
	CodexConfig bool
	// OwnFile: the scope's file is one notch-web adds beside the user's
	// own (GitHub Copilot CLI loads every *.json of its hooks folder), so
	// uninstall removes it when nothing but notch-web's hooks is in it: an
	// empty {} left behind is a file the agent complains about.
	OwnFile bool
	// Plugin, when set, is a file notch-web owns whole instead of hooks in
	// the agent's settings file (OpenCode's plugin folder): the scope's
	// File is that file, written whole, atomically, with mode 0644 for a
	// new one, and removed by uninstall only while it is notch-web's (its
	// first line is Plugin.Marker).
	Plugin *Plugin
}

// Plugin is a file the agent loads by itself from a folder, which
// notch-web writes whole.
type Plugin struct {
	// Marker is the file's first line: a file that does not start with it
	// is not notch-web's and is never overwritten nor removed.
	Marker string
	// Source is the file's bytes for notch-web's executable and the host's
	// base URL ("": the one "notch-web hook" finds itself).
	Source func(exe, url string) []byte
}

// AskStyle is how an agent's permission asks reach the host (Spec.Asks).
type AskStyle string

const (
	// AskHook: a PermissionRequest hook payload in Claude Code's shape
	// (Claude Code, Codex, Qwen Code, …), resolved by its PostToolUse,
	// PermissionDenied, Stop and SessionEnd.
	AskHook AskStyle = ""
	// AskOpenCodePlugin: OpenCode's plugin's notch-web.permission, held
	// for the board's answer, resolved by permission.replied, session.idle,
	// session.error and notch-web.dispose (OpenCode, Kilo Code CLI).
	AskOpenCodePlugin AskStyle = "opencode-plugin"
)

// Spec is one agent.
type Spec struct {
	Name    string // in URLs and commands: /agents-notch/hooks/<Name>, "notch-web hook <Name>"
	Display string // "Claude Code"
	// Mark is the two letters of the agent's badge on its rows ("CC"):
	// which agent a row is, at a glance, without a vendor's logo.
	Mark    string
	Version string // the version whose hooks the mapping was checked against
	// Map maps one hook payload to session events; pure.
	Map func(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error)
	// Tokens reads the context tokens of a transcript Map named; nil when
	// Map names none.
	Tokens func(hookjson.Transcript) (int64, bool)
	// Window reads the context window the agent reports for the session
	// in the transcript Map named (GitHub Copilot CLI's maxPromptTokens):
	// the row's context bar is drawn against it when the row has no
	// budget, as against Claude Code's statusline report; nil: none.
	Window func(hookjson.Transcript) (int64, bool)
	// Plan reads the plan's windows and the session's running token
	// totals from the transcript Map named (Codex's rollout token_count
	// events), for the ledger (host/ledger); nil when the agent's files
	// tell neither.
	Plan func(transcript string) (PlanReport, bool)
	// Limits says where the agent tells its plan's limits, or that it
	// does not (every agent says: the registry's test).
	Limits Limits
	// Interrupted reports whether the session's transcript says the human
	// interrupted the turn that began at since, for an agent that fires no
	// hook for that (Claude Code's Esc while the model answers); nil when
	// there is nothing to watch. The host asks it while a row works.
	Interrupted func(transcript string, since time.Time) bool
	// Idle reports whether the agent says, outside its hooks, that the
	// session whose transcript this is went idle at its input after since
	// (Claude Code's status file: an Esc before the model's first output
	// fires no hook and writes no transcript line); nil when the agent
	// keeps no such word. The host asks it while a row works.
	Idle func(transcript string, since time.Time) bool
	// Busy reports that the agent's process says, outside its hooks, that
	// the session whose transcript this is works now, and since when it
	// has (Claude Code's status file "busy", its statusUpdatedAt); nil when
	// the agent keeps no such word. The host compares it with the hooks it
	// heard: busy a minute with no hook since is a broken hook connection,
	// said beside the row, never on it (host/silence.go).
	Busy func(transcript string) (since time.Time, ok bool)
	// Failed reports whether the agent says, outside its hooks, that the
	// turn that began at since ended in an error no hook reports (GitHub
	// Copilot CLI's TUI after a failed model call fires no Stop, and its
	// ErrorOccurred comes at every retry too); nil when the agent keeps no
	// such word. The host asks it while a row works, and ends the turn in
	// error.
	Failed func(transcript string, since time.Time) bool
	// SessionFile is where the agent keeps the file of a session (its
	// transcript), as the host's own environment says, for an agent whose
	// hooks name it late (Copilot CLI's Stop alone names it: an interrupt
	// in the first turn would go unseen); "" when it cannot tell. The host
	// takes it at a turn's start when no hook named one and the file is
	// there. nil: the hooks name it.
	SessionFile func(session string) string
	// Settled reports how the session's latest turn ended, as the agent's
	// own files say (state.OutcomeCompleted or OutcomeError), when it
	// ended no earlier than since; ok is false while it runs, or when the
	// files cannot say. session is the row's id, transcript the file its
	// hooks named ("" when none did: the agent finds its own, as OpenCode's
	// database and Copilot CLI's session file are found). The host asks
	// it of the rows it restores still working or asking: a turn that
	// ended while the host was down shows as ended. Every agent has one
	// (the registry's test): a restarted host reconciles every row.
	Settled func(session, transcript string, since time.Time) (outcome string, ok bool)
	// Why reads why the session's latest turn failed, as the agent's own
	// files say it, when that turn ended in error no earlier than since
	// (Codex's rollout, Gemini CLI's chat file, GitHub Copilot CLI's
	// session file carry the error no hook does); session and transcript
	// as Settled's. ok is false when the files cannot say. nil: the agent
	// keeps no such word beyond its hooks (Mapping.Why). The host asks it
	// once, when a row of the agent's ends in error with no why.
	Why func(session, transcript string, since time.Time) (why hookjson.Why, ok bool)
	// Process is the agent's own word on which process runs the session
	// (its PID and its start, in internal/proc's unit), for a row no
	// "notch-web hook" named one for (Claude Code's http hooks); nil when
	// it keeps none.
	Process func(transcript string) (pid int, start uint64, ok bool)
	// HelperEvents are the events whose command hook the agent runs under
	// a helper process of its own rather than itself (Qwen Code runs
	// StopFailure under a detached supervisor that may outlive it): the
	// process such a hook names is not the agent's, and is not watched.
	HelperEvents []string
	Hooks        []Hook
	Install      Install
	// Answers: the agent's PermissionRequest hook takes Claude Code's
	// allow/deny decision as its reply ({"hookSpecificOutput":
	// {"decision": {"behavior": …}}}), so the board can answer it while
	// the host holds the hook (docs/approvals.md). false: its card is
	// read-only (answer in the agent).
	Answers bool
	// AnswerWait, for an agent that shows its own prompt only after its
	// PermissionRequest hook returns (Codex, Qwen Code), makes answering
	// from the board opt-in ("hooks install <agent> --approvals": every
	// hold delays that prompt), and is how long the installed hook waits
	// on the board by default ("notch-web hook <agent> --wait D"). 0 with
	// Answers: the hook is always held, for the host's --approval-hold,
	// while the agent's prompt is shown too (Claude Code's http hook).
	AnswerWait time.Duration
	// Asks is how the agent's permission asks reach the host's approvals
	// (host/approvals.go): AskHook (""), its PermissionRequest hook in
	// Claude Code's shape; AskOpenCodePlugin, the events of OpenCode's
	// plugin (adapters/internal/ocplugin), which its forks send too.
	Asks AskStyle
	// OwnDialog are the tools whose PermissionRequest the board cannot
	// answer though Answers is set: the agent ignores a hook's allow for
	// them and shows its own dialog, which collects what an allow lacks
	// (Qwen Code's ask_user_question). Their cards say to answer in the
	// agent, and their hooks are not held.
	OwnDialog []string
	// StopKey is the key (a tmux key name) that interrupts a turn in the
	// agent's TUI, which the board's Stop presses: "" is Escape (Claude
	// Code, Codex, Gemini CLI); GitHub Copilot CLI's is "C-c" (its Escape
	// does not stop a turn while the model streams). terminal.StopKeys
	// are the keys Stop may press.
	StopKey string
	// StopPresses is how many presses of StopKey the board's Stop sends a
	// working row's tmux pane (0 is one): OpenCode 1.18's first Esc only
	// arms its interrupt ("esc again to interrupt").
	StopPresses int
	// ReplyEnter is how long the board's Reply waits between typing the
	// text into the agent's tmux pane and pressing Enter (0: 150 ms): a TUI
	// that reads a burst of input as a paste drops an Enter that comes
	// with it (Gemini CLI; OpenCode under load).
	ReplyEnter time.Duration
	// DaemonClient: the process the hooks name is a daemon the agent's
	// TUI is a client of, outside the terminal (Codex's app-server, which
	// owns the turns), so the board's Reply and Stop find the agent in
	// its pane by a process of the same program in the pane's foreground
	// (terminal.Target's Client); false: the process the hooks name is
	// itself in the pane's foreground group.
	DaemonClient bool
	// EmptyInput reports whether the agent's input box is empty on its
	// TUI's screen (tmux capture-pane's text): the board's Reply types
	// nothing over a draft (docs/terminal.md). nil: the input cannot be
	// read, and a Reply is refused (host.ErrInputUnread); Stop still works.
	EmptyInput func(screen string) bool
	// Launch is how the board starts the agent's CLI in a tmux window of
	// notch-web's own (host/launch, docs/launch.md); nil: it is not
	// started from the board.
	Launch *Launch
	Help   string // one line for "notch-web hooks -h": its scopes and hooks
}

// Launch is how an agent's CLI is started for a session begun from the
// board: a fixed argv, never a shell. The launch file on the machine may
// replace Argv (its own path, its own fixed flags); Prompt and Resume are
// the agent's, as its --help says.
type Launch struct {
	// Argv is the program and its fixed arguments: ["claude"].
	Argv []string
	// Prompt is the arguments that give the first prompt, put after Argv
	// (and Resume): one argv element holding the prompt, after "--" or as
	// an option's "=value", so a prompt that starts with "-" is not read
	// as an option. nil: the agent takes no prompt argument, and a start
	// with a prompt is refused (nothing is ever typed into a pane to
	// start a session: a typed prompt would need the checks a Reply has).
	Prompt func(prompt string) []string
	// Resume is the arguments that resume the session id (checked by
	// host/launch: letters, digits, "-" and "_"); nil: the agent cannot
	// resume a session by its id.
	Resume func(id string) []string
}

// ByTranscript is a Settled for an agent whose transcript alone says how
// a turn ended (the session's id adds nothing).
func ByTranscript(settled func(transcript string, since time.Time) (string, bool)) func(session, transcript string, since time.Time) (string, bool) {
	return func(_, transcript string, since time.Time) (string, bool) { return settled(transcript, since) }
}

// ByWhy is a Why for an agent whose transcript alone says why a turn
// failed.
func ByWhy(why func(transcript string, since time.Time) (hookjson.Why, bool)) func(session, transcript string, since time.Time) (hookjson.Why, bool) {
	return func(_, transcript string, since time.Time) (hookjson.Why, bool) { return why(transcript, since) }
}

// Events are the events of s's hooks, in order.
func (s Spec) Events() []string {
	out := make([]string, len(s.Hooks))
	for i, h := range s.Hooks {
		out[i] = h.Event
	}
	return out
}

// HTTP reports whether any of s's hooks is an http hook (then install
// writes the host's URL into the file).
func (s Spec) HTTP() bool {
	return slices.ContainsFunc(s.Hooks, func(h Hook) bool { return h.Kind == HTTP })
}

// ScopeNames are the names of s's scopes.
func (s Spec) ScopeNames() []string {
	out := make([]string, len(s.Install.Scopes))
	for i, sc := range s.Install.Scopes {
		out[i] = sc.Name
	}
	return out
}

// AfterDashes is a Launch.Prompt for a CLI whose prompt is its positional
// argument: "--" and the prompt, so nothing in it is read as an option.
func AfterDashes(prompt string) []string { return []string{"--", prompt} }

// Option is a Launch.Prompt or Resume that passes the value as one
// "--name=value" argument: a value that starts with "-" stays the value.
func Option(name string) func(string) []string {
	return func(v string) []string { return []string{name + "=" + v} }
}
