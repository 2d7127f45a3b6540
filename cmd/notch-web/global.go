package main

import (
	"flag"
	"slices"
	"strings"
)

// globals are the flags every command takes the same way, before or after
// its verb and arguments: where the DSH home is, and where the running
// host answers. The host itself takes --dsh-home (flags.go); its address
// is --addr.
type globals struct {
	dshHome, url string
}

// Their help, the same words on every command.
const (
	globalHomeHelp = "the DSH home `DIR` (default $DSH_HOME, else ~/.dsh)"
	globalURLHelp  = "the running host's base `URL` (default $NOTCH_URL, else the host serving the DSH home, else http://" + DefaultAddr + ")"
)

// globalsHelp is the paragraph help prints under the commands.
const globalsHelp = `
Every command takes --dsh-home DIR (default $DSH_HOME, else ~/.dsh), and
every command that asks the running host takes --url URL, before or after
its verb, with the same meaning: the host is --url, else $NOTCH_URL, else
the host serving the DSH home (its host.json), else http://` + DefaultAddr + `.
`

// addGlobals declares the global flags on a command's flag set.
func addGlobals(fs *flag.FlagSet) *globals {
	g := &globals{}
	fs.StringVar(&g.dshHome, "dsh-home", "", globalHomeHelp)
	fs.StringVar(&g.url, "url", "", globalURLHelp)
	return g
}

// hostURL is where the command finds the running host: --url, else
// $NOTCH_URL, else the address the host serving the DSH home wrote in its
// host.json, else the default address (askURL).
func (g *globals) hostURL(getenv func(string) string) string {
	return strings.TrimRight(askURL(g.url, g.dshHome, getenv), "/")
}

// home is the DSH home: --dsh-home, else $DSH_HOME, else ~/.dsh.
func (g *globals) home(getenv func(string) string) (string, error) {
	return dshHomeOf(g.dshHome, getenv)
}

// verbFirst are the commands whose verb must come first (hooks install,
// notify test, history export, service status): the global flags go
// after it.
var verbFirst = map[string]bool{"hooks": true, "notify": true, "history": true, "service": true}

// hoistGlobals lets the global flags come before the command
// ("notch-web --dsh-home D devices list"): when args are only global
// flags and then a command, they move behind the command (and its verb,
// for the commands whose verb comes first), where every command reads
// them. Anything else is returned as it is (the host's flags, or a
// command already first).
func hoistGlobals(args []string) []string {
	i := 0
	for i < len(args) {
		_, hasValue, ok := globalFlag(args[i])
		if !ok {
			break
		}
		if hasValue {
			i++
		} else {
			i += 2
		}
	}
	if i == 0 || i >= len(args) || args[i] == "run" || args[i] == "help" || args[i] == "version" || !slices.Contains(commandNames(), args[i]) {
		return args
	}
	cmd, rest := args[i], args[i+1:]
	at := 0
	if verbFirst[cmd] && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		at = 1
	}
	out := []string{cmd}
	out = append(out, rest[:at]...)
	out = append(out, args[:i]...)
	return append(out, rest[at:]...)
}

// globalFlag reports whether arg is -dsh-home or -url (one or two dashes),
// and whether it carries its value (=v).
func globalFlag(arg string) (name string, hasValue, ok bool) {
	if !strings.HasPrefix(arg, "-") {
		return "", false, false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, hasValue = strings.Cut(name, "=")
	return name, hasValue, name == "dsh-home" || name == "url"
}
