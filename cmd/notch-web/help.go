package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// command is one of notch-web's commands, as help lists it.
type command struct {
	name     string // the word after notch-web ("run" may be left out)
	synopsis string
	summary  string
}

// commands is every command, in the order help lists them. The dispatch is
// run's switch; TestEveryCommandHasHelp keeps the two in step.
var commands = []command{
	{"run", "notch-web [run] [flags]", "run the host: the live board, the Settings pane, state.json (the flags below)"},
	{"hook", "notch-web hook <agent> [--url URL]", "an agent's command hook: stdin → the host"},
	{"hooks", "notch-web hooks install|uninstall|status [<agent>]", "put the hooks into an agent's settings, or say where they are"},
	{"statusline", "notch-web statusline [--url URL] [--chain B64]", "Claude Code's statusLine: its line, and the plan's usage for the board"},
	{"pair", "notch-web pair [--address HOST:PORT]", "on the hub: print a one-time join code"},
	{"join", "notch-web join CODE [--machine NAME]", "pair this machine with a hub (then notch-web --join)"},
	{"notify", "notch-web notify test", "send a test push to every channel of notify.json"},
	{"history", "notch-web history export|forget", "the lasting history: export it (jsonl, csv) or forget sessions"},
	{"devices", "notch-web devices add NAME|list|revoke|role NAME R", "pair a phone or another browser with this host (a QR code), list, revoke, set its role"},
	{"launch", "notch-web launch [allow-folder DIR|allow-agent NAME|…]", "what the board may start on this machine: show or edit launch.json"},
	{"service", "notch-web service install|uninstall|status", "run notch-web at login and after a crash (systemd, launchd, Task Scheduler)"},
	{"doctor", "notch-web doctor", "check everything (hooks, host, tmux, pushes, history, service, phones), each with its fix"},
	{"mcp", "notch-web mcp [--url URL]", "an MCP server on stdio: agents read the board and the history (never answer)"},
	{"version", "notch-web version", "the build's version (also --version)"},
	{"help", "notch-web help [<command>]", "this list, or a command's own help (the same as notch-web <command> -h)"},
}

// commandNames are the commands' names, for "want one of …".
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// commandList is help's list of commands: each synopsis on its line, its
// summary under it (the two side by side would not fit 80 columns).
func commandList() string {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "  %s\n      %s\n", c.synopsis, c.summary)
	}
	return b.String()
}

const helpUsage = `usage: notch-web help [<command>]

Lists every command with one line each and the host's flags, or prints one
command's own help: notch-web help <command> says what notch-web <command> -h
says. Commands: run, hook, hooks, statusline, pair, join, notify, history,
devices, launch, service, doctor, mcp, version, help.
`

const versionUsage = `usage: notch-web version

Prints this build's version: the module version of a "go install …@vX",
else devel-<commit> (with -dirty for uncommitted changes), and Go's version.
notch-web --version says the same; /healthz carries it too.
`

// isHelp is a command's request for its own help.
func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// runHelp is "notch-web help [<command>]".
func runHelp(args []string, getenv func(string) string, stdout io.Writer) error {
	topic := ""
	if len(args) > 0 {
		topic = args[0]
	}
	if len(args) > 1 {
		return fmt.Errorf("help: one command at a time, got %q (notch-web help lists them)", args)
	}
	switch topic {
	case "", "run":
		printUsage(stdout)
	case "hooks":
		return runHooks([]string{"help"}, getenv, stdout, stdout)
	case "hook":
		fmt.Fprint(stdout, fit(hookUsage))
	case "statusline":
		fmt.Fprint(stdout, fit(statuslineUsage))
	case "pair":
		fmt.Fprint(stdout, fit(pairUsage))
	case "join":
		fmt.Fprint(stdout, fit(joinUsage))
	case "notify":
		fmt.Fprint(stdout, fit(notifyUsage))
	case "history":
		fmt.Fprint(stdout, fit(historyUsage))
	case "devices":
		fmt.Fprint(stdout, fit(devicesUsage))
	case "launch":
		fmt.Fprint(stdout, fit(launchUsage))
	case "service":
		fmt.Fprint(stdout, fit(serviceUsage))
	case "doctor":
		fmt.Fprint(stdout, fit(doctorUsage))
	case "mcp":
		fmt.Fprint(stdout, fit(mcpUsage))
	case "version":
		fmt.Fprint(stdout, fit(versionUsage))
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, fit(helpUsage))
	default:
		return fmt.Errorf("help: no command %q%s", topic, nearest(topic))
	}
	return nil
}

