package install

import (
	"runtime"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/codex"
	"github.com/notch-web/notch-web/adapters/gemini"
	"github.com/notch-web/notch-web/adapters/opencode"
	"github.com/notch-web/notch-web/adapters/registry"
)

// The agents Install knows, by their adapters' names.
const (
	ClaudeCode = claudecode.Agent
	Codex      = codex.Agent
	Gemini     = gemini.Agent
	OpenCode   = opencode.Agent
)

// Agents lists every agent of adapters/registry, for help texts and errors.
var Agents = registry.Names()

// The scopes a settings file can have.
const (
	ScopeUser    = "user"    // the user's own settings, in the home directory
	ScopeProject = "project" // a project's shared settings (committed)
	ScopeLocal   = "local"   // a project's settings for this machine only (Claude Code)
)

// ClaudeHTTPTimeout is Claude Code's http hooks' timeout, in seconds (the
// timeouts are each agent's Spec's: the host answers at once, and a hook
// must never hold an agent up for long when the host is down).
const ClaudeHTTPTimeout = 2

// Approvals from the board hold an agent's PermissionRequest hook while the
// board shows its card (the host's --approval-hold): the installed hook's
// timeout is a few seconds above the hold, so the agent never gives up on
// the hook first.
const (
	// DefaultApprovalHold is the host's default hold (host.DefaultApprovalHold).
	DefaultApprovalHold = 25 * time.Second
	// DefaultCodexWait is how long Codex's PermissionRequest hook waits on
	// the board when installed with --approvals: short, because Codex shows
	// its own prompt only after the hook returns (its Spec's AnswerWait).
	DefaultCodexWait = 10 * time.Second
	// holdMargin is how much longer than the hold an agent waits on the hook.
	holdMargin = 5 * time.Second
)

// holdTimeout is a hook's timeout in whole seconds for a hold.
func holdTimeout(hold time.Duration) int {
	return int((hold + holdMargin + time.Second - 1) / time.Second)
}

// withHold gives Claude Code's PermissionRequest http hook a timeout a few
// seconds above the host's hold, so the board can answer it.
func withHold(f hooksFormat, base string, hold time.Duration) hooksFormat {
	return withEntry(f, claudecode.PermissionRequest, httpHook{
		Type: "http", URL: strings.TrimRight(base, "/") + HookPath(ClaudeCode), Timeout: holdTimeout(hold),
	})
}

// withWait (hooks install codex|qwen --approvals) makes the agent's
// PermissionRequest command hook wait up to wait on the board's answer
// ("notch-web hook <agent> --wait"), which delays the agent's own prompt by
// as much; wait 0 leaves it observe-only. Every agent that takes it names
// the event as Claude Code does.
func withWait(f hooksFormat, cmd string, wait time.Duration) hooksFormat {
	if wait <= 0 {
		return f
	}
	return withEntry(f, claudecode.PermissionRequest, commandHook{
		Type: "command", Command: cmd + " --wait " + wait.String(), Timeout: holdTimeout(wait),
	})
}

// withEntry is f with event's entry replaced.
func withEntry(f hooksFormat, event string, entry any) hooksFormat {
	entries := make(map[string]any, len(f.entries)+1)
	for k, v := range f.entries {
		entries[k] = v
	}
	entries[event] = entry
	f.entries = entries
	return f
}

// HookPath is the host's endpoint for an agent's hooks.
func HookPath(agent string) string { return "/agents-notch/hooks/" + agent }

// httpHook is a Claude Code http hook, in the documented key order.
type httpHook struct {
	Type    string `json:"type"`
	URL     string `json:"url"`
	Timeout int    `json:"timeout"`
}

// commandHook is a command hook as Codex and Claude Code write it.
type commandHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// geminiHook is a Gemini CLI command hook; its name is what /hooks enable
// and disable take.
type geminiHook struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// shellQuote quotes a program path for the shell an agent runs its command
// hooks with: POSIX single quotes, or double quotes on Windows; a path of
// only safe characters stays as it is.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%", r) ||
			(runtime.GOOS == "windows" && r == '\\')) {
			safe = false
			break
		}
	}
	switch {
	case safe:
		return s
	case runtime.GOOS == "windows":
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookCommand is the command an agent's command hook runs.
func hookCommand(exe, agent, url string) string {
	cmd := shellQuote(exe) + " hook " + agent
	if url != "" {
		cmd += " --url " + shellQuote(url)
	}
	return cmd
}

// specFormat is an agent's hooks as its Spec declares them: each event's
// entry by its kind (an http hook to base's endpoint, or a command hook
// running cmd) in the agent's style, with its timeout and matcher.
func specFormat(s agent.Spec, base, cmd string) hooksFormat {
	f := hooksFormat{events: s.Events(), matcher: map[string]string{}, entries: map[string]any{}, ours: oursFor(s.Name)}
	for _, h := range s.Hooks {
		if h.Matcher != "" {
			f.matcher[h.Event] = h.Matcher
		}
		f.entries[h.Event] = hookEntry(s, h, base, cmd)
	}
	return f
}

// hookEntry is the entry notch-web writes for one hook.
func hookEntry(s agent.Spec, h agent.Hook, base, cmd string) any {
	secs := int((h.Timeout + time.Second - 1) / time.Second)
	switch {
	case h.Kind == agent.HTTP:
		return httpHook{Type: "http", URL: strings.TrimRight(base, "/") + HookPath(s.Name), Timeout: secs}
	case s.Install.Style == agent.StyleGemini:
		return geminiHook{Name: s.Install.Name, Type: "command", Command: cmd, Timeout: int(h.Timeout / time.Millisecond)}
	}
	return commandHook{Type: "command", Command: cmd, Timeout: secs}
}

// claudeFormat and codexFormat are two agents' formats, as the tests build them.
func claudeFormat(base, cmd string) hooksFormat { return specFormat(claudecode.Spec, base, cmd) }
func codexFormat(cmd string) hooksFormat        { return specFormat(codex.Spec, "", cmd) }
