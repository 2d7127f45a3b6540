package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/adapters/relay"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/textrule"
)

// runAgentHooks is "notch-web hook …" (an agent's command hook relaying its
// payload to the host) and "notch-web hooks …" (installing those hooks).
// stdin is the hook's payload.
func runAgentHooks(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if args[0] == "hook" {
		runHook(ctx, args[1:], getenv, stdin, stdout, stderr)
		return nil // a hook never fails its agent
	}
	err := runHooks(args[1:], getenv, stdout, stderr)
	if err != nil {
		// One line, whatever the error holds: it names the file (quoted)
		// and what to do.
		fmt.Fprintln(stderr, textrule.Escape(strings.Join(strings.Fields("notch-web "+err.Error()), " "), ""))
	}
	return err
}

// seeHelp ends a usage error's line.
const seeHelp = " (see notch-web hooks -h)"

// defaultURL is the host's base URL when neither --url nor NOTCH_URL says.
func defaultURL() string { return "http://" + DefaultAddr }

// hostURL is --url, else NOTCH_URL, else the default address.
func hostURL(flagURL string, getenv func(string) string) string {
	if flagURL != "" {
		return flagURL
	}
	if u := getenv("NOTCH_URL"); u != "" {
		return u
	}
	return defaultURL()
}

// splitAgent takes the agent from args whether it comes before the flags
// ("hook codex --url U") or after them ("hook --url U codex"): the flag
// package stops at the first word that is not a flag.
func splitAgent(fs *flag.FlagSet, args []string) (agent string, rest []string, err error) {
	if err := fs.Parse(args); err != nil {
		return "", nil, err
	}
	rest = fs.Args()
	if len(rest) > 0 {
		agent = rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return "", nil, err
		}
		rest = fs.Args()
	}
	return agent, rest, nil
}

var hookUsage = `usage: notch-web hook <agent> [--url URL] [--verbose] [--wait D] [--origin] [PAYLOAD]

Relays one hook payload (stdin, or PAYLOAD: Codex's notify passes its JSON
as the last argument) to the host at URL/agents-notch/hooks/<agent>, within
one second. It always exits 0 and writes nothing to stdout, so it can never
fail or steer the agent — except with --wait (hooks install codex|qwen
--approvals): a PermissionRequest then waits up to D for an answer given on
the board, and only that decision is printed. Agents: ` + strings.Join(registry.Names(), ", ") + `.

--origin relays nothing: it prints, as one JSON object, the host's URL and
the headers a hook of this process's parent would carry (its process and
terminal), for an agent's own plugin to send with its events (OpenCode's).

URL is --url, else $NOTCH_URL, else the host serving the DSH home
(--dsh-home, else $DSH_HOME, else ~/.dsh), else http://` + DefaultAddr + `.
`

// runHook relays one payload. Problems are reported on stderr with
// --verbose only: an agent may show a hook's stderr, and a host that is not
// running is not the agent's problem.
func runHook(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) {
	fs := flag.NewFlagSet("notch-web hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := addGlobals(fs)
	verbose := fs.Bool("verbose", false, "say on stderr why a payload was not delivered")
	wait := fs.Duration("wait", 0, "codex, qwen: wait up to this long for the board's answer to a PermissionRequest, and print it")
	origin := fs.Bool("origin", false, "print the host's URL and this hook's headers as JSON; relay nothing")
	agent, rest, err := splitAgent(fs, args)
	say := func(err error) {
		if *verbose || errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "notch-web hook: %v\n", err)
		}
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stderr, fit(hookUsage))
		return
	case err != nil:
		say(err)
		return
	case !slices.Contains(install.Agents, agent):
		say(fmt.Errorf("unknown agent %q (want one of %s)", agent, strings.Join(install.Agents, ", ")))
		return
	case len(rest) > 1:
		say(fmt.Errorf("unexpected arguments %q", rest[1:]))
		return
	case *wait < 0 || *wait > maxHold:
		say(fmt.Errorf("--wait %v: want at most %v", *wait, maxHold))
		return
	}
	if *origin {
		printOrigin(stdout, agent, g.hostURL(getenv), terminal.FromEnv(getenv), agentProcess(), say)
		return
	}
	// Where the agent runs (tmux, WezTerm, kitty) rides along, validated,
	// for the board's Go to terminal.
	// So does the agent's process (this command's parent, past any shell),
	// for the host to watch.
	req := relay.Request{Agent: agent, URL: g.hostURL(getenv), Stdin: stdin, Wait: *wait, Where: terminal.FromEnv(getenv), Proc: agentProcess()}
	if len(rest) == 1 {
		req.Arg = rest[0]
	}
	answer, err := relay.Send(ctx, req)
	if err != nil {
		say(err)
	}
	// Only a board decision reaches stdout, which the agent reads as the
	// hook's answer; nothing else ever does.
	if len(answer) > 0 {
		stdout.Write(append(answer, '\n'))
	}
}

