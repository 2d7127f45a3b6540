package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/timerslack"
	"github.com/notch-web/notch-web/security"
)

const doctorUsage = `usage: notch-web doctor [--dsh-home DIR] [--url URL]

Checks everything notch-web needs, in one report, each problem with the one
command that fixes it: the hooks of every agent in every scope (present,
complete, readable; Codex's trust), a notch-web answering at the hooks'
URL, tmux, the push channels (notify.json), the history file, the service
(notch-web service), the timer slack, and pairing and TLS for phones.
It changes nothing. Exit status 1 when something is wrong.
`

// check is one line of the doctor's report.
type check struct {
	state string // ok, FAIL, warn, or "--" (nothing to check)
	name  string
	what  string
	fix   string // the one command that fixes it ("" when nothing to fix)
}

// doctor is the doctor with what it looks at; tests give their own.
type doctor struct {
	getenv   func(string) string
	lookPath func(string) (string, error)
	svc      serviceCmd
	home     string // the DSH home
	url      string // --url
	dir      string // the project folder whose scopes are checked
}

// runDoctor is "notch-web doctor".
func runDoctor(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("notch-web doctor", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := addGlobals(fs)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) || (len(args) > 0 && args[0] == "help") {
		fmt.Fprint(stdout, fit(doctorUsage))
		return nil
	} else if err != nil || fs.NArg() > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintln(stderr, "notch-web doctor:", err, "(notch-web doctor -h)")
		return err
	}
	dsh, err := g.home(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "notch-web doctor:", err)
		return err
	}
	dir, _ := os.Getwd()
	d := doctor{getenv: getenv, lookPath: exec.LookPath, home: dsh, url: g.url, dir: dir,
		svc: serviceCmd{goos: runtime.GOOS, exec: runCommand, now: time.Now, exe: executable}}
	checks := d.run(ctx)
	bad := printChecks(stdout, checks)
	if bad > 0 {
		return fmt.Errorf("doctor: %d problem(s)", bad)
	}
	return nil
}

// run makes every check, in the report's order.
func (d doctor) run(ctx context.Context) []check {
	var out []check
	hooks, bases := d.hooks()
	out = append(out, hooks...)
	out = append(out, d.host(ctx, bases)...)
	out = append(out, d.tmux(), d.pushes(), d.history(), d.service(ctx), d.slack(), d.phones())
	return out
}

// userHome is the home the agents' settings are under: the one hooks
// install wrote them to (homeDir: USERPROFILE first on Windows).
func (d doctor) userHome() string {
	goos := d.svc.goos
	if goos == "" {
		goos = runtime.GOOS
	}
	return homeDir(d.getenv, goos)
}

// hooks checks every agent's settings in every scope: notch-web's hooks
// there and complete, the file readable, Codex's trust. It returns the
// hosts the hooks point to.
func (d doctor) hooks() ([]check, []string) {
	var out []check
	var all []install.Installed
	for _, a := range install.Agents {
		st, err := install.Status(install.Options{Agent: a, Home: d.userHome(), Dir: d.dir, Getenv: d.getenv})
		if err != nil {
			out = append(out, check{"FAIL", "hooks " + a, err.Error(), "notch-web hooks status " + a})
			continue
		}
		all = append(all, st...)
		for _, s := range st {
			name := "hooks " + a + " (" + s.Scope + ")"
			path := textrule.Show(s.Path)
			fix := "notch-web hooks install " + a
			if s.Scope != install.ScopeUser {
				fix += " --scope " + s.Scope
			}
			switch {
			case s.Problem != "":
				out = append(out, check{"FAIL", name, path + ": " + s.Problem, "fix the file, then " + fix})
			case !s.Exists || len(s.Events) == 0:
				continue // not installed here: nothing to check
			case len(s.Missing) > 0:
				out = append(out, check{"FAIL", name, path + ": notch-web's hooks are gone for " + strings.Join(s.Missing, ", ") + " (another tool rewrote the file?)", fix})
			default:
				out = append(out, check{"ok", name, path + ": " + strconv.Itoa(len(s.Events)) + " events", ""})
			}
			for _, n := range s.Notes {
				if strings.Contains(n, "Codex trust") && !strings.Contains(n, "trusted:") {
					out = append(out, check{"warn", "codex trust", n, "codex (open its TUI once and trust the hooks)"})
				}
			}
		}
	}
	if len(out) == 0 {
		out = append(out, check{"FAIL", "hooks", "no agent has notch-web's hooks: the board gets nothing", "notch-web hooks install claude-code (or " + strings.Join(install.Agents[1:], ", ") + ")"})
	}
	return out, hookBases(all, d.getenv)
}

