package terminal

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/proc"
)

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		w    Where
		want string
	}{
		{Where{}, ""},
		{Where{Program: "WezTerm"}, ""},
		{Where{TmuxPane: "%1", TmuxSocket: "/t", ScreenSession: "1.s", ScreenWindow: "0"}, KeysTmux},
		{Where{ScreenSession: "1.s", ScreenWindow: "0", KittyWindow: "3", KittyListen: "unix:/k"}, KeysScreen},
		{Where{ZellijSession: "z", ZellijPane: "2", WeztermPane: "4"}, KeysZellij},
		{Where{KittyWindow: "3", KittyListen: "unix:/k"}, KeysKitty},
		{Where{KittyWindow: "3"}, ""}, // kitty that does not listen: no remote control
		{Where{WeztermPane: "4"}, KeysWezterm},
	} {
		if got := tc.w.Keys(); got != tc.want {
			t.Errorf("%+v.Keys() = %q, want %q", tc.w, got, tc.want)
		}
	}
}

// Every command is a fixed argv with the text one argument (kitty: stdin)
// after the program's end of options, made literal for that program.
func TestRemoteArgv(t *testing.T) {
	screen := Where{ScreenSession: "42.s", ScreenWindow: "3"}
	zellij := Where{ZellijSession: "cat", ZellijPane: "2"}
	kitty := Where{KittyWindow: "5", KittyListen: "unix:/tmp/kitty"}
	wez := Where{WeztermPane: "7", WeztermSocket: "/run/wez/sock"}
	show := func(cs ...call) string {
		var b []string
		for _, c := range cs {
			s := strings.Join(c.argv, " | ")
			if c.stdin != "" {
				s += " < " + c.stdin
			}
			if len(c.env) > 0 {
				s += " env " + strings.Join(c.env, ",")
			}
			b = append(b, s)
		}
		return strings.Join(b, "\n")
	}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"screen text", show(textCalls(screen, `-X quit; $HOME ^C \033`)...), `screen | -S | 42.s | -p | 3 | -X | stuff | -X quit; \$HOME \^C \\033`},
		{"screen enter", show(keyCall(screen, keyEnter)), "screen | -S | 42.s | -p | 3 | -X | stuff | ^M"},
		{"screen ctrl-c", show(keyCall(screen, "C-c")), "screen | -S | 42.s | -p | 3 | -X | stuff | ^C"},
		{"zellij text", show(textCalls(zellij, "--help")...), "zellij | --session | cat | action | write-chars | --pane-id | terminal_2 | -- | --help"},
		{"zellij escape", show(keyCall(zellij, keyEscape)), "zellij | --session | cat | action | write | --pane-id | terminal_2 | 27"},
		{"kitty text", show(textCalls(kitty, `\e[31m`)...), `kitty | @ | --to | unix:/tmp/kitty | send-text | --match | id:5 | --stdin < \e[31m`},
		{"kitty enter", show(keyCall(kitty, keyEnter)), "kitty | @ | --to | unix:/tmp/kitty | send-text | --match | id:5 | --stdin < \r"},
		{"wezterm text", show(textCalls(wez, "--pane-id 1")...), "wezterm | cli | send-text | --pane-id | 7 | --no-paste | -- | --pane-id 1 env WEZTERM_UNIX_SOCKET=/run/wez/sock"},
		{"wezterm ctrl-c", show(keyCall(Where{WeztermPane: "7"}, "C-c")), "wezterm | cli | send-text | --pane-id | 7 | --no-paste | -- | \x03"},
		{"kitty screen", show(screenCall(kitty, "")), "kitty | @ | --to | unix:/tmp/kitty | get-text | --match | id:5 | --ansi"},
		{"wezterm screen", show(screenCall(wez, "")), "wezterm | cli | get-text | --pane-id | 7 | --escapes env WEZTERM_UNIX_SOCKET=/run/wez/sock"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
	// A long reply goes to screen in pieces, each whole characters.
	long := strings.Repeat("é", screenChunk)
	cs := textCalls(screen, long)
	var joined string
	for _, c := range cs {
		arg := c.argv[len(c.argv)-1]
		if !utf8.ValidString(arg) || len(arg) > screenChunk {
			t.Fatalf("a piece of %d bytes, valid %v", len(arg), utf8.ValidString(arg))
		}
		joined += arg
	}
	if len(cs) != 2 || joined != long {
		t.Errorf("%d pieces, joined equal %v", len(cs), joined == long)
	}
}

