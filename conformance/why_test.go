//go:build conformance

package conformance

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// whyAgents are the agents whose headless run tells why its turn stopped
// (docs/agents.md, "Why it stopped"): how each is set up and started on
// one prompt. Gemini CLI retries a 429 for minutes and writes no error
// record headless, so it is proven on its recorded chat files (adapters/
// gemini), not here; GitHub Copilot CLI's -p keeps no session.error of a
// 429 it retries either, and OpenCode 1.18 retries a 429 (after its
// retry-after) without ending the turn: its row stays working.
//
// resets: the agent passes the reset on. Claude Code 2.1.328 with an API
// key says "Request rejected (429)" and the API's message, no reset (it
// writes "resets 2pm (zone)" only for a claude.ai login's limit, which
// the stand-in cannot serve: proven on its documented words in
// adapters/claudecode's goldens).
var whyAgents = []struct {
	agent  string
	resets bool
	setup  func(t *testing.T) *run
	start  func(r *run, prompt string) (string, int)
}{
	{"claude-code", false, claudeRun, func(r *run, p string) (string, int) {
		return r.exec(2*time.Minute, claudeEnv(), "claude", "-p", p)
	}},
	{"codex", true, codexRun, func(r *run, p string) (string, int) {
		return r.exec(2*time.Minute, codexEnv(), "codex", "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", p)
	}},
}

// TestWhyUsageLimit: a stand-in 429 with a reset → the row says "usage
// limit · resumes HH:MM" (the host's clock: the run's host shares this
// machine's zone), for every agent that can tell it.
func TestWhyUsageLimit(t *testing.T) {
	for _, a := range whyAgents {
		t.Run(a.agent, func(t *testing.T) {
			t.Parallel()
			r := a.setup(t)
			r.scenario = "why_limit429"
			r.final = "settled 1 " + state.StatusError
			out, code := a.start(r, "scenario:limit429 Hit the limit, please.")
			if code == 0 {
				t.Errorf("%s exited 0 on a usage limit:\n%s", a.agent, out)
			}
			r.waitBoard("after the usage limit", 20*time.Second, settled(1, state.StatusError))
			want := "usage limit"
			if a.resets {
				want += " · resumes " + suite.standin.LimitReset.Local().Format("15:04")
			}
			var got string
			r.waitFor(fmt.Sprintf("the row to say %q", want), 20*time.Second, func() bool {
				got = r.whyText()
				return strings.HasPrefix(got, want)
			})
			t.Logf("%s's row says: %s", a.agent, got)
			r.logEvents()
		})
	}
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// whyText is the text of the first row's why on the board page ("" when
// no row says one), its markup stripped.
func (r *run) whyText() string {
	resp, err := http.Get(r.host + "/agents-notch/")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	page := string(body)
	i := strings.Index(page, `<span class="why" `)
	if i < 0 {
		return ""
	}
	// To the span's own end: its spans nest.
	depth, j := 0, i
	for j < len(page) {
		open, end := strings.Index(page[j+1:], "<span"), strings.Index(page[j+1:], "</span>")
		if end < 0 {
			return ""
		}
		if open >= 0 && open < end {
			depth++
			j += 1 + open
			continue
		}
		j += 1 + end
		if depth == 0 {
			break
		}
		depth--
	}
	return strings.Join(strings.Fields(tagRE.ReplaceAllString(page[i:j], "")), " ")
}