// runVersion is "notch-web version".
func runVersion(args []string, stdout io.Writer) error {
	switch {
	case len(args) == 0:
		fmt.Fprintln(stdout, versionLine())
	case isHelp(args[0]):
		fmt.Fprint(stdout, fit(versionUsage))
	default:
		return fmt.Errorf("version: unexpected argument %q (notch-web version takes none)", args[0])
	}
	return nil
}

// unknownCommand is the error for a first word that is no command.
func unknownCommand(word string) error {
	return fmt.Errorf("unknown command %q%s", word, nearest(word))
}

// nearest ends the line about a word that is no command: the command it
// is nearest to (a typo: "hoks", "statusine"), or the host's flag it names
// without its dashes ("demo"), else where the commands are listed.
func nearest(word string) string {
	w := strings.ToLower(word)
	best, bestD, bestLen := "", 3, 0 // at most two edits away
	for _, c := range commands {
		d := editDistance(w, c.name)
		if strings.HasPrefix(c.name, w) && len(w) >= 2 && d > 1 {
			d = 2 // a prefix ("stat") is a fair guess, behind a typo
		}
		// Of two as near, the one of the word's length ("hoosk": hooks,
		// not hook).
		dl := abs(len(c.name) - len(w))
		if d < len(c.name) && (d < bestD || d == bestD && best != "" && dl < bestLen) {
			best, bestD, bestLen = c.name, d, dl
		}
	}
	var c config
	var lv string
	if f := flagSet(&c, &lv).Lookup(w); f != nil && bestD > 1 {
		return fmt.Sprintf(": did you mean %q? (notch-web -h lists the flags)", "--"+f.Name)
	}
	if best != "" {
		return fmt.Sprintf(": did you mean %q? (notch-web help lists the commands)", best)
	}
	return " (notch-web help lists the commands: " + strings.Join(commandNames(), ", ") + ")"
}

// editDistance is the Damerau–Levenshtein distance (optimal string
// alignment) between a and b: insertions, deletions, substitutions and
// swaps of two neighbours each count one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// helpWidth is the width every help text fits: a terminal's 80 columns.
const helpWidth = 80

// fit wraps each line of a help text that is wider than helpWidth at its
// spaces, tabs expanded (to multiples of 8, as a terminal shows them). A
// continued line starts under the line's own text: under the second
// column of a two-column line (a word, two spaces or more, the rest), else
// at the line's indentation. A single word wider than the room (a URL)
// stays whole.
func fit(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		nl := strings.HasSuffix(line, "\n")
		line = expandTabs(strings.TrimSuffix(line, "\n"))
		if utf8.RuneCountInString(line) <= helpWidth {
			b.WriteString(line)
		} else {
			wrapLine(&b, line)
		}
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wrapLine writes one wide line of fit's, wrapped.
func wrapLine(b *strings.Builder, line string) {
	line = strings.TrimRight(line, " ")
	body := strings.TrimLeft(line, " ")
	indent := len(line) - len(body)
	cont := indent
	// A two-column line: its second column starts after the first run of
	// two spaces or more (within the first half of the width).
	if i := strings.Index(body, "  "); i > 0 {
		j := i + len(body[i:]) - len(strings.TrimLeft(body[i:], " "))
		if indent+j <= helpWidth/2 {
			cont = indent + j
		}
	}
	out := line[:indent]
	col := indent
	rest := body
	for rest != "" {
		// The next word and the spaces before it.
		w := strings.TrimLeft(rest, " ")
		gap := rest[:len(rest)-len(w)]
		if k := strings.IndexByte(w, ' '); k >= 0 {
			w = w[:k]
		}
		rest = rest[len(gap)+len(w):]
		n := utf8.RuneCountInString(w)
		if col > cont && col+len(gap)+n > helpWidth {
			out += "\n" + strings.Repeat(" ", cont)
			col = cont
			gap = ""
		}
		out += gap + w
		col += len(gap) + n
	}
	b.WriteString(out)
}

// expandTabs replaces each tab with the spaces to the next multiple of 8.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}
