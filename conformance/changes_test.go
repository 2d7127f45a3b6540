//go:build conformance

package conformance

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// TestClaudeEditDiffAndChanges (issue 51): claude -p in a git work tree
// reads a file and asks to Edit it; the board's card shows the diff the
// agent asked for, over the file's own lines; allowed from the board, the
// edit is written, and once the session is done its Changes list the file
// it wrote — not the file the user had changed before it started.
func TestClaudeEditDiffAndChanges(t *testing.T) {
	r := claudeRun(t)
	r.noRecord = true
	r.final = "settled 1 " + state.StatusDone
	r.writeFile(filepath.Join(r.work, standin.EditFile), "line one\n"+standin.EditOld+"line three\n")
	r.writeFile(filepath.Join(r.work, "mine.txt"), "mine\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "one"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = r.work
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r.writeFile(filepath.Join(r.work, "mine.txt"), "mine, changed by the user before the session\n")

	type result struct {
		out  string
		code int
	}
	done := make(chan result, 1)
	go func() {
		out, code := r.exec(3*time.Minute, claudeEnv(), "claude", "-p", "scenario:edit Edit the file.")
		done <- result{out, code}
	}()
	card := r.waitingCard("the Edit card of claude -p", map[string]bool{})
	page := r.boardPage()
	for _, want := range []string{
		`data-path="` + standin.EditFile + `"`,
		`<div class="d" data-o="2"><b>−</b><code>line two</code></div>`,
		`<div class="a" data-n="2"><b>+</b><code>line two, edited by the agent</code></div>`,
		`<div class="a" data-n="3"><b>+</b><code>and a line added</code></div>`,
		`<div data-o="3" data-n="4"><b></b><code>line three</code></div>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the Edit card lacks %s", want)
		}
	}
	r.wantAnswer("Allow once", card, "allow", "", http.StatusNoContent)
	res := <-done
	if res.code != 0 || !strings.Contains(res.out, standin.FinalText) {
		t.Errorf("claude -p exited %d:\n%s", res.code, res.out)
	}
	r.waitBoard("after claude -p exited", 10*time.Second, settled(1, state.StatusDone))

	req, _ := http.NewRequest("GET", r.host+"/agents-notch/changes?session="+url.QueryEscape(card.Session), nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var v struct {
		OK    bool `json:"ok"`
		Files []struct {
			Path           string `json:"path"`
			Added, Removed int
		} `json:"files"`
		Untracked []string `json:"untracked"`
	}
	if err := json.Unmarshal(body, &v); err != nil || !v.OK {
		t.Fatalf("Changes: %d %s", resp.StatusCode, body)
	}
	var paths []string
	for _, f := range v.Files {
		paths = append(paths, f.Path)
	}
	if len(v.Files) != 1 || v.Files[0].Path != standin.EditFile || v.Files[0].Added != 2 || v.Files[0].Removed != 1 {
		t.Errorf("Changes list %q (%s), want only %s +2 −1", paths, body, standin.EditFile)
	}
	r.logEvents()
}
