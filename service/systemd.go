package service

import (
	"strings"
)

// UnitPath is the systemd user unit's path: $XDG_CONFIG_HOME (else
// ~/.config)/systemd/user/notch-web.service.
func UnitPath(home, xdgConfig string) string {
	if xdgConfig == "" {
		xdgConfig = home + "/.config"
	}
	return xdgConfig + "/systemd/user/" + Name + ".service"
}

// Unit is the systemd user unit: started at login (default.target),
// restarted on a crash (Restart=on-failure, not after a clean stop), its
// log the journal (journalctl --user -u notch-web).
func Unit(s Spec) []byte {
	var b strings.Builder
	b.WriteString("# notch-web-sha256: {{sha256}}\n")
	b.WriteString("# Written by `notch-web service install`; `notch-web service uninstall` removes it.\n")
	b.WriteString("# Edited, it is not replaced without --force.\n")
	b.WriteString("[Unit]\n")
	b.WriteString("Description=notch-web: the agents notch's host (the live board, state.json)\n")
	b.WriteString("Documentation=https://github.com/notch-web/notch-web/blob/main/docs/service.md\n\n")
	b.WriteString("[Service]\n")
	b.WriteString("Type=exec\n")
	b.WriteString("ExecStart=" + systemdQuote(s.Exe))
	for _, a := range s.Args {
		b.WriteString(" " + systemdQuote(a))
	}
	b.WriteString("\n")
	b.WriteString("Restart=on-failure\n")
	b.WriteString("RestartSec=2\n\n")
	b.WriteString("[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return sealed(b.String())
}

// systemdQuote quotes one word of ExecStart as systemd reads it
// (systemd.service(5), "Command lines"): in double quotes when it holds a
// space, a quote or a backslash, those escaped; % and $ doubled, so that
// neither a specifier nor a variable is expanded. A control character is
// written as an \xNN escape.
func systemdQuote(w string) string {
	var b strings.Builder
	quote := w == "" || strings.ContainsAny(w, " \t\"'\\;")
	for _, r := range w {
		switch {
		case r == '%':
			b.WriteString("%%")
		case r == '$':
			b.WriteString("$$")
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x` + hex2(byte(r)))
		default:
			b.WriteRune(r)
		}
	}
	if quote {
		return `"` + b.String() + `"`
	}
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