// host checks that a notch-web answers where the hooks post (else where
// the commands would ask).
func (d doctor) host(ctx context.Context, bases []string) []check {
	if len(bases) == 0 {
		bases = []string{strings.TrimRight(askURL(d.url, d.home, d.getenv), "/")}
	}
	var out []check
	for _, b := range bases {
		v, err := hostAnswer(ctx, b)
		if err != nil {
			out = append(out, check{"FAIL", "host", noHost(b, err) + ": the hooks reach nothing", "notch-web service install (or run notch-web)"})
			continue
		}
		out = append(out, check{"ok", "host", "notch-web " + v + " answers at " + b, ""})
	}
	return out
}

func (d doctor) tmux() check {
	if _, err := d.lookPath("tmux"); err != nil {
		return check{"warn", "tmux", "not found: Go to terminal, Reply and Stop need sessions in tmux", "sudo apt-get install tmux (or brew install tmux)"}
	}
	return check{"ok", "tmux", "found", ""}
}

func (d doctor) pushes() check {
	path := notifyPath(d.home)
	cfg, warn, err := push.LoadConfig(path)
	switch {
	case errors.Is(err, push.ErrNoConfig):
		return check{"--", "pushes", "no " + push.ConfigFile + ": no channel (the pane's Push to this device needs none)", ""}
	case err != nil:
		return check{"FAIL", "pushes", textrule.Show(path) + ": " + err.Error() + ": every channel is off", "fix " + push.ConfigFile + " (docs/pushes.md), then notch-web notify test"}
	case warn != "":
		return check{"warn", "pushes", warn, "notch-web notify test"}
	}
	n := len(cfg.Ntfy) + len(cfg.Webhooks)
	return check{"ok", "pushes", strconv.Itoa(n) + " channel(s) in " + push.ConfigFile + " (their last result: the pane, or notch-web notify test)", ""}
}

func (d doctor) history() check {
	path := historyPath(d.home)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return check{"--", "history", "no history file yet (the host makes it)", ""}
	case err != nil:
		return check{"FAIL", "history", err.Error(), "fix the DSH home's permissions"}
	}
	// Opened as the host opens its own files (fsx.OpenRegular): a FIFO or
	// a device there is said at once, never waited on.
	f, err := fsx.OpenRegular(path)
	if errors.Is(err, fsx.ErrNotRegular) {
		return check{"FAIL", "history", textrule.Show(path) + " is " + fsx.KindOf(fi.Mode()) + ", not a SQLite file", "mv " + path + " " + path + ".broken (the host starts a new one)"}
	}
	if err != nil {
		return check{"FAIL", "history", textrule.Show(path) + ": " + err.Error(), "chmod 600 " + path}
	}
	head := make([]byte, 16)
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || string(head) != "SQLite format 3\x00" {
		return check{"FAIL", "history", textrule.Show(path) + " is not a SQLite file", "mv " + path + " " + path + ".broken (the host starts a new one)"}
	}
	return check{"ok", "history", fmt.Sprintf("%s, %d MB", textrule.Show(path), fi.Size()>>20), ""}
}

func (d doctor) service(ctx context.Context) check {
	st, err := d.svc.state(ctx, d.home, d.getenv)
	switch {
	case err != nil:
		return check{"--", "service", err.Error(), ""}
	case st.File == "":
		return check{"warn", "service", "not installed: notch-web stops with the terminal that started it", "notch-web service install"}
	case st.Edited:
		return check{"warn", "service", textrule.Show(st.File) + " was edited since notch-web wrote it", "notch-web service install --force"}
	case !strings.HasPrefix(st.Running, "active") && st.Running != "running" && st.Running != "Running":
		return check{"FAIL", "service", "installed, not running (" + st.Running + ")" + lastErrorSuffix(st.LastError), "notch-web service status"}
	}
	return check{"ok", "service", "running since " + or(st.Since, "?"), ""}
}

