package terminal

import (
	"path"
	"regexp"
	"strings"
	"testing"
)

// The regexps the checks were before they were sets (internal/ascii): the
// checks are held to them, on the table and on any input.
var (
	paneRE    = regexp.MustCompile(`^%[0-9]{1,9}$`)
	digitsRE  = regexp.MustCompile(`^[0-9]{1,9}$`)
	programRE = regexp.MustCompile(`^[A-Za-z0-9._+-]{1,32}$`)
	socketRE  = regexp.MustCompile(`^/[A-Za-z0-9._/@+=:-]{1,199}$`)
	sessionRE = regexp.MustCompile(`^\$[0-9]{1,9}$`)
	clientRE  = regexp.MustCompile(`^\$([0-9]{1,9}) ([0-9]{1,19}) (/[A-Za-z0-9._/-]{1,120})$`)
)

// sameAsRegexps fails t where a check and its regexp differ on x.
func sameAsRegexps(t *testing.T, x string) {
	t.Helper()
	if got, want := ValidPane(x), paneRE.MatchString(x); got != want {
		t.Errorf("ValidPane(%q) = %v, the regexp says %v", x, got, want)
	}
	if got, want := ValidID(x), digitsRE.MatchString(x); got != want {
		t.Errorf("ValidID(%q) = %v, the regexp says %v", x, got, want)
	}
	if got, want := ValidProgram(x), programRE.MatchString(x); got != want {
		t.Errorf("ValidProgram(%q) = %v, the regexp says %v", x, got, want)
	}
	if got, want := ValidSocket(x), len(x) <= MaxSocket && socketRE.MatchString(x) && path.Clean(x) == x; got != want {
		t.Errorf("ValidSocket(%q) = %v, the regexp says %v", x, got, want)
	}
	if got, want := validSession(x), sessionRE.MatchString(x); got != want {
		t.Errorf("validSession(%q) = %v, the regexp says %v", x, got, want)
	}
	s, _, name, ok := parseClient(x)
	m := clientRE.FindStringSubmatch(x)
	if ok != (m != nil) || ok && (s != "$"+m[1] || name != m[3]) {
		t.Errorf("parseClient(%q) = %q %q %v, the regexp says %q", x, s, name, ok, m)
	}
}

func TestTokensAsTheRegexps(t *testing.T) {
	long := strings.Repeat("a", 199)
	for _, x := range []string{
		"", "%", "%1", "%123456789", "%1234567890", "%a", "%%1", "1", "123456789", "1234567890",
		"WezTerm", "iTerm.app", "vscode", "a b", strings.Repeat("x", 32), strings.Repeat("x", 33),
		"/", "/tmp/tmux-1000/default", "/tmp//x", "/tmp/./x", "/tmp/x/", "/" + long, "/" + long + "a", "/é",
		"$", "$1", "$123456789", "$1234567890", "$1 10 /dev/pts/1", "$1 10 /dev/pts/1 x", "$1 10  /dev/pts/1",
		"$1 1234567890123456789 /dev/pts/1", "$1 12345678901234567890 /dev/pts/1", "$1 10 /" + strings.Repeat("p", 120),
		"$1 10 /" + strings.Repeat("p", 121), "$1 10 -c", "$0 x /dev/pts/1", "$1 10 /dev/pts/1\n", "\x00", "%1\u202e",
	} {
		sameAsRegexps(t, x)
	}
}

func FuzzTokensAsTheRegexps(f *testing.F) {
	for _, x := range []string{"%3", "/tmp/tmux-1000/default", "$1 10 /dev/pts/1", "WezTerm", "7", "$0 x /dev/pts/1"} {
		f.Add(x)
	}
	f.Fuzz(sameAsRegexps)
}