// hookOrigin is what "notch-web hook --origin" prints: where an agent's own
// plugin sends its events, and the headers "notch-web hook" would send
// beside them.
type hookOrigin struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// printOrigin prints the origin of a hook for agent to base, as JSON on
// one line; nothing when base is not a host's base URL.
func printOrigin(w io.Writer, agent, base string, where terminal.Where, id proc.ID, say func(error)) {
	if _, err := relay.Endpoint(base, agent); err != nil {
		say(err)
		return
	}
	o := hookOrigin{URL: strings.TrimRight(base, "/"), Headers: map[string]string{}}
	if !where.IsZero() {
		o.Headers[terminal.Header] = where.Encode()
	}
	if !id.IsZero() {
		o.Headers[proc.Header] = id.Encode()
	}
	b, _ := json.Marshal(o) // strings only
	w.Write(append(b, '\n'))
}

// agentProcess is the agent this hook runs for: the nearest ancestor that
// is not a shell (internal/proc), or the zero ID where that cannot be told.
func agentProcess() proc.ID {
	boot, err := proc.BootID()
	if err != nil {
		return proc.ID{}
	}
	id, _ := proc.Agent(proc.Lookup, os.Getppid(), boot)
	return id
}

// optInAgents are the agents whose answering from the board is opt-in
// (hooks install <agent> --approvals).
func optInAgents() []string {
	var out []string
	for _, s := range registry.All {
		if s.Answers && s.AnswerWait > 0 {
			out = append(out, s.Name)
		}
	}
	return out
}

// maxHold bounds --approval-hold, hooks install's --wait and hook's --wait (as the host's).
const maxHold = 10 * time.Minute

var hooksUsage = `usage: notch-web hooks install|uninstall|status [<agent>] [flags]

Puts notch-web's hooks into an agent's own settings (install), takes out
only those (uninstall), or says what is installed where (status; every
agent when none is named), whether a notch-web answers where they point,
and whether Codex trusts them. Agents: ` + strings.Join(registry.Names(), ", ") + `.

--statusline (claude-code) also runs "notch-web statusline" as Claude Code's
statusLine, chaining yours (uninstall puts yours back).

--otel (claude-code, codex, gemini) also points the agent's own
OpenTelemetry logs at the host (URL/agents-notch/otlp): the board gets each
session's tokens, cost where the agent reports it, and failed model calls.
Claude Code's env block, Codex's [otel], Gemini CLI's telemetry. An exporter
of yours the agent can have only one of is never replaced unless --force;
uninstall takes out only notch-web's. GitHub Copilot CLI reads its
OpenTelemetry only from its environment: --otel refuses it and says the
variable to set (OTEL_EXPORTER_OTLP_ENDPOINT=URL/agents-notch/otlp).

` + agentHelp() + `
Your own hooks and settings stay exactly as they are; a second install
changes nothing; the old file is kept as FILE.bak-<ms>; a file that does not
parse is refused untouched.

flags:
`

// agentHelp is each agent's line of help (agent.Spec.Help), aligned.
func agentHelp() string {
	var b strings.Builder
	for _, s := range registry.All {
		for i, line := range strings.Split(s.Help, "\n") {
			name := ""
			if i == 0 {
				name = s.Name
			}
			fmt.Fprintf(&b, "  %-12s %s\n", name, line)
		}
	}
	return b.String()
}