// FuzzStuffLiteral: any text made literal for screen's stuff holds no
// unescaped "\", "^" or "$", and unescapes to itself.
func FuzzStuffLiteral(f *testing.F) {
	f.Add(`$HOME ^C \033`) // screen's three escapes
	f.Add(`\\^^$$`)        // doubled
	f.Add("é;\n")          // text and a newline
	f.Fuzz(func(t *testing.T, s string) {
		lit := stuffLiteral(s)
		var back strings.Builder
		for i := 0; i < len(lit); i++ {
			c := lit[i]
			if c == '\\' {
				if i+1 == len(lit) || !strings.ContainsRune(`\^$`, rune(lit[i+1])) {
					t.Fatalf("a bare backslash in %q", lit)
				}
				i++
				back.WriteByte(lit[i])
				continue
			}
			if c == '^' || c == '$' {
				t.Fatalf("an unescaped %q in %q", c, lit)
			}
			back.WriteByte(c)
		}
		if utf8.ValidString(s) && back.String() != s {
			t.Fatalf("%q unescapes to %q", s, back.String())
		}
	})
}

// The checks before any key, on recorded processes: the agent's session
// leader must have been started for that pane (its environment) and the
// agent must be its terminal's foreground; a daemon's client is followed
// in tmux only; nothing is run when a check fails.
func TestRemoteInFront(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("boot id from /proc")
	}
	boot, err := proc.BootID()
	if err != nil {
		t.Skip(err)
	}
	w := Where{ZellijSession: "cat", ZellijPane: "2"}
	agent := proc.ID{PID: 20, Start: 7, Boot: boot}
	procs := map[int]proc.Info{
		10: {PID: 10, Name: "bash", Pgrp: 10, Session: 10, TTY: 34816, TPgrp: 20},
		20: {PID: 20, Name: "claude", Start: 7, Pgrp: 20, Session: 10, TTY: 34816, TPgrp: 20},
	}
	env := map[string]string{"ZELLIJ_SESSION_NAME": "cat", "ZELLIJ_PANE_ID": "2"}
	var ran []string
	r := &Remote{
		lookup: func(pid int) (proc.Info, error) {
			if in, ok := procs[pid]; ok {
				return in, nil
			}
			return proc.Info{}, proc.ErrNoProcess
		},
		environ: func(pid int, key string) (string, bool, error) {
			if pid != 10 {
				return "", false, nil
			}
			v, ok := env[key]
			return v, ok, nil
		},
		run: func(_ context.Context, argv, _ []string, _ string) ([]byte, error) {
			ran = append(ran, strings.Join(argv, " "))
			return nil, nil
		},
	}
	ctx := context.Background()
	if err := r.Type(ctx, Target{Where: w, Agent: agent}, "hi", 0); err != nil || len(ran) != 2 {
		t.Fatalf("Type with the agent in front: %v, ran %q", err, ran)
	}
	for _, tc := range []struct {
		name  string
		tweak func()
		tg    Target
		want  error
	}{
		{"another pane", func() { env["ZELLIJ_PANE_ID"] = "3" }, Target{Where: w, Agent: agent}, ErrNotInPane},
		{"no pane id in the leader's environment", func() { delete(env, "ZELLIJ_PANE_ID") }, Target{Where: w, Agent: agent}, ErrNotInPane},
		{"the shell in front", func() { p := procs[10]; p.TPgrp = 10; procs[10] = p }, Target{Where: w, Agent: agent}, ErrNotInPane},
		{"another start", nil, Target{Where: w, Agent: proc.ID{PID: 20, Start: 8, Boot: boot}}, ErrNotInPane},
		{"no process", nil, Target{Where: w}, ErrNotInPane},
		{"a daemon's client", nil, Target{Where: w, Agent: agent, Client: true}, ErrNotInPane},
		{"the leader gone", func() { delete(procs, 10) }, Target{Where: w, Agent: agent}, ErrGone},
		{"not a terminal it types into", nil, Target{Where: Where{KittyWindow: "3"}, Agent: agent}, ErrNoTmux},
	} {
		procs[10] = proc.Info{PID: 10, Name: "bash", Pgrp: 10, Session: 10, TTY: 34816, TPgrp: 20}
		env["ZELLIJ_PANE_ID"] = "2"
		if tc.tweak != nil {
			tc.tweak()
		}
		ran = nil
		if err := r.Type(ctx, tc.tg, "touch marker", 0); !errors.Is(err, tc.want) || len(ran) != 0 {
			t.Errorf("%s: Type = %v (ran %q), want %v and nothing run", tc.name, err, ran, tc.want)
		}
	}
}
