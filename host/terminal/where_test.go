package terminal

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name string
		env  func(string) string
		want Where
	}{
		{"nothing", env(), Where{}},
		{"tmux", env("TMUX", "/tmp/tmux-1000/default,4242,0", "TMUX_PANE", "%3"), Where{TmuxPane: "%3", TmuxSocket: "/tmp/tmux-1000/default"}},
		{"tmux pane without its server", env("TMUX_PANE", "%3"), Where{}},
		{"tmux server without a pane", env("TMUX", "/tmp/tmux-1000/default,4242,0"), Where{}},
		{"a pane id that is not one", env("TMUX", "/tmp/t/default,1,0", "TMUX_PANE", "%3; rm -rf ~"), Where{}},
		{"a socket path with a space", env("TMUX", "/tmp/my dir/default,1,0", "TMUX_PANE", "%3"), Where{}},
		{"a relative socket", env("TMUX", "tmp/default,1,0", "TMUX_PANE", "%3"), Where{}},
		{"a socket path that climbs", env("TMUX", "/tmp/../etc/default,1,0", "TMUX_PANE", "%3"), Where{}},
		{"wezterm", env("TERM_PROGRAM", "WezTerm", "WEZTERM_PANE", "7"), Where{Program: "WezTerm", WeztermPane: "7"}},
		{"kitty", env("KITTY_WINDOW_ID", "3"), Where{KittyWindow: "3"}},
		{"hostile program and ids", env("TERM_PROGRAM", "x\x1b]0;pwned\a", "WEZTERM_PANE", "-1", "KITTY_WINDOW_ID", "3 --all"), Where{}},
		{"a program too long", env("TERM_PROGRAM", strings.Repeat("a", 33)), Where{}},
		{"wezterm with its socket", env("WEZTERM_PANE", "7", "WEZTERM_UNIX_SOCKET", "/run/user/1000/wezterm/gui-sock-42"),
			Where{WeztermPane: "7", WeztermSocket: "/run/user/1000/wezterm/gui-sock-42"}},
		{"a wezterm socket without a pane", env("WEZTERM_UNIX_SOCKET", "/run/user/1000/wezterm/sock"), Where{}},
		{"kitty listening", env("KITTY_WINDOW_ID", "3", "KITTY_LISTEN_ON", "unix:/tmp/kitty-42"), Where{KittyWindow: "3", KittyListen: "unix:/tmp/kitty-42"}},
		{"kitty on tcp is not followed", env("KITTY_WINDOW_ID", "3", "KITTY_LISTEN_ON", "tcp:localhost:12488"), Where{KittyWindow: "3"}},
		{"kitty on an abstract socket is not followed", env("KITTY_WINDOW_ID", "3", "KITTY_LISTEN_ON", "unix:@kitty"), Where{KittyWindow: "3"}},
		{"screen", env("STY", "4242.pts-1.host", "WINDOW", "2"), Where{ScreenSession: "4242.pts-1.host", ScreenWindow: "2"}},
		{"screen without its window", env("STY", "4242.pts-1.host"), Where{}},
		{"a screen session that is not one", env("STY", "4242.a b", "WINDOW", "2"), Where{}},
		{"a screen name with a ^", env("STY", "4242.a^M", "WINDOW", "2"), Where{}},
		{"zellij", env("ZELLIJ_SESSION_NAME", "pretentious-cat", "ZELLIJ_PANE_ID", "4"), Where{ZellijSession: "pretentious-cat", ZellijPane: "4"}},
		{"a zellij pane that is not a number", env("ZELLIJ_SESSION_NAME", "s", "ZELLIJ_PANE_ID", "plugin_1"), Where{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FromEnv(tt.env); got != tt.want {
				t.Errorf("FromEnv = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	full := Where{TmuxPane: "%12", TmuxSocket: "/tmp/tmux-501/default", Program: "iTerm.app", WeztermPane: "7", KittyWindow: "3",
		WeztermSocket: "/run/user/501/wezterm/sock", KittyListen: "unix:/tmp/kitty-" + strings.Repeat("k", 180),
		ScreenSession: "4242." + strings.Repeat("s", 64), ScreenWindow: "12", ZellijSession: strings.Repeat("z", 64), ZellijPane: "4"}
	if got := Parse(full.Encode()); got != full {
		t.Errorf("Parse(Encode(w)) = %+v, want %+v", got, full)
	}
	for _, s := range []string{
		"",
		"tmux-pane=%253",               // a pane without its socket
		"tmux-socket=%2Ftmp%2Fdefault", // a socket without its pane
		"tmux-pane=%253&tmux-pane=%254&tmux-socket=%2Fa", // twice
		"tmux-pane=%25-1&tmux-socket=%2Fa",
		"tmux-pane=%253%0A&tmux-socket=%2Fa",
		"tmux-pane=3&tmux-socket=%2Fa",
		"tmux-pane=%251234567890&tmux-socket=%2Fa",
		"tmux-pane=%253&tmux-socket=-L",
		"tmux-pane=%253&tmux-socket=%2Fa%2F..%2Fb",
		"term=a%20b",
		"wezterm-pane=7x",
		"kitty-window=",
		"shell=sh",
		"screen-session=42.s",               // a screen session without its window
		"screen-session=42&screen-window=1", // no name
		"zellij-pane=4",                     // a Zellij pane without its session
		"zellij-session=a%3Bb&zellij-pane=4",
		"kitty-listen=unix%3A%2Ftmp%2Fk", // kitty's socket without its window
		"kitty-window=3&kitty-listen=tcp%3Ahost%3A1",
		"wezterm-socket=%2Ftmp%2Fw", // wezterm's socket without its pane
		"term=" + strings.Repeat("a", MaxHeader),
		"%zz",
	} {
		if got := Parse(s); !got.IsZero() {
			t.Errorf("Parse(%q) = %+v, want nothing", s, got)
		}
	}
}

func TestDoor(t *testing.T) {
	tests := []struct {
		w    Where
		want Door
	}{
		{Where{}, Door{}},
		{Where{Program: "vscode"}, Door{}},
		{Where{TmuxPane: "%3", TmuxSocket: "/tmp/tmux-1000/default", WeztermPane: "7"}, Door{DoorTmux, "tmux switch-client -t %3"}},
		{Where{TmuxPane: "%3", TmuxSocket: "/tmp/tmux-1000/work"}, Door{DoorTmux, "tmux -S /tmp/tmux-1000/work switch-client -t %3"}},
		{Where{WeztermPane: "7", KittyWindow: "3"}, Door{DoorCopy, "wezterm cli activate-pane --pane-id 7"}},
		{Where{KittyWindow: "3"}, Door{DoorCopy, "kitten @ focus-window --match id:3"}},
		{Where{ScreenSession: "4242.work", ScreenWindow: "2", KittyWindow: "3"}, Door{DoorCopy, "screen -x 4242.work -p 2"}},
		{Where{ZellijSession: "pretentious-cat", ZellijPane: "4", WeztermPane: "7"}, Door{DoorCopy, "zellij attach pretentious-cat"}},
	}
	for _, tt := range tests {
		if got := tt.w.Door(); got != tt.want {
			t.Errorf("%+v.Door() = %+v, want %+v", tt.w, got, tt.want)
		}
	}
}

// A hostile pane id never reaches tmux: GoTo checks the pane and the
// socket again, whatever Where it is handed, before running anything.
func TestGoToRefusesHostilePanes(t *testing.T) {
	var ran [][]string
	tm := &Tmux{run: func(_ context.Context, bin string, args []string) ([]byte, error) {
		ran = append(ran, append([]string{bin}, args...))
		return nil, errors.New("not run")
	}}
	for _, pane := range []string{
		"%3;kill-server", "%3 ; kill-server", "-t", "%", "%-1", "3", "%3\n", "%1234567890", "$(reboot)", "%3\x00", "\u202e%3",
	} {
		_, err := tm.GoTo(context.Background(), Where{TmuxPane: pane, TmuxSocket: "/tmp/tmux-1000/default"})
		if err == nil {
			t.Errorf("GoTo(pane %q) succeeded", pane)
		}
	}
	for _, sock := range []string{"-L", "relative", "/a/../b", "/a b", "/a;b", "/a\nb", "/" + strings.Repeat("a", MaxSocket)} {
		if _, err := tm.GoTo(context.Background(), Where{TmuxPane: "%3", TmuxSocket: sock}); err == nil {
			t.Errorf("GoTo(socket %q) succeeded", sock)
		}
	}
	if len(ran) > 0 {
		t.Errorf("tmux ran for a hostile pane or socket: %q", ran)
	}
}

// The argv is fixed: the socket after -S, the verb, then -t and the pane,
// each its own argument (no shell ever splits or expands them).
func TestGoToArgv(t *testing.T) {
	dir := t.TempDir()
	sock := listen(t, dir)
	var ran [][]string
	tm := &Tmux{Bin: "tmux", run: func(_ context.Context, bin string, args []string) ([]byte, error) {
		ran = append(ran, append([]string{bin}, args...))
		switch args[2] {
		case "list-panes":
			return []byte("%1 $0\n%7 $1\n"), nil
		case "list-clients":
			return []byte("$0 100 /dev/pts/1\n$2 200 /dev/pts/2\n$0 50 evil; rm\n$9 9 -t\n"), nil
		}
		return nil, nil
	}}
	res, err := tm.GoTo(context.Background(), Where{TmuxPane: "%7", TmuxSocket: sock})
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{Client: "/dev/pts/2", Switched: true}) {
		t.Errorf("result %+v, want /dev/pts/2 switched", res)
	}
	want := [][]string{
		{"tmux", "-S", sock, "list-panes", "-a", "-F", "#{pane_id} #{session_id}"},
		{"tmux", "-S", sock, "list-clients", "-F", "#{session_id} #{client_activity} #{client_name}"},
		{"tmux", "-S", sock, "switch-client", "-c", "/dev/pts/2", "-t", "%7"},
		{"tmux", "-S", sock, "select-window", "-t", "%7"},
		{"tmux", "-S", sock, "select-pane", "-t", "%7"},
	}
	if len(ran) != len(want) {
		t.Fatalf("ran %q, want %q", ran, want)
	}
	for i := range want {
		if strings.Join(ran[i], "\x00") != strings.Join(want[i], "\x00") {
			t.Errorf("command %d: %q, want %q", i, ran[i], want[i])
		}
	}
}

func TestPickClient(t *testing.T) {
	tests := []struct {
		list, session string
		want          Result
	}{
		{"", "$1", Result{}},
		{"$1 10 /dev/pts/1\n$2 99 /dev/pts/2", "$1", Result{Client: "/dev/pts/1"}},
		{"$1 10 /dev/pts/1\n$1 20 /dev/pts/3\n$2 99 /dev/pts/2", "$1", Result{Client: "/dev/pts/3"}},
		{"$0 10 /dev/pts/1\n$2 99 /dev/pts/2", "$1", Result{Client: "/dev/pts/2", Switched: true}},
		{"$0 10 /dev/pts/1 x\n$0 10 -c\n$0 x /dev/pts/1", "$1", Result{}},
	}
	for _, tt := range tests {
		if got := pickClient(tt.list, tt.session); got != tt.want {
			t.Errorf("pickClient(%q, %s) = %+v, want %+v", tt.list, tt.session, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("tmux-pane=%253&tmux-socket=%2Ftmp%2Ftmux-1000%2Fdefault") // tmux
	f.Add("term=WezTerm&wezterm-pane=7")                             // WezTerm
	f.Add("kitty-window=3")                                          // kitty
	f.Add("tmux-pane=%253%3Bkill-server&tmux-socket=%2Fa")           // a pane id with a command in it
	f.Add("term=%1B%5D0%3Bx%07")                                     // an escape sequence
	f.Fuzz(func(t *testing.T, s string) {
		w := Parse(s)
		if w.IsZero() {
			return
		}
		if (w.TmuxPane != "" && !ValidPane(w.TmuxPane)) || (w.TmuxSocket != "" && !ValidSocket(w.TmuxSocket)) ||
			(w.Program != "" && !ValidProgram(w.Program)) || (w.WeztermPane != "" && !ValidID(w.WeztermPane)) ||
			(w.KittyWindow != "" && !ValidID(w.KittyWindow)) {
			t.Fatalf("Parse(%q) kept an invalid value: %+v", s, w)
		}
		if got := Parse(w.Encode()); got != w {
			t.Fatalf("round trip: %+v became %+v", w, got)
		}
		for _, c := range w.Door().Command {
			if c < 0x20 || c > 0x7e || strings.ContainsRune(";&|$`'\"\\<>(){}*?!~#", c) {
				t.Fatalf("door command %q holds %q", w.Door().Command, c)
			}
		}
	})
}

func FuzzFromEnv(f *testing.F) {
	f.Add("/tmp/tmux-1000/default,1,0", "%3", "WezTerm", "7", "3")
	f.Add("/tmp/a b,1,0", "%3;x", "\x1b", "-1", "1 2")
	f.Fuzz(func(t *testing.T, tmux, pane, program, wez, kitty string) {
		env := map[string]string{"TMUX": tmux, "TMUX_PANE": pane, "TERM_PROGRAM": program, "WEZTERM_PANE": wez, "KITTY_WINDOW_ID": kitty}
		w := FromEnv(func(k string) string { return env[k] })
		if got := Parse(w.Encode()); got != w {
			t.Fatalf("FromEnv's %+v does not survive the header: %+v", w, got)
		}
	})
}