// runHooks is "notch-web hooks install|uninstall|status".
func runHooks(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("notch-web hooks", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a failure is one line, said by runAgentHooks
	usage := func() {
		var b strings.Builder
		b.WriteString(hooksUsage)
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		fmt.Fprint(stdout, fit(b.String()))
	}
	scope := fs.String("scope", "", "`user`, project or local (default user)")
	g := addGlobals(fs)
	dir := fs.String("dir", ".", "the project `DIR` for the project and local scopes")
	exe := fs.String("exe", "", "the notch-web `PATH` command hooks run (default this executable)")
	dry := fs.Bool("dry-run", false, "print the change as a diff and write nothing")
	hold := fs.Duration("approval-hold", install.DefaultApprovalHold, "claude-code: the host's --approval-hold; its PermissionRequest hook times out a few seconds later")
	approvals := fs.Bool("approvals", false, "codex, qwen: let the board answer the agent's permission requests (delays its own prompt by up to --wait)")
	wait := fs.Duration("wait", 0, "codex, qwen --approvals: how long the PermissionRequest hook waits on the board (default 10s)")
	codexWait := fs.Duration("codex-wait", 0, "the older name of --wait")
	mcpFlag := fs.Bool("mcp", false, "also make notch-web mcp one of the agent's MCP servers, user-wide (uninstall takes it out)")
	statusline := fs.Bool("statusline", false, "claude-code: also make the statusLine notch-web's, chaining yours (plan usage for the board)")
	otel := fs.Bool("otel", false, "claude-code, codex, gemini: also point the agent's own OpenTelemetry (its logs) at the host: tokens, cost and model errors per session")
	force := fs.Bool("force", false, "with --otel: replace a telemetry exporter of yours that the agent can only have one of")
	if len(args) == 0 {
		return errors.New("hooks: want install, uninstall or status" + seeHelp)
	}
	verb := args[0]
	if verb == "-h" || verb == "--help" || verb == "help" {
		usage()
		return nil
	}
	if verb != "install" && verb != "uninstall" && verb != "status" {
		return fmt.Errorf("hooks: unknown %q (want install, uninstall or status)"+seeHelp, verb)
	}
	agent, rest, err := splitAgent(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return nil
	}
	if err != nil {
		return fmt.Errorf("hooks %s: %w"+seeHelp, verb, err)
	}
	if len(rest) > 0 {
		return fmt.Errorf("hooks %s: unexpected arguments %q"+seeHelp, verb, rest)
	}
	if agent != "" && !slices.Contains(install.Agents, agent) {
		return fmt.Errorf("hooks %s: unknown agent %q (want one of %s)", verb, agent, strings.Join(install.Agents, ", "))
	}
	project, err := filepath.Abs(*dir)
	if err != nil {
		return fmt.Errorf("hooks %s: --dir %s: %w", verb, textrule.Quote(*dir), err)
	}
	home := homeDir(getenv, runtime.GOOS)
	o := install.Options{Agent: agent, Scope: *scope, Home: home, Dir: project, DryRun: *dry, Getenv: getenv, ApprovalHold: *hold, Statusline: *statusline, MCP: *mcpFlag, MCPURL: g.url, Otel: *otel, Force: *force}
	if *hold <= 0 || *hold > maxHold {
		return fmt.Errorf("hooks %s: --approval-hold %v: want a duration above 0 and at most %v", verb, *hold, maxHold)
	}
	if *approvals {
		spec, _ := registry.Get(agent)
		if !spec.Answers || spec.AnswerWait == 0 {
			return fmt.Errorf("hooks %s: --approvals is for %s (Claude Code's board approvals need no flag; the others' cannot be answered from outside)", verb, strings.Join(optInAgents(), " and "))
		}
		o.Wait = cmp.Or(*wait, *codexWait, spec.AnswerWait)
		if o.Wait <= 0 || o.Wait > maxHold {
			return fmt.Errorf("hooks %s: --wait %v: want a duration above 0 and at most %v", verb, o.Wait, maxHold)
		}
	}

	switch verb {
	case "status":
		agents := install.Agents
		if agent != "" {
			agents = []string{agent}
		}
		unreadable := 0
		hosts := map[string]string{}
		for _, a := range agents {
			o.Agent = a
			st, err := install.Status(o)
			if err != nil {
				return fmt.Errorf("hooks status: %w", err)
			}
			unreadable += printStatus(stdout, st)
			printHosts(context.Background(), stdout, a, hookBases(st, getenv), hosts)
		}
		if unreadable > 0 {
			return fmt.Errorf("hooks status: %d file(s) could not be read (said above, with what to do)", unreadable)
		}
		return nil
	}
	if agent == "" {
		return fmt.Errorf("hooks %s: name an agent (%s)", verb, strings.Join(install.Agents, ", "))
	}
	base := g.hostURL(getenv)
	if _, err := relay.Endpoint(base, agent); err != nil {
		return fmt.Errorf("hooks %s: --url: %w", verb, err)
	}
	o.URL, o.OtelURL = base, base
	if *force && !*otel {
		return fmt.Errorf("hooks %s: --force is for --otel (it replaces a telemetry exporter of yours)", verb)
	}
	if agent == install.ClaudeCode && *statusline && verb == "install" {
		if o.Exe, err = executable(*exe); err != nil {
			return fmt.Errorf("hooks %s: %w", verb, err)
		}
	}
	if spec, _ := registry.Get(agent); !spec.HTTP() {
		// Command hooks find the host the way the hook command does
		// ($NOTCH_URL, else the host serving ~/.dsh, else the default)
		// unless told otherwise here: --url, or --dsh-home's host.
		o.URL = ""
		if g.url != "" || g.dshHome != "" {
			o.URL = base
		}
	}
	// Every agent has a command hook now (Claude Code's SessionStart).
	// Uninstall writes none, so it needs no executable of its own.
	if o.Exe, err = executable(*exe); err != nil {
		if verb == "install" {
			return fmt.Errorf("hooks %s: %w", verb, err)
		}
		o.Exe = "notch-web"
	}
	var res install.Result
	if verb == "install" {
		res, err = install.Install(o)
	} else {
		res, err = install.Uninstall(o)
	}
	if err != nil {
		return fmt.Errorf("hooks %s: %w", verb, err)
	}
	printResult(stdout, res, *dry)
	if verb == "install" && !*dry {
		checkInstalledHost(context.Background(), stdout, base) // hostcheck.go
	}
	return nil
}

// executable is the notch-web command hooks run: --exe, else this
// program, unless it is a throwaway "go run" build.
func executable(flagExe string) (string, error) {
	if flagExe != "" {
		return filepath.Abs(flagExe)
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this executable: %w (pass --exe)", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", fmt.Errorf("this notch-web is a temporary \"go run\" build (%s): install it (go install ./cmd/notch-web) and run that, or pass --exe", exe)
	}
	return exe, nil
}

// Paths are shown with textrule.Show (quoted when anything in them could
// act on the terminal), and every line goes through textrule.Escape: a
// file's name or content never repaints the terminal.

func printResult(w io.Writer, res install.Result, dry bool) {
	for _, ch := range res.Changes {
		path := textrule.Show(ch.Path)
		switch {
		case !ch.Changed:
			fmt.Fprintf(w, "%s: nothing to change\n", path)
		case dry:
			verb := "would change"
			if ch.Created {
				verb = "would create"
			} else if ch.Removed {
				verb = "would remove"
			}
			fmt.Fprintf(w, "%s %s:\n%s", verb, path, textrule.Escape(ch.Diff, "\n"))
		case ch.Created:
			fmt.Fprintf(w, "created %s\n", path)
		case ch.Removed:
			fmt.Fprintf(w, "removed %s (a copy is %s)\n", path, textrule.Show(ch.Backup))
		default:
			fmt.Fprintf(w, "changed %s (the old file is %s)\n", path, textrule.Show(ch.Backup))
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", textrule.Escape(n, "\n"))
	}
}

// printStatus prints what Status found and returns how many files could
// not be read.
func printStatus(w io.Writer, st []install.Installed) (unreadable int) {
	for _, s := range st {
		fmt.Fprintf(w, "%s %s: %s\n", s.Agent, s.Scope, textrule.Show(s.Path))
		switch {
		case s.Problem != "":
			unreadable++
			fmt.Fprintf(w, "  cannot use it: %s\n", textrule.Escape(s.Problem, ""))
		case !s.Exists:
			fmt.Fprintln(w, "  no such file")
		case len(s.Events) == 0:
			fmt.Fprintln(w, "  notch-web is not installed here")
		default:
			fmt.Fprintf(w, "  installed: %s\n", strings.Join(s.Events, ", "))
			if len(s.Missing) > 0 {
				fmt.Fprintf(w, "  missing: %s (run hooks install again)\n", strings.Join(s.Missing, ", "))
			}
			for _, t := range s.Targets {
				fmt.Fprintf(w, "  → %s\n", textrule.Escape(t, ""))
			}
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  note: %s\n", textrule.Escape(n, ""))
		}
	}
	return unreadable
}
