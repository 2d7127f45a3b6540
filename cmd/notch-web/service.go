package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/service"
)

const serviceUsage = `usage: notch-web service install [--force] [--dry-run] [--exe PATH] [flags…]
       notch-web service uninstall [--force]
       notch-web service status [--dsh-home DIR]

Runs notch-web at login, and again after a crash, with the platform's own
user service: a systemd user unit on Linux (~/.config/systemd/user/
notch-web.service, its log the journal), a launchd LaunchAgent on macOS
(~/Library/LaunchAgents/io.notch-web.host.plist, its log
$DSH_HOME/state/agents-notch/notch-web.log), a scheduled task at logon on
Windows (Task Scheduler's "notch-web").

  install    write the service and start it; flags… are the host's (notch-web
             -h lists them: --hub, --allow-host, --window, …), checked now,
             and the service runs with them and this DSH home
  uninstall  stop the service and remove its file
  status     whether it runs, since when, its URL, the last error

The service names this binary by its absolute path (--exe names another).
A file someone edited since notch-web wrote it is not replaced or removed
without --force (a backup is kept). --dry-run prints the file and the
commands, and changes nothing.
`

// serviceCmd is the service command with what it touches: the platform,
// the service manager's commands, the clock. Tests give their own.
type serviceCmd struct {
	goos string
	exec func(ctx context.Context, name string, args ...string) (string, error)
	now  func() time.Time
	exe  func(flagExe string) (string, error)
}

// runService is "notch-web service install|uninstall|status".
func runService(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c := serviceCmd{goos: runtime.GOOS, exec: runCommand, now: time.Now, exe: executable}
	return c.main(ctx, args, getenv, stdout, stderr)
}

// runCommand runs a service manager's command: its combined output, and
// an error that carries the output's first line.
func runCommand(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if line != "" {
			err = fmt.Errorf("%w: %s", err, line)
		}
	}
	return string(out), err
}

func (c serviceCmd) main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fail := func(err error) error {
		fmt.Fprintln(stderr, "notch-web service:", textrule.Escape(err.Error(), ""))
		return err
	}
	if len(args) == 0 {
		return fail(errors.New("want install, uninstall or status (notch-web service -h)"))
	}
	verb := args[0]
	if isHelp(verb) || verb == "help" {
		fmt.Fprint(stdout, fit(serviceUsage))
		return nil
	}
	// The service's own flags; everything else is the host's.
	var force, dry bool
	var exeFlag, homeFlag string
	var host []string
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			host = append(host, a)
			continue
		}
		switch name {
		case "force":
			force = true
		case "dry-run":
			dry = true
		case "exe":
			if !hasVal {
				if i+1 >= len(rest) {
					return fail(errors.New("--exe wants a PATH"))
				}
				i++
				val = rest[i]
			}
			exeFlag = val
		case "h", "help":
			fmt.Fprint(stdout, fit(serviceUsage))
			return nil
		default:
			if name == "dsh-home" {
				homeFlag = val
				if !hasVal && i+1 < len(rest) {
					homeFlag = rest[i+1]
				}
			}
			host = append(host, a)
		}
	}
	switch verb {
	case "install":
		return c.install(ctx, host, exeFlag, force, dry, getenv, stdout, fail)
	case "uninstall":
		if len(host) > 0 && homeFlag == "" {
			return fail(fmt.Errorf("unexpected %q: uninstall takes --force only", host[0]))
		}
		return c.uninstall(ctx, force, dry, getenv, stdout, fail)
	case "status":
		return c.status(ctx, homeFlag, getenv, stdout, fail)
	}
	return fail(fmt.Errorf("no verb %q: want install, uninstall or status (notch-web service -h)", verb))
}

// platform is where the service lives on this system and what manages it.
type platform struct {
	path    string
	content func(service.Spec) []byte
	start   [][]string // after the file is written
	stop    [][]string // before it is removed
	after   [][]string // after it is removed
}

