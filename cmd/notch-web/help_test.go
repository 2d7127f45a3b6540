package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// runCmd runs one command line in process and returns what it printed.
func runCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = run(context.Background(), args, env("HOME", t.TempDir(), "DSH_HOME", t.TempDir()), &out, &errb)
	return out.String(), errb.String(), err
}

// exitCode runs one command line as the real program (this test binary,
// see TestMain) and returns its exit code and stderr.
func exitCode(t *testing.T, args ...string) (int, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	// Not under make, whatever runs the tests: MAKELEVEL changes the hints.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "MAKELEVEL=") })
	cmd.Env = append(env, "NOTCH_WEB_RUN_ARGS="+strings.Join(args, "\x1f"), "DSH_HOME="+t.TempDir(), "HOME="+t.TempDir())
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), errb.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, errb.String()
}

// TestHelpListsEveryCommand: notch-web help names every command, one line
// each, on stdout.
func TestHelpListsEveryCommand(t *testing.T) {
	stdout, stderr, err := runCmd(t, "help")
	if err != nil || stderr != "" {
		t.Fatalf("help: %v, stderr %q", err, stderr)
	}
	for _, want := range []string{
		"  notch-web [run] [flags]\n      run the host: the live board, the Settings pane, state.json (the flags\n      below)\n",
		"  notch-web hook <agent> [--url URL]\n      an agent's command hook: stdin → the host\n",
		"  notch-web hooks install|uninstall|status [<agent>]\n      put the hooks into an agent's settings, or say where they are\n",
		"  notch-web statusline [--url URL] [--chain B64]\n      Claude Code's statusLine: its line, and the plan's usage for the board\n",
		"  notch-web pair [--address HOST:PORT]\n      on the hub: print a one-time join code\n",
		"  notch-web join CODE [--machine NAME]\n      pair this machine with a hub (then notch-web --join)\n",
		"  notch-web version\n      the build's version (also --version)\n",
		"  notch-web help [<command>]\n      this list, or a command's own help (the same as notch-web <command> -h)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help does not list %q:\n%s", want, stdout)
		}
	}
	// -h is the same page.
	if h, _, _ := runCmd(t, "-h"); h != stdout {
		t.Errorf("-h and help differ:\n%s\n---\n%s", h, stdout)
	}
}

// TestEveryCommandHasHelp: notch-web help <command> works for every
// command help lists, and says what notch-web <command> -h says (on stdout;
// on stderr for hook and statusline, whose stdout is their agent's).
func TestEveryCommandHasHelp(t *testing.T) {
	toStderr := map[string]bool{"hook": true, "statusline": true}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			help, stderr, err := runCmd(t, "help", c.name)
			if err != nil || stderr != "" || help == "" {
				t.Fatalf("help %s: %v, stdout %q, stderr %q", c.name, err, help, stderr)
			}
			if c.name != "run" && !strings.HasPrefix(help, "usage: notch-web "+c.name) {
				t.Errorf("help %s starts %q, want \"usage: notch-web %s\"", c.name, help[:min(40, len(help))], c.name)
			}
			stdout, stderr, err := runCmd(t, c.name, "-h")
			if err != nil {
				t.Fatalf("%s -h: %v", c.name, err)
			}
			got, other := stdout, stderr
			if toStderr[c.name] {
				got, other = stderr, stdout
			}
			if got != help || other != "" {
				t.Errorf("%s -h printed %q (and %q), want what help %s prints:\n%s", c.name, got, other, c.name, help)
			}
		})
	}
}

