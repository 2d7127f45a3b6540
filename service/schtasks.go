package service

import (
	"strings"
	"unicode/utf16"
)

// TaskPath is where the task's definition is kept (schtasks reads it from
// there; Task Scheduler keeps its own copy): %LOCALAPPDATA%\notch-web\.
func TaskPath(localAppData string) string {
	return localAppData + `\notch-web\notch-web-task.xml`
}

// Task is the Windows scheduled task, in Task Scheduler's XML: started at
// this user's logon, as this user, without a window; started again when
// it fails (RestartOnFailure: every minute, up to 999 times); never
// stopped for running long (ExecutionTimeLimit PT0S). A scheduled task,
// not the Startup folder: a Startup entry is started once, at logon,
// with a console window, and never again after a crash.
func Task(s Spec, user string) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n")
	b.WriteString("<!-- notch-web-sha256: {{sha256}} -->\n")
	b.WriteString("<!-- Written by notch-web service install; notch-web service uninstall removes it. -->\n")
	b.WriteString("<Task version=\"1.2\" xmlns=\"http://schemas.microsoft.com/windows/2004/02/mit/task\">\n")
	b.WriteString("  <RegistrationInfo>\n    <Description>notch-web: the agents notch's host</Description>\n  </RegistrationInfo>\n")
	b.WriteString("  <Triggers>\n    <LogonTrigger>\n      <Enabled>true</Enabled>\n      <UserId>" + xmlText(user) + "</UserId>\n    </LogonTrigger>\n  </Triggers>\n")
	b.WriteString("  <Principals>\n    <Principal id=\"Author\">\n      <UserId>" + xmlText(user) + "</UserId>\n      <LogonType>InteractiveToken</LogonType>\n      <RunLevel>LeastPrivilege</RunLevel>\n    </Principal>\n  </Principals>\n")
	b.WriteString("  <Settings>\n")
	b.WriteString("    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>\n")
	b.WriteString("    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>\n")
	b.WriteString("    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>\n")
	b.WriteString("    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>\n")
	b.WriteString("    <RestartOnFailure>\n      <Interval>PT1M</Interval>\n      <Count>999</Count>\n    </RestartOnFailure>\n")
	b.WriteString("    <Hidden>false</Hidden>\n")
	b.WriteString("  </Settings>\n")
	b.WriteString("  <Actions Context=\"Author\">\n    <Exec>\n")
	b.WriteString("      <Command>" + xmlText(s.Exe) + "</Command>\n")
	b.WriteString("      <Arguments>" + xmlText(windowsArgs(s.Args)) + "</Arguments>\n")
	b.WriteString("    </Exec>\n  </Actions>\n</Task>\n")
	return sealed(b.String())
}

// windowsArgs joins args as a Windows program's command line reads them
// back (the CommandLineToArgvW rules, as Go's syscall.EscapeArg on
// Windows).
func windowsArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = escapeArg(a)
	}
	return strings.Join(q, " ")
}

// escapeArg quotes one argument: in double quotes when it is empty or
// holds a space, a tab or a quote; a quote escaped, and the backslashes
// before a quote (or the closing one) doubled.
func escapeArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

// UTF16 is b as Task Scheduler's XML is stored: UTF-16LE with its byte
// order mark (schtasks /XML reads it so).
func UTF16(b []byte) []byte {
	u := utf16.Encode([]rune(string(b)))
	out := make([]byte, 2+2*len(u))
	out[0], out[1] = 0xff, 0xfe
	for i, c := range u {
		out[2+2*i], out[3+2*i] = byte(c), byte(c>>8)
	}
	return out
}

// fromUTF16 decodes UTF-16LE (an odd last byte is dropped).
func fromUTF16(b []byte) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return []byte(string(utf16.Decode(u)))
}