func (c serviceCmd) platform(getenv func(string) string) (platform, error) {
	home := getenv("HOME")
	switch c.goos {
	case "linux":
		if home == "" {
			return platform{}, errors.New("no HOME: the unit goes in ~/.config/systemd/user")
		}
		unit := service.Name + ".service"
		return platform{
			path:    service.UnitPath(home, getenv("XDG_CONFIG_HOME")),
			content: service.Unit,
			start:   [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", unit}, {"systemctl", "--user", "restart", unit}},
			stop:    [][]string{{"systemctl", "--user", "disable", "--now", unit}},
			after:   [][]string{{"systemctl", "--user", "daemon-reload"}},
		}, nil
	case "darwin":
		if home == "" {
			return platform{}, errors.New("no HOME: the LaunchAgent goes in ~/Library/LaunchAgents")
		}
		domain := "gui/" + strconv.Itoa(os.Getuid())
		path := service.PlistPath(home)
		return platform{
			path:    path,
			content: service.Plist,
			start:   [][]string{{"launchctl", "bootout", domain + "/" + service.Label}, {"launchctl", "bootstrap", domain, path}},
			stop:    [][]string{{"launchctl", "bootout", domain + "/" + service.Label}},
		}, nil
	case "windows":
		local := getenv("LOCALAPPDATA")
		if local == "" {
			return platform{}, errors.New("no LOCALAPPDATA: the task's file goes in %LOCALAPPDATA%\\notch-web")
		}
		name := getenv("USERNAME")
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
		path := service.TaskPath(local)
		return platform{
			path:    path,
			content: func(s service.Spec) []byte { return service.UTF16(service.Task(s, name)) },
			start:   [][]string{{"schtasks", "/Create", "/TN", service.Name, "/XML", path, "/F"}, {"schtasks", "/Run", "/TN", service.Name}},
			stop:    [][]string{{"schtasks", "/End", "/TN", service.Name}, {"schtasks", "/Delete", "/TN", service.Name, "/F"}},
		}, nil
	}
	return platform{}, fmt.Errorf("no user service on %s: start notch-web at login yourself", c.goos)
}

func (c serviceCmd) install(ctx context.Context, hostArgs []string, exeFlag string, force, dry bool, getenv func(string) string, stdout io.Writer, fail func(error) error) error {
	cfg, err := parseFlags(hostArgs, getenv)
	if err != nil {
		return fail(fmt.Errorf("the host's flags: %w", err))
	}
	if cfg.follow != "" {
		return fail(errors.New("--follow is a viewer's mode, not a service's"))
	}
	exe, err := c.exe(exeFlag)
	if err != nil {
		return fail(err)
	}
	home, err := filepath.Abs(cfg.dshHome)
	if err != nil {
		return fail(err)
	}
	args := append([]string{}, hostArgs...)
	if !hasFlag(hostArgs, "dsh-home") {
		// The service's environment is not this shell's: it gets the
		// DSH home this command found.
		args = append(args, "--dsh-home", home)
	}
	spec := service.Spec{Exe: exe, Args: args, DSHHome: home}
	p, err := c.platform(getenv)
	if err != nil {
		return fail(err)
	}
	content := p.content(spec)
	if dry {
		fmt.Fprintf(stdout, "would write %s:\n", textrule.Show(p.path))
		for l := range strings.Lines(string(bytesForShow(content))) {
			fmt.Fprint(stdout, "  ", textrule.Escape(l, "\n\t"))
		}
		for _, cmd := range p.start {
			fmt.Fprintln(stdout, "would run:", textrule.Escape(strings.Join(cmd, " "), ""))
		}
		return nil
	}
	if c.goos == "darwin" {
		if err := os.MkdirAll(filepath.Dir(service.LogPath(home)), 0o700); err != nil {
			return fail(err)
		}
	}
	res, err := service.Write(p.path, content, force, c.now())
	if err != nil {
		return fail(err)
	}
	if res.Backup != "" {
		fmt.Fprintf(stdout, "kept the edited file as %s\n", textrule.Show(res.Backup))
	}
	if res.Changed {
		fmt.Fprintf(stdout, "wrote %s\n", textrule.Show(p.path))
	} else {
		fmt.Fprintf(stdout, "%s already says this\n", textrule.Show(p.path))
	}
	for i, cmd := range p.start {
		if _, err := c.exec(ctx, cmd[0], cmd[1:]...); err != nil {
			if c.goos == "darwin" && i == 0 {
				continue // bootout of a service that was not loaded
			}
			return fail(fmt.Errorf("the service's file is written, but %s failed (%v): run it yourself", strings.Join(cmd, " "), err))
		}
	}
	fmt.Fprintf(stdout, "notch-web runs at login and after a crash: %s %s\n", exe, strings.Join(args, " "))
	fmt.Fprintln(stdout, "notch-web service status says whether it runs")
	return nil
}

// bytesForShow is a task's UTF-16 as text, for --dry-run.
func bytesForShow(b []byte) []byte {
	if bytes.HasPrefix(b, []byte{0xff, 0xfe}) {
		u := make([]rune, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, rune(uint16(b[i])|uint16(b[i+1])<<8))
		}
		return []byte(string(u))
	}
	return b
}

