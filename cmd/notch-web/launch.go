package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/launch"
)

const launchUsage = `usage: notch-web launch [--dsh-home DIR] [VERB ARG]

Shows or edits this machine's launch file (<DSH home>/launch.json, mode
0600): what the board may start here. It is never written from the board.
Launching is off until the file allows a folder and an agent.

  notch-web launch                          show the file
  notch-web launch allow-folder DIR         allow sessions in DIR and under it
  notch-web launch deny-folder DIR          remove DIR from the roots
  notch-web launch allow-agent NAME [ARGV…] allow an agent; ARGV replaces its
                                            program and fixed flags (no shell)
  notch-web launch deny-agent NAME          remove an agent
  notch-web launch worktrees DIR|off        new git worktrees in DIR (inside a
                                            root), or none
  notch-web launch max-sessions N           started sessions running at once
  notch-web launch starts-per-minute N      starts in any minute

Agents: the names of notch-web hooks (claude-code, codex, gemini, …); an
agent's hooks must be installed (notch-web hooks install NAME) for a start.
`

// runLaunch is "notch-web launch [VERB ARG…]".
func runLaunch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fail := func(err error) error {
		fmt.Fprintln(stderr, "notch-web launch:", err)
		return err
	}
	home := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch a := args[0]; {
		case isHelp(a):
			fmt.Fprint(stdout, fit(launchUsage))
			return nil
		case a == "--dsh-home" || a == "-dsh-home":
			if len(args) < 2 {
				return fail(errors.New("--dsh-home wants a DIR"))
			}
			home, args = args[1], args[2:]
		case strings.HasPrefix(a, "--dsh-home="):
			home, args = strings.TrimPrefix(a, "--dsh-home="), args[1:]
		default:
			return fail(fmt.Errorf("unknown flag %s (notch-web launch -h)", a))
		}
	}
	dsh, err := dshHomeOf(home, getenv)
	if err != nil {
		return fail(err)
	}
	path := launch.PathIn(dsh)
	f, err := launch.Read(path)
	if err != nil {
		return fail(err)
	}
	if len(args) == 0 {
		showLaunch(stdout, path, f)
		showOffered(ctx, stdout, dsh)
		return nil
	}
	verb, rest := args[0], args[1:]
	one := func() (string, error) {
		if len(rest) != 1 {
			return "", fmt.Errorf("%s wants one argument (notch-web launch -h)", verb)
		}
		return rest[0], nil
	}
	switch verb {
	case "help":
		fmt.Fprint(stdout, fit(launchUsage))
		return nil
	case "allow-folder", "deny-folder":
		dir, err := one()
		if err != nil {
			return fail(err)
		}
		if dir, err = filepath.Abs(dir); err != nil {
			return fail(err)
		}
		if verb == "allow-folder" {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return fail(fmt.Errorf("%s is not a folder", dir))
			}
			if !slices.Contains(f.Roots, dir) {
				f.Roots = append(f.Roots, dir)
			}
		} else {
			i := slices.Index(f.Roots, dir)
			if i < 0 {
				return fail(fmt.Errorf("%s is not a root of %s", dir, path))
			}
			f.Roots = slices.Delete(f.Roots, i, i+1)
		}
	case "allow-agent":
		if len(rest) == 0 {
			return fail(fmt.Errorf("allow-agent wants an agent: %s", strings.Join(registry.Names(), ", ")))
		}
		if f.Agents == nil {
			f.Agents = map[string]launch.Agent{}
		}
		f.Agents[rest[0]] = launch.Agent{Argv: rest[1:]}
	case "deny-agent":
		name, err := one()
		if err != nil {
			return fail(err)
		}
		if _, ok := f.Agents[name]; !ok {
			return fail(fmt.Errorf("%s is not allowed in %s", name, path))
		}
		delete(f.Agents, name)
	case "worktrees":
		dir, err := one()
		if err != nil {
			return fail(err)
		}
		if dir == "off" {
			f.Worktrees = ""
		} else if f.Worktrees, err = filepath.Abs(dir); err != nil {
			return fail(err)
		}
	case "max-sessions", "starts-per-minute":
		s, err := one()
		if err != nil {
			return fail(err)
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fail(fmt.Errorf("%s wants a whole number of 1 or more, not %q", verb, s))
		}
		if verb == "max-sessions" {
			f.MaxSessions = n
		} else {
			f.StartsPerMinute = n
		}
	default:
		return fail(fmt.Errorf("no verb %q (notch-web launch -h)", verb))
	}
	if err := launch.Write(path, f); err != nil {
		return fail(err)
	}
	showLaunch(stdout, path, f)
	return nil
}

// showLaunch prints the launch file as a person reads it.
func showLaunch(w io.Writer, path string, f launch.File) {
	fmt.Fprintf(w, "%s\n", path)
	if !f.On() {
		fmt.Fprintln(w, "launching: off (it needs a folder and an agent: notch-web launch allow-folder DIR, allow-agent NAME)")
	} else {
		fmt.Fprintln(w, "launching: on")
	}
	fmt.Fprintln(w, "folders:")
	if len(f.Roots) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, r := range f.Roots {
		fmt.Fprintf(w, "  %s\n", r)
	}
	fmt.Fprintln(w, "agents:")
	if len(f.Agents) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, name := range f.AgentNames() {
		spec, _ := registry.Get(name)
		argv, _ := launch.Argv(spec, f.Agents[name], "", "")
		resume := ""
		if launch.Resumes(name) {
			resume = " (resumes by id)"
		}
		fmt.Fprintf(w, "  %s: %s%s\n", name, strings.Join(argv, " "), resume)
	}
	wt := "off"
	if f.Worktrees != "" {
		wt = f.Worktrees
	}
	fmt.Fprintf(w, "worktrees: %s\n", wt)
	fmt.Fprintf(w, "max sessions at once: %d\nstarts per minute: %d\n", f.Sessions(), f.Rate())
}

// showOffered prints the folders the running host has seen sessions in
// that no root allows — offered, never allowed by being seen. Only a host
// of this DSH home (its host.json) is asked, for two seconds at most.
func showOffered(ctx context.Context, w io.Writer, dsh string) {
	hf, err := readHostFile(dsh)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var o struct{ Offered []string }
	if askHost(ctx, strings.TrimRight(hf.URL, "/"), "/agents-notch/launch/options", nil, &o) != nil || len(o.Offered) == 0 {
		return
	}
	fmt.Fprintln(w, "seen here, not allowed (notch-web launch allow-folder DIR):")
	for _, d := range o.Offered {
		fmt.Fprintf(w, "  %s\n", d)
	}
}