func lastErrorSuffix(e string) string {
	if e == "" {
		return ""
	}
	return "; last error: " + e
}

// slack checks NOTCH_WEB_TIMER_SLACK and the running host's slack.
func (d doctor) slack() check {
	if v := d.getenv(timerslack.Env); v != "" && v != "off" {
		return check{"FAIL", "timer slack", timerslack.Env + "=" + strconv.Quote(v) + ": the host refuses to start", "unset " + timerslack.Env}
	}
	if runtime.GOOS != "linux" {
		return check{"--", "timer slack", "Linux's only", ""}
	}
	f, err := readHostFile(d.home)
	if err != nil {
		return check{"--", "timer slack", "no host running in this DSH home", ""}
	}
	// host.json outlives a host killed outright: its process id may be
	// another program's by now.
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(f.PID) + "/comm")
	if !strings.HasPrefix(string(comm), "notch-web") {
		return check{"--", "timer slack", "no host running in this DSH home (host.json names process " + strconv.Itoa(f.PID) + ", which is not notch-web)", ""}
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(f.PID) + "/timerslack_ns")
	if err != nil {
		return check{"--", "timer slack", "cannot read the host's (process " + strconv.Itoa(f.PID) + ")", ""}
	}
	ns, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if ns < timerslack.Slack.Nanoseconds() {
		return check{"warn", "timer slack", fmt.Sprintf("the host runs at %d µs: it wakes twice as often", ns/1000), "restart notch-web without " + timerslack.Env + "=off"}
	}
	return check{"ok", "timer slack", fmt.Sprintf("%d µs", ns/1000), ""}
}

// phones checks pairing and TLS: what a phone needs.
func (d doctor) phones() check {
	devs, err := security.OpenDevices(devicesPath(d.home), time.Now)
	n := 0
	if err == nil {
		n = len(devs.List())
	}
	f, ferr := readHostFile(d.home)
	switch {
	case ferr != nil:
		return check{"--", "phones", strconv.Itoa(n) + " paired device(s); no host running to say how it is reached", ""}
	case len(f.AllowHosts) == 0:
		return check{"--", "phones", "this host answers this machine only (no --allow-host); " + strconv.Itoa(n) + " paired device(s)", "notch-web service install --allow-host NAME (README: On your phone)"}
	case !f.TLS:
		return check{"ok", "phones", "reached as " + strings.Join(f.AllowHosts, ", ") + " through your https proxy (no --tls-cert); " + strconv.Itoa(n) + " paired device(s)", ""}
	}
	return check{"ok", "phones", "https as " + strings.Join(f.AllowHosts, ", ") + "; " + strconv.Itoa(n) + " paired device(s)", ""}
}

// printChecks writes the report: a summary line, then each check with its
// fix under it; it returns the count of FAILs.
func printChecks(w io.Writer, checks []check) (bad int) {
	warns := 0
	for _, c := range checks {
		switch c.state {
		case "FAIL":
			bad++
		case "warn":
			warns++
		}
	}
	switch {
	case bad == 0 && warns == 0:
		fmt.Fprintln(w, "notch-web doctor: all is well")
	default:
		fmt.Fprintf(w, "notch-web doctor: %d problem(s), %d warning(s)\n", bad, warns)
	}
	fmt.Fprintln(w)
	for _, c := range checks {
		line := fmt.Sprintf("%-4s  %s: %s", c.state, c.name, textrule.Escape(c.what, ""))
		fmt.Fprint(w, fit(line+"\n"))
		if c.fix != "" {
			fmt.Fprint(w, fit("      fix: "+textrule.Escape(c.fix, "")+"\n"))
		}
	}
	return bad
}

// devicesPath is the paired devices' file of a DSH home.
func devicesPath(dshHome string) string {
	return filepath.Join(dshHome, "state", "agents-notch", "devices.json")
}