// hasFlag reports whether args set the flag name (-name, --name, =value).
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && n == name {
			return true
		}
	}
	return false
}

func (c serviceCmd) uninstall(ctx context.Context, force, dry bool, getenv func(string) string, stdout io.Writer, fail func(error) error) error {
	p, err := c.platform(getenv)
	if err != nil {
		return fail(err)
	}
	if _, err := os.Stat(p.path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "no service to remove: %s does not exist\n", textrule.Show(p.path))
		return nil
	}
	if b, err := os.ReadFile(p.path); err == nil && !service.Intact(b) && !force {
		return fail(fmt.Errorf("%s %w", p.path, service.ErrEdited))
	}
	if dry {
		for _, cmd := range p.stop {
			fmt.Fprintln(stdout, "would run:", textrule.Escape(strings.Join(cmd, " "), ""))
		}
		fmt.Fprintf(stdout, "would remove %s\n", textrule.Show(p.path))
		return nil
	}
	for _, cmd := range p.stop {
		// A service that is not loaded is stopped already.
		_, _ = c.exec(ctx, cmd[0], cmd[1:]...)
	}
	res, err := service.Remove(p.path, force, c.now())
	if err != nil {
		return fail(err)
	}
	if res.Backup != "" {
		fmt.Fprintf(stdout, "kept the edited file as %s\n", textrule.Show(res.Backup))
	}
	for _, cmd := range p.after {
		_, _ = c.exec(ctx, cmd[0], cmd[1:]...)
	}
	fmt.Fprintf(stdout, "removed %s: notch-web no longer starts at login\n", textrule.Show(p.path))
	return nil
}

// serviceState is what status says.
type serviceState struct {
	File      string // the service's file, "" when there is none
	Edited    bool
	Running   string // "yes", "no", or what the manager said
	Since     string
	Restarts  string
	URL       string
	LastError string
}

func (c serviceCmd) status(ctx context.Context, homeFlag string, getenv func(string) string, stdout io.Writer, fail func(error) error) error {
	st, err := c.state(ctx, homeFlag, getenv)
	if err != nil {
		return fail(err)
	}
	printServiceState(stdout, st)
	return nil
}