// TestMistypedCommand: a word that is no command is one line on stderr
// naming the nearest command (or the flag it spells), nothing on stdout,
// and a failure.
func TestMistypedCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"hoks"}, `notch-web: unknown command "hoks": did you mean "hooks"? (notch-web help lists the commands)`},
		{[]string{"statusine"}, `notch-web: unknown command "statusine": did you mean "statusline"? (notch-web help lists the commands)`},
		{[]string{"hoosk", "status"}, `notch-web: unknown command "hoosk": did you mean "hooks"? (notch-web help lists the commands)`},
		{[]string{"Pair"}, `notch-web: unknown command "Pair": did you mean "pair"? (notch-web help lists the commands)`},
		{[]string{"versoin"}, `notch-web: unknown command "versoin": did you mean "version"? (notch-web help lists the commands)`},
		{[]string{"demo"}, `notch-web: unknown command "demo": did you mean "--demo"? (notch-web -h lists the flags)`},
		{[]string{"hub"}, `notch-web: unknown command "hub": did you mean "--hub"? (notch-web -h lists the flags)`},
		{[]string{"xyzzy"}, `notch-web: unknown command "xyzzy" (notch-web help lists the commands: run, hook, hooks, statusline, pair, join, notify, history, devices, launch, service, doctor, mcp, version, help)`},
		{[]string{"help", "hoks"}, `notch-web: help: no command "hoks": did you mean "hooks"? (notch-web help lists the commands)`},
		{[]string{"help", "statusine"}, `notch-web: help: no command "statusine": did you mean "statusline"? (notch-web help lists the commands)`},
		{[]string{"version", "x"}, `notch-web: version: unexpected argument "x" (notch-web version takes none)`},
	} {
		stdout, stderr, err := runCmd(t, tc.args...)
		if err == nil {
			t.Errorf("%q: no error", tc.args)
		}
		if stderr != tc.want+"\n" || stdout != "" {
			t.Errorf("%q: stderr %q, stdout %q\nwant stderr %q", tc.args, stderr, stdout, tc.want+"\n")
		}
	}
	// The exit code, from the real program.
	for _, args := range [][]string{{"hoks"}, {"help", "hoks"}, {"statusine"}} {
		code, stderr := exitCode(t, args...)
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "did you mean") {
			t.Errorf("%q: exit %d, stderr %q; want 1 and one line", args, code, stderr)
		}
	}
	// run is a command too: notch-web run -h is notch-web -h.
	if h, _, err := runCmd(t, "run", "-h"); err != nil || !strings.Contains(h, "-addr HOST:PORT") {
		t.Errorf("run -h: %v %q", err, h)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"hooks", "hooks", 0}, {"hoks", "hooks", 1}, {"hoks", "hook", 2}, {"hoosk", "hooks", 1},
		{"statusine", "statusline", 1}, {"", "pair", 4}, {"ǰoin", "join", 1},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// Every help text fits a terminal's 80 columns: help, each command's help
// and its -h (tabs as a terminal shows them).
func TestHelpFits80Columns(t *testing.T) {
	pages := [][]string{{"help"}, {"-h"}}
	for _, c := range commands {
		pages = append(pages, []string{"help", c.name}, []string{c.name, "-h"})
	}
	for _, args := range pages {
		stdout, stderr, _ := runCmd(t, args...)
		for i, line := range strings.Split(expandTabs(stdout+stderr), "\n") {
			if n := utf8.RuneCountInString(line); n > helpWidth {
				t.Errorf("notch-web %s, line %d: %d columns: %q", strings.Join(args, " "), i+1, n, line)
			}
		}
	}
}

func TestFit(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("word ", 30))
	url := "https://" + strings.Repeat("x", 90)
	for _, tc := range []struct {
		name, in string
		cont     string // how each continued line starts
	}{
		{"a paragraph wraps at its indentation", "  " + long, "  w"},
		{"a two-column line wraps under its second column", "  name    " + long, "          w"},
		{"a flag's tab-indented usage", "\t" + long, "        w"},
		{"a word wider than the room stays whole", "see " + url + " then more", ""},
		{"hostile text", "\u202e" + long + " <b>" + long, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fit(tc.in + "\n")
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) < 2 {
				t.Fatalf("not wrapped: %q", got)
			}
			for i, l := range lines {
				if utf8.RuneCountInString(l) > helpWidth && !strings.Contains(l, url) {
					t.Errorf("line %d: %d columns: %q", i+1, utf8.RuneCountInString(l), l)
				}
				if l != strings.TrimRight(l, " ") {
					t.Errorf("line %d ends in spaces: %q", i+1, l)
				}
				if i > 0 && !strings.HasPrefix(l, tc.cont) {
					t.Errorf("continued line %d: %q, want it to start %q", i+1, l, tc.cont)
				}
			}
			if w, g := strings.Fields(expandTabs(tc.in)), strings.Fields(got); !slices.Equal(w, g) {
				t.Errorf("the words changed: %q", got)
			}
		})
	}
	if got := fit("a\n  b\tc\n"); got != "a\n  b     c\n" {
		t.Errorf("short lines: %q", got)
	}
}
