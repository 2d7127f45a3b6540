//go:build conformance

package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/host/mesh"
	"github.com/notch-web/notch-web/state"
)

// A session started on a joined machine from the hub's board (docs/launch.md,
// "Many machines"): a hub (its embedded NATS server, TLS, nkeys) and the
// run's notch-web joined to it as machine "box", two processes with their
// own DSH homes and ports. The hub's POST /agents-notch/launch names box;
// the request travels over NATS and box decides by its own launch file: a
// folder outside its roots and an agent it does not allow are refused
// there (403, box's reason); an allowed one starts the real Claude Code in
// box's tmux against the stand-in, and its row appears on the hub as
// box/<session>, works and finishes; Reply and Stop from the hub act on it.

// hubBinary is notch-web built with the hub linked in (-tags notch_hub),
// built once, beside the suite's plain one, when a test first needs it.
var hubBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(suite.notchWeb), "notch-web-hub")
	build := exec.Command("go", "build", "-tags", "notch_hub", "-o", bin, "./cmd/notch-web")
	build.Dir = suite.repo
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building notch-web -tags notch_hub: %v\n%s", err, out)
	}
	return bin, nil
})

// startHub runs a hub of its own for r (its DSH home under r.root, ports
// chosen by the system) and returns its base URL, its DSH home and the
// address machines dial.
func (r *run) startHub(bin string) (base, home, addr string) {
	t := r.t
	home = filepath.Join(r.root, "hub")
	logPath := filepath.Join(r.root, "hub.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--dsh-home", home, "--log-level", "info",
		"--hub", "--hub-addr", "127.0.0.1:0", "--machine", "hub")
	cmd.Env = r.env()
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the hub: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("the hub's log:\n%s", b)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasSuffix(strings.TrimSpace(line), "/agents-notch/") {
		b, _ := os.ReadFile(logPath)
		t.Fatalf("the hub printed no URL: %q %v\n%s", line, err, b)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	var info mesh.HubInfo
	b, err := os.ReadFile(filepath.Join(mesh.Dir(home), "hub.json"))
	if err != nil || json.Unmarshal(b, &info) != nil {
		t.Fatalf("the hub's hub.json: %v", err)
	}
	return strings.TrimSuffix(strings.TrimSpace(line), "/agents-notch/"), home, "127.0.0.1:" + strconv.Itoa(info.Port)
}

// launchRecords are the agents-notch.launch.v1 records of the log at path.
func launchRecords(path string) []map[string]any {
	b, _ := os.ReadFile(path)
	var out []map[string]any
	for _, line := range strings.Split(string(b), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["log_type"] == "agents-notch.launch.v1" {
			out = append(out, rec)
		}
	}
	return out
}

func TestLaunchJoined(t *testing.T) {
	bin, err := hubBinary()
	if err != nil {
		t.Fatal(err)
	}
	r := claudeRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "launch-joined"
	r.noRecord = true
	hub, hubHome, addr := r.startHub(bin)

	// The run's notch-web joins as box: a pairing code from the hub,
	// notch-web join on box, and box restarted with --join.
	code, err := exec.Command(bin, "pair", "--dsh-home", hubHome, "--address", addr).Output()
	if err != nil {
		t.Fatalf("pair: %v", err)
	}
	dsh := filepath.Join(r.root, "dsh")
	if out, err := r.notch("join", strings.TrimSpace(string(code)), "--dsh-home", dsh, "--machine", "box"); err != nil {
		t.Fatalf("join: %v\n%s", err, out)
	}
	r.stopHost()
	r.hostArgs = []string{"--join"}
	r.restartHost(2)

	// What box allows, written on box.
	for _, args := range [][]string{
		{"allow-folder", r.work},
		{"allow-agent", "claude-code", filepath.Join(suite.bin, "claude")},
	} {
		if out, err := r.notch(append([]string{"launch", "--dsh-home", dsh}, args...)...); err != nil {
			t.Fatalf("notch-web launch %v: %v\n%s", args, err, out)
		}
	}
	socket := r.launchTmux(claudeEnv())

	// The hub's New session sheet asks box what it allows.
	r.waitFor("box's launch options on the hub", 60*time.Second, func() bool {
		res, err := http.Get(hub + "/agents-notch/launch/options?machine=box")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		var o struct {
			Machines []string
			On       bool
			Roots    []string
			Agents   []string
		}
		return res.StatusCode == http.StatusOK && json.NewDecoder(res.Body).Decode(&o) == nil &&
			o.On && len(o.Roots) == 1 && o.Roots[0] == r.work && strings.Join(o.Agents, ",") == "claude-code" &&
			strings.Join(o.Machines, ",") == ",box"
	})
	r.orStop()

	// Refused on box, by box's file; the hub passes box's reason on.
	for _, c := range []struct {
		name, folder, agent, says string
	}{
		{"a folder outside box's roots", r.home, "claude-code", "not inside a root"},
		{"an agent box does not allow", r.work, "gemini", "not allowed"},
	} {
		st, body := r.postTo(hub, "/agents-notch/launch", map[string]string{"machine": "box", "folder": c.folder, "agent": c.agent, "prompt": "scenario:plain Say hello."})
		if st != http.StatusForbidden || !strings.Contains(body, c.says) {
			t.Errorf("%s: the hub answered %d %s; want 403 saying %q", c.name, st, strings.TrimSpace(body), c.says)
		}
	}

	sent := time.Now()
	st, body := r.postTo(hub, "/agents-notch/launch", map[string]string{"machine": "box", "folder": r.work, "agent": "claude-code", "prompt": "scenario:plain Say hello."})
	posted := time.Since(sent)
	var reply struct {
		Pane   string `json:"pane"`
		Folder string `json:"folder"`
	}
	if st != http.StatusOK || json.Unmarshal([]byte(body), &reply) != nil || reply.Pane == "" || reply.Folder != r.work {
		t.Fatalf("POST the hub's /agents-notch/launch for box: %d %s", st, body)
	}
	tm := &term{r: r, socket: socket, target: reply.Pane}
	r.term = tm
	var onBox, onHub time.Duration
	r.waitBoard("the row on box", 90*time.Second, func(d state.Document) error {
		if mains, _ := mainRows(d); len(mains) == 0 {
			return errf("no row yet")
		}
		onBox = time.Since(sent)
		return nil
	})
	var id string
	r.waitBoardAt(hub, "the row on the hub", 30*time.Second, func(d state.Document) error {
		mains, _ := mainRows(d)
		if len(mains) != 1 || !strings.HasPrefix(mains[0].ID, "box/") {
			return errf("no box/ row yet")
		}
		id = mains[0].ID
		onHub = time.Since(sent)
		return nil
	})
	r.orStop()
	tm.waitScreen("the first prompt's answer", 90*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoardAt(hub, "the first turn done, on the hub", 30*time.Second, oneMain(state.StatusDone))
	r.orStop()
	t.Logf("Start through the hub: the POST answered in %v; the row on box %v after it, on the hub %v", posted.Round(time.Millisecond), onBox.Round(time.Millisecond), onHub.Round(time.Millisecond))

	// Reply from the hub: the text reaches the model, the row is done again.
	from, before := len(suite.standin.Requests()), r.count("UserPromptSubmit")
	r.replyWhenReadyAt(hub, "Reply from the hub", id, "scenario:plain Reply from the hub")
	r.waitFor("the reply's UserPromptSubmit", 30*time.Second, func() bool { return r.count("UserPromptSubmit") > before })
	promptWith(t, from, "scenario:plain Reply from the hub", 30*time.Second)
	r.waitBoardAt(hub, "after the reply, on the hub", 60*time.Second, oneMain(state.StatusDone))

	// Stop from the hub while the model holds its answer.
	r.replyWhenReadyAt(hub, "Reply (slow) from the hub", id, r.slow)
	r.waitFor("the model holding the slow turn", 60*time.Second, func() bool { return suite.standin.Held(r.slow) > 0 })
	r.waitBoardAt(hub, "while the model streams, on the hub", 30*time.Second, oneMain(state.StatusWorking))
	stopped := time.Now()
	if st, body := r.postTo(hub, "/agents-notch/stop", map[string]string{"sessionId": id}); st != http.StatusOK {
		t.Errorf("Stop from the hub: %d %s", st, body)
	}
	r.waitBoardAt(hub, "after Stop, on the hub", 20*time.Second, oneMain(state.StatusDone))
	r.waitBoard("after Stop, on box", 20*time.Second, oneMain(state.StatusDone))
	t.Logf("Stop from the hub: the row done %v after the POST", time.Since(stopped).Round(10*time.Millisecond))

	// Both the hub and box logged the two refusals and the start, box's
	// records with the outcome box decided.
	for _, l := range []struct{ who, path string }{{"the hub", filepath.Join(r.root, "hub.log")}, {"box", filepath.Join(r.root, "notch-web.2.log")}} {
		recs := launchRecords(l.path)
		var refused, started int
		for _, rec := range recs {
			data, _ := rec["data"].(map[string]any)
			if data["machine"] != "box" {
				continue
			}
			if rec["level"] == "INFO" && data["agent"] == "claude-code" && data["pane"] == reply.Pane {
				started++
			} else if rec["level"] != "INFO" {
				refused++
			}
			if strings.Contains(fmt.Sprint(rec), "Say hello") {
				t.Errorf("%s's launch record holds the prompt's text: %v", l.who, rec)
			}
		}
		if started != 1 || refused != 2 {
			t.Errorf("%s's launch records: %d starts, %d refusals of box; want 1 and 2: %v", l.who, started, refused, recs)
		}
	}
}