// state finds out whether the service is installed and runs.
func (c serviceCmd) state(ctx context.Context, homeFlag string, getenv func(string) string) (serviceState, error) {
	var st serviceState
	p, err := c.platform(getenv)
	if err != nil {
		return st, err
	}
	b, err := os.ReadFile(p.path)
	if err != nil {
		return st, nil // not installed
	}
	st.File, st.Edited = p.path, !service.Intact(b)
	home, _ := dshHomeOf(homeFlag, getenv)
	switch c.goos {
	case "linux":
		out, err := c.exec(ctx, "systemctl", "--user", "show", service.Name+".service",
			"--property=ActiveState,SubState,ActiveEnterTimestamp,NRestarts,Result")
		if err != nil {
			st.Running = "unknown (" + firstLine(err.Error()) + ")"
			break
		}
		kv := map[string]string{}
		for l := range strings.Lines(out) {
			k, v, _ := strings.Cut(strings.TrimSpace(l), "=")
			kv[k] = v
		}
		st.Running = kv["ActiveState"] + " (" + kv["SubState"] + ")"
		if kv["ActiveState"] == "active" {
			st.Since = kv["ActiveEnterTimestamp"]
		}
		st.Restarts = kv["NRestarts"]
		if log, err := c.exec(ctx, "journalctl", "--user", "-u", service.Name+".service", "-n", "500", "-o", "cat", "--no-pager"); err == nil {
			st.LastError = lastError(log)
		}
	case "darwin":
		out, err := c.exec(ctx, "launchctl", "print", "gui/"+strconv.Itoa(os.Getuid())+"/"+service.Label)
		if err != nil {
			st.Running = "no (not loaded)"
			break
		}
		st.Running = "no"
		for l := range strings.Lines(out) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "state = "); ok {
				st.Running = v
			}
		}
		if home != "" {
			if b, err := os.ReadFile(service.LogPath(home)); err == nil {
				st.LastError = lastError(string(b[max(0, len(b)-256<<10):]))
			}
		}
	case "windows":
		out, err := c.exec(ctx, "schtasks", "/Query", "/TN", service.Name, "/FO", "LIST", "/V")
		if err != nil {
			st.Running = "unknown (" + firstLine(err.Error()) + ")"
			break
		}
		for l := range strings.Lines(out) {
			k, v, _ := strings.Cut(l, ":")
			switch strings.TrimSpace(k) {
			case "Status":
				st.Running = strings.TrimSpace(v)
			case "Last Result":
				if r := strings.TrimSpace(v); r != "0" && r != "267009" {
					st.LastError = "the task's last result: " + r
				}
			}
		}
	}
	if home != "" {
		if f, err := readHostFile(home); err == nil {
			st.URL = f.URL + "/agents-notch/"
			if st.Since == "" {
				st.Since = f.Started
			}
		}
	}
	return st, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// lastError is the last ERROR record's message (and its error) in a log
// of the host's JSON lines; "" when there is none.
func lastError(log string) string {
	last := ""
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"ERROR"`)) {
			continue
		}
		var r struct {
			Time    string `json:"timestamp"`
			Level   string `json:"level"`
			Message string `json:"message"`
			Error   struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &r) != nil || r.Level != "ERROR" {
			continue
		}
		last = r.Time + " " + r.Message
		if r.Error.Message != "" {
			last += ": " + r.Error.Message
		}
	}
	return textrule.Escape(last, "")
}

func printServiceState(w io.Writer, st serviceState) {
	if st.File == "" {
		fmt.Fprintln(w, "not installed: notch-web service install runs it at login")
		return
	}
	how := "as notch-web wrote it"
	if st.Edited {
		how = "edited since notch-web wrote it"
	}
	fmt.Fprintf(w, "service:    %s (%s)\n", textrule.Show(st.File), how)
	fmt.Fprintf(w, "running:    %s\n", textrule.Escape(or(st.Running, "unknown"), ""))
	if st.Since != "" {
		fmt.Fprintf(w, "since:      %s\n", textrule.Escape(st.Since, ""))
	}
	if st.Restarts != "" && st.Restarts != "0" {
		fmt.Fprintf(w, "restarts:   %s\n", textrule.Escape(st.Restarts, ""))
	}
	fmt.Fprintf(w, "URL:        %s\n", textrule.Escape(or(st.URL, "none (no host.json: the host does not serve)"), ""))
	fmt.Fprintf(w, "last error: %s\n", or(st.LastError, "none in its log"))
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}
