//go:build conformance

package conformance

import (
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/state"
)

// A row never outlives its agent: these tests end the real agents the
// ways they end outside a test — kill -9 mid-turn and at a permission
// dialog, the terminal closed (tmux kill-session), kill -9 while idle —
// and restart notch-web while a turn ends, and check that the board
// settles each row truthfully and in time. The agent's process is the one
// `notch-web hook` names (Notch-Proc): Claude Code's native binary (the
// pane's process), Gemini CLI's relaunched child node, and for a Codex TUI
// its shared app-server daemon (the TUI is only its client: the daemon
// owns the turn).

// settleWithin is how soon after its agent's process ended a row must be
// settled (the host's grace for a late SessionEnd is 1 s).
const settleWithin = 5 * time.Second

// lifecycleAgent is one CLI as these tests drive it in tmux.
type lifecycleAgent struct {
	name    string // for the log
	newRun  func(*testing.T) *run
	start   func(*run) *term // the TUI, ready for a prompt
	prompt  string           // the hook that says a prompt was taken
	turnEnd string           // the hook that says a turn ended
	// agent is the process the hooks name: the one whose death is the
	// session's (Codex: the app-server daemon).
	agent func(*run, *term) int
}

var lifecycleClaude = lifecycleAgent{
	name: "Claude Code", newRun: claudeRun, prompt: "UserPromptSubmit", turnEnd: "Stop",
	start: func(r *run) *term {
		tm := r.tmux(claudeEnv(), "claude", "--permission-mode", "default")
		tm.waitScreen("Claude Code starts", 60*time.Second, shows("manual mode on"))
		return tm
	},
	agent: func(r *run, tm *term) int { return tm.panePID() }, // the native claude binary
}

var lifecycleGemini = lifecycleAgent{
	name: "Gemini CLI", newRun: geminiRun, prompt: "BeforeAgent", turnEnd: "AfterAgent",
	start: func(r *run) *term {
		tm := r.tmux(geminiEnv(), "gemini")
		tm.waitScreen("Gemini CLI starts", 90*time.Second, shows("Type your message"))
		r.waitFor("SessionStart", 60*time.Second, func() bool { return r.count("SessionStart") > 0 })
		r.waitBoard("at start", 10*time.Second, oneMain(state.StatusDone))
		// Its input takes keys a moment before it takes a prompt (see
		// TestGeminiInteractive).
		time.Sleep(2 * time.Second)
		return tm
	},
	// The pane's node relaunches itself; the child runs the hooks.
	agent: func(r *run, tm *term) int {
		return r.childWith(tm.panePID(), "--max-old-space-size")
	},
}

var lifecycleCodex = lifecycleAgent{
	name: "Codex", newRun: codexRun, prompt: "UserPromptSubmit", turnEnd: "Stop",
	start: func(r *run) *term {
		tm := r.tmux(codexEnv(), "codex")
		tm.waitScreen("the hooks review", 120*time.Second, shows("Hooks need review", "Trust all and continue"))
		tm.trustCodexHooks("hooks trusted") // 2. Trust all and continue
		return tm
	},
	agent: func(r *run, tm *term) int { return r.codexDaemon() },
}

// panePID is the pid of the program tmux runs in the pane.
func (tm *term) panePID() int {
	tm.r.t.Helper()
	out, err := tm.cmd(nil, "display-message", "-p", "-t", "agent", "#{pane_pid}")
	pid, perr := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || perr != nil || pid <= 1 {
		tm.r.t.Fatalf("the pane's pid: %q %v", out, err)
	}
	return pid
}

// procStat is a live process's parent and command line.
func procStat(pid int) (ppid int, cmdline string, ok bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil || zombie(stat) {
		return 0, "", false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	cl, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return ppid, strings.ReplaceAll(string(cl), "\x00", " "), true
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	_, _, ok := procStat(pid)
	return ok
}

// childWith waits (up to 30 s) for a child of parent whose command line
// holds sub ("" for any), and returns its pid.
func (r *run) childWith(parent int, sub string) int {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if ppid, cl, ok := procStat(pid); ok && ppid == parent && strings.Contains(cl, sub) {
				return pid
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no child of %d with %q in its command line", parent, sub)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// codexDaemon is the pid of the run's Codex app-server daemon, as Codex
// names it in $CODEX_HOME/app-server-daemon/daemon.pid (checked to be a
// live `codex app-server` of this run).
func (r *run) codexDaemon() int {
	r.t.Helper()
	path := filepath.Join(r.home, ".codex", "app-server-daemon", "daemon.pid")
	var pid int
	r.waitFor("Codex's daemon.pid", 30*time.Second, func() bool {
		b, err := os.ReadFile(path)
		var f struct {
			PID int `json:"pid"`
		}
		if err != nil || json.Unmarshal(b, &f) != nil || f.PID <= 1 {
			return false
		}
		_, cl, ok := procStat(f.PID)
		exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(f.PID), "exe"))
		if ok && strings.Contains(cl, "app-server") && strings.HasPrefix(exe, r.root) {
			pid = f.PID
			return true
		}
		return false
	})
	if pid == 0 {
		r.t.FailNow()
	}
	return pid
}

// kill9 kills pid with SIGKILL, fails the test unless it is gone within
// 5 s, and returns the time of the kill.
func (r *run) kill9(what string, pid int) time.Time {
	r.t.Helper()
	_, cl, _ := procStat(pid)
	r.t.Logf("kill -9 %s: pid %d (%s)", what, pid, strings.TrimSpace(cl))
	at := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		r.t.Fatalf("kill -9 %d: %v", pid, err)
	}
	r.waitFor(what+" gone", 5*time.Second, func() bool { return !alive(pid) })
	return at
}

// processRecords counts the host's agents-notch.process.v1 log records
// (an agent's process ended without a word), over every log of the run.
func (r *run) processRecords() int {
	logs, _ := filepath.Glob(filepath.Join(r.root, "notch-web*.log"))
	n := 0
	for _, p := range logs {
		b, _ := os.ReadFile(p)
		n += strings.Count(string(b), `"log_type":"`+logx.TypeProcess+`"`)
	}
	return n
}

// hostLogHas reports whether a log of the run holds sub.
func (r *run) hostLogHas(sub string) bool {
	logs, _ := filepath.Glob(filepath.Join(r.root, "notch-web*.log"))
	for _, p := range logs {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), sub) {
			return true
		}
	}
	return false
}

// settledAs waits up to settleWithin after at for the one row to be
// status, and logs how long it took.
func (r *run) settledAs(step string, at time.Time, status string) {
	r.t.Helper()
	r.waitBoard(step, time.Until(at.Add(settleWithin)), oneMain(status))
	r.t.Logf("%s: the row is %s %v after it", step, status, time.Since(at).Round(10*time.Millisecond))
}

// slowTurn types a scenario:slow prompt and waits until the row works and
// the stand-in holds the agent's stream: the agent is mid-turn.
func (r *run) slowTurn(a lifecycleAgent, tm *term) {
	r.t.Helper()
	held := suite.standin.Held(r.slow)
	tm.typeLine(r.slow, a.prompt)
	// Generous deadlines (typeLineWithin): OpenCode at a load of 20–30
	// reached the stand-in more than 30 s after its prompt was taken.
	r.waitBoard("while the model streams", typeLineWithin, oneMain(state.StatusWorking))
	r.waitFor("the stand-in holding the slow stream", typeLineWithin, func() bool { return suite.standin.Held(r.slow) > held })
}

// release ends the held slow turn: the model answers.
func (r *run) release() {
	r.t.Helper()
	if n := suite.standin.Release(r.slow); n == 0 {
		r.t.Errorf("no slow turn was held to release")
	}
}

// stopHost ends the run's notch-web with SIGTERM (as a service manager
// does) and waits until it is gone and its port refuses.
func (r *run) stopHost() {
	r.t.Helper()
	pid := r.hostPID()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		r.t.Fatalf("SIGTERM notch-web: %v", err)
	}
	u, _ := url.Parse(r.host)
	r.waitFor("notch-web gone", 15*time.Second, func() bool {
		if alive(pid) {
			return false
		}
		c, err := net.DialTimeout("tcp", u.Host, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return false
		}
		return true
	})
}

// hostPID is the run's notch-web process.
func (r *run) hostPID() int {
	r.t.Helper()
	home := "--dsh-home " + filepath.Join(r.root, "dsh") + " "
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if _, cl, ok := procStat(pid); ok && exe == suite.notchWeb && strings.Contains(cl+" ", home) {
			return pid
		}
	}
	r.t.Fatal("the run's notch-web is not running")
	return 0
}

// restartHost starts the run's notch-web again on its DSH home and its
// address (the proxy the hooks point at forwards there), and returns when
// it serves.
func (r *run) restartHost(n int) time.Time {
	r.t.Helper()
	u, _ := url.Parse(r.host)
	r.startHostAt(u.Host, "notch-web."+strconv.Itoa(n)+".log")
	return time.Now()
}

// onlyRow: one session row, no subagent row at all.
func onlyRow(status string) func(state.Document) error {
	return func(d state.Document) error {
		if err := oneMain(status)(d); err != nil {
			return err
		}
		if _, subs := mainRows(d); len(subs) > 0 {
			return errf("%d subagent rows, want none", len(subs))
		}
		return nil
	}
}

func ctxOf(d state.Document) int64 {
	if m, _ := mainRows(d); len(m) == 1 {
		return m[0].ContextTokens
	}
	return 0
}

// killMidTurn: kill -9 of the agent's process mid-turn settles the row
// error (a turn was open) within settleWithin, with one process record.
func killMidTurn(t *testing.T, a lifecycleAgent) {
	r := a.newRun(t)
	r.noRecord = true
	tm := a.start(r)
	r.slowTurn(a, tm)
	pid := a.agent(r, tm)
	at := r.kill9(a.name+"'s process mid-turn", pid)
	r.settledAs("after kill -9 mid-turn", at, state.StatusError)
	r.waitFor("the agents-notch.process.v1 record", 2*time.Second, func() bool { return r.processRecords() == 1 })
	r.holdBoard("after kill -9 mid-turn", 1500*time.Millisecond, settled(1, state.StatusError))
	r.logEvents()
}

// killAtAsk: kill -9 at a permission dialog settles the row error within
// settleWithin, its card goes from the board page, and a click on a card
// the board could answer is told 410 (Gone). An agent with a
// PermissionRequest hook (Claude Code, Codex) has a card at the ask
// (withCard); Gemini CLI's ask is a row that needs the user, no card.
func killAtAsk(t *testing.T, a lifecycleAgent, dialog string, withCard bool) {
	r := a.newRun(t)
	r.noRecord = true
	tm := a.start(r)
	tm.typeLine("scenario:tool Create the marker file.", a.prompt)
	r.waitBoard("at the permission request", 60*time.Second, oneMain(state.StatusAttention))
	if dialog != "" {
		tm.waitScreen("the permission dialog", 60*time.Second, shows(dialog))
	}
	var cs []boardCard
	if withCard {
		cs = r.waitCards("the card at the ask", 15*time.Second, func(cs []boardCard) error {
			if len(cs) == 0 {
				return errf("no card")
			}
			return nil
		})
	}
	t.Logf("cards at the ask: %s", cardsText(cs))
	pid := a.agent(r, tm)
	at := r.kill9(a.name+"'s process at the ask", pid)
	r.settledAs("after kill -9 at the ask", at, state.StatusError)
	r.waitCards("after kill -9 at the ask", time.Until(at.Add(settleWithin)), noCards)
	t.Logf("after kill -9 at the ask: no card on the board page %v after it", time.Since(at).Round(10*time.Millisecond))
	answered := 0
	for _, c := range cs {
		if c.Nonce != "" {
			r.wantAnswer("a click on the card of a dead agent", c, "allow", "", http.StatusGone)
			answered++
		}
	}
	t.Logf("cards the board could answer: %d of %d (a click on each: 410)", answered, len(cs))
	r.holdBoard("after kill -9 at the ask", 1500*time.Millisecond, settled(1, state.StatusError))
	if exists(filepath.Join(r.work, "conformance-tool.txt")) {
		t.Errorf("the agent was killed at the ask, but the tool ran")
	}
	r.logEvents()
}

// killIdle: kill -9 of an idle agent (its turn done) leaves the row done:
// the host sees the process end (its record) and settles nothing wrong.
func killIdle(t *testing.T, a lifecycleAgent) {
	r := a.newRun(t)
	r.noRecord = true
	tm := a.start(r)
	tm.typeLine("scenario:plain Say hello.", a.prompt)
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	r.waitFor("the turn's end hook", 10*time.Second, func() bool { return r.count(a.turnEnd) > 0 })
	pid := a.agent(r, tm)
	at := r.kill9(a.name+"'s idle process", pid)
	r.waitFor("the agents-notch.process.v1 record", settleWithin, func() bool { return r.processRecords() == 1 })
	t.Logf("the host noted the idle agent's end %v after the kill", time.Since(at).Round(10*time.Millisecond))
	r.holdBoard("after kill -9 while idle", 2*time.Second, settled(1, state.StatusDone))
	r.logEvents()
}

// restartWhileTurnEnds: notch-web is stopped (SIGTERM) mid-turn, the turn
// ends while it is down (its end hook reaches no host), and the restarted
// notch-web (same DSH home, same address) shows the row done within
// settleWithin, from the agent's own files.
func restartWhileTurnEnds(t *testing.T, a lifecycleAgent) {
	r := a.newRun(t)
	r.noRecord = true
	tm := a.start(r)
	r.slowTurn(a, tm)
	ends := r.count(a.turnEnd)
	r.stopHost()
	r.release()
	tm.waitScreen("the slow turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	r.waitFor("the turn's end hook (into no host)", 30*time.Second, func() bool { return r.count(a.turnEnd) > ends })
	// The agent writes its files a fraction of a second after the hook
	// (docs: ~60–200 ms); the host is started at once after it.
	at := r.restartHost(2)
	r.waitBoard("after the restart", time.Until(at.Add(settleWithin)), oneMain(state.StatusDone))
	t.Logf("after the restart: the row is done %v after notch-web served", time.Since(at).Round(10*time.Millisecond))
	if !r.hostLogHas("a turn that ended while the host was down is ended") {
		t.Logf("(the restarted host logged no reconcile of the turn)")
	}
	r.holdBoard("after the restart", 2*time.Second, oneMain(state.StatusDone))
	r.historyAgrees("after the restart")
	// The restarted host watches the agent again: its end is seen.
	pid := a.agent(r, tm)
	at = r.kill9(a.name+"'s process after the restart", pid)
	r.waitFor("the agents-notch.process.v1 record after the restart", settleWithin, func() bool { return r.processRecords() == 1 })
	t.Logf("the restarted host noted the agent's end %v after the kill", time.Since(at).Round(10*time.Millisecond))
	r.holdBoard("after the kill that followed the restart", 1500*time.Millisecond, settled(1, state.StatusDone))
	r.logEvents()
}

// TestLifecycleClaude: Claude Code 2.1.328's TUI (the agent is the native
// claude binary, the pane's process).
func TestLifecycleClaude(t *testing.T) {
	a := lifecycleClaude
	t.Run("kill_mid_turn", func(t *testing.T) { killMidTurn(t, a) })
	t.Run("kill_at_dialog", func(t *testing.T) { killAtAsk(t, a, "Do you want to proceed?", true) })
	t.Run("kill_session_mid_turn", func(t *testing.T) {
		// The terminal goes (SIGHUP): Claude Code fires SessionEnd as it
		// exits; the turn was open, so the row ends error.
		r := a.newRun(t)
		r.noRecord = true
		tm := a.start(r)
		r.slowTurn(a, tm)
		pid := a.agent(r, tm)
		at := time.Now()
		if out, err := tm.cmd(nil, "kill-session", "-t", "agent"); err != nil {
			t.Fatalf("tmux kill-session: %v %s", err, out)
		}
		r.settledAs("after tmux kill-session", at, state.StatusError)
		r.waitFor("Claude Code's exit", 10*time.Second, func() bool { return !alive(pid) })
		r.waitFor("SessionEnd", 5*time.Second, func() bool { return r.count("SessionEnd") > 0 })
		r.holdBoard("after tmux kill-session", 1500*time.Millisecond, settled(1, state.StatusError))
		t.Logf("process records: %d (the SessionEnd came first: 0)", r.processRecords())
		r.logEvents()
	})
	t.Run("kill_idle", func(t *testing.T) { killIdle(t, a) })
	t.Run("restart_while_turn_ends", func(t *testing.T) { restartWhileTurnEnds(t, a) })
	t.Run("compact", func(t *testing.T) {
		// /compact runs as an internal agent (a SubagentStop with no
		// SubagentStart): no row; the conversation's answers become one
		// summary, and the stand-in reports a smaller prompt for the next
		// turn (EarlierAnswerTokens for each answer before it).
		r := a.newRun(t)
		r.noRecord = true
		tm := a.start(r)
		tm.typeLine("scenario:plain Say hello.", a.prompt)
		tm.waitScreen("the first turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
		d := r.waitBoard("after the first turn", 15*time.Second, func(d state.Document) error {
			if err := onlyRow(state.StatusDone)(d); err != nil {
				return err
			}
			return hasTokens(d)
		})
		first := ctxOf(d)
		tm.waitQuiet("after the first turn", "esc to interrupt", 30*time.Second)
		tm.typeLine("scenario:plain Say hello again.", a.prompt)
		tm.waitScreen("the second turn's answer", 60*time.Second, tm.count(standin.FinalText, 2))
		d = r.waitBoard("the context after the second turn", 15*time.Second, func(d state.Document) error {
			if err := onlyRow(state.StatusDone)(d); err != nil {
				return err
			}
			if ctxOf(d) <= first {
				return errf("contextTokens %d, not above the first turn's %d", ctxOf(d), first)
			}
			return nil
		})
		before := ctxOf(d)
		tm.waitQuiet("after the second turn", "esc to interrupt", 30*time.Second)
		stops, starts := r.count("SubagentStop"), r.count("SessionStart")
		tm.keys("-l", "/compact")
		time.Sleep(300 * time.Millisecond)
		tm.keys("Enter")
		// Until the compaction ends (its SessionStart, source "compact",
		// and the screen no longer "Compacting"), no board read may show
		// a subagent row or a second session.
		var during error
		r.waitBoard("the compaction's end", 90*time.Second, func(d state.Document) error {
			if err := onlyRow(state.StatusDone)(d); err != nil && during == nil {
				during = err
			}
			if r.count("SessionStart") > starts && r.count("SubagentStop") > stops &&
				!strings.Contains(tm.screen(), "Compacting conversation") {
				return nil
			}
			return errf("still compacting")
		})
		if during != nil {
			t.Errorf("while /compact ran: %v", during)
		}
		tm.waitQuiet("after /compact", "esc to interrupt", 30*time.Second)
		tm.log("after /compact")
		r.holdBoard("after /compact", 3*time.Second, onlyRow(state.StatusDone))
		// The compaction's own result, before any next turn: the figure
		// drops to what it left (its boundary line's postTokens).
		d = r.waitBoard("the context once /compact is done", 5*time.Second, func(d state.Document) error {
			if c := ctxOf(d); c >= before {
				return errf("contextTokens %d, still the %d before /compact", c, before)
			}
			return nil
		})
		compacted := ctxOf(d)
		// What the real CLI wrote for the compaction (docs/agents.md).
		filepath.WalkDir(r.home, func(path string, e fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(path, ".jsonl") && !strings.Contains(path, "subagents") {
				b, _ := os.ReadFile(path)
				for l := range strings.Lines(string(b)) {
					if strings.Contains(l, `"compact_boundary"`) {
						t.Logf("%s: %s", filepath.Base(path), strings.TrimSpace(l))
					}
				}
			}
			return nil
		})
		tm.typeLine("scenario:plain Say hello once more.", a.prompt)
		r.waitFor("the third turn's Stop", 60*time.Second, func() bool { return r.count("Stop") >= 3 })
		d = r.waitBoard("the context after /compact and a turn", 15*time.Second, func(d state.Document) error {
			if err := onlyRow(state.StatusDone)(d); err != nil {
				return err
			}
			if c := ctxOf(d); c <= 0 || c >= before {
				return errf("contextTokens %d, want 0 < it < %d (before /compact)", c, before)
			}
			return nil
		})
		t.Logf("contextTokens: first turn %d, second %d, once /compact is done %d, after it and a turn %d", first, before, compacted, ctxOf(d))
		r.logEvents()
	})
}

// TestLifecycleGemini: Gemini CLI 0.61.0's TUI (the agent is the child
// node the pane's node relaunches itself as).
func TestLifecycleGemini(t *testing.T) {
	a := lifecycleGemini
	t.Run("kill_mid_turn", func(t *testing.T) { killMidTurn(t, a) })
	t.Run("kill_at_confirmation", func(t *testing.T) { killAtAsk(t, a, "Allow execution of", false) })
	t.Run("kill_session_mid_turn", func(t *testing.T) {
		// The terminal goes: Gemini CLI dies with it and fires no hook;
		// only its process's end says so.
		r := a.newRun(t)
		r.noRecord = true
		tm := a.start(r)
		r.slowTurn(a, tm)
		pid := a.agent(r, tm)
		at := time.Now()
		if out, err := tm.cmd(nil, "kill-session", "-t", "agent"); err != nil {
			t.Fatalf("tmux kill-session: %v %s", err, out)
		}
		r.waitFor("Gemini CLI's exit", 10*time.Second, func() bool { return !alive(pid) })
		t.Logf("Gemini CLI exited %v after kill-session", time.Since(at).Round(10*time.Millisecond))
		r.settledAs("after tmux kill-session", at, state.StatusError)
		r.holdBoard("after tmux kill-session", 1500*time.Millisecond, settled(1, state.StatusError))
		t.Logf("SessionEnd hooks: %d, process records: %d", r.count("SessionEnd"), r.processRecords())
		r.logEvents()
	})
	t.Run("kill_idle", func(t *testing.T) { killIdle(t, a) })
	t.Run("restart_while_turn_ends", func(t *testing.T) { restartWhileTurnEnds(t, a) })
}

// TestLifecycleCodex: Codex 0.169.0's TUI, a client of its app-server
// daemon, which runs the hooks and owns the turn.
func TestLifecycleCodex(t *testing.T) {
	a := lifecycleCodex
	t.Run("kill_daemon_mid_turn", func(t *testing.T) { killMidTurn(t, a) })
	t.Run("kill_daemon_at_approval", func(t *testing.T) { killAtAsk(t, a, "", true) })
	t.Run("kill_tui_mid_turn", func(t *testing.T) {
		// The TUI killed alone: the daemon carries the turn on (the row
		// keeps working, truthfully) and ends it when the model answers:
		// its Stop makes the row done.
		r := a.newRun(t)
		r.noRecord = true
		tm := a.start(r)
		r.slowTurn(a, tm)
		daemon := a.agent(r, tm)
		tui := r.childWith(tm.panePID(), "codex") // the node shim's native codex
		r.kill9("the Codex TUI", tui)
		r.holdBoard("the daemon carries the turn on", 3*time.Second, oneMain(state.StatusWorking))
		if !alive(daemon) {
			t.Fatalf("the app-server daemon died with the TUI")
		}
		at := time.Now()
		r.release()
		r.waitFor("the daemon's Stop", 15*time.Second, func() bool { return r.count("Stop") > 0 })
		r.waitBoard("after the daemon ended the turn", 5*time.Second, oneMain(state.StatusDone))
		t.Logf("the model answered; the row is done %v after", time.Since(at).Round(10*time.Millisecond))
		r.holdBoard("after the daemon ended the turn", 1500*time.Millisecond, oneMain(state.StatusDone))
		r.logEvents()
	})
	t.Run("kill_session_mid_turn", func(t *testing.T) {
		// The terminal goes: the TUI dies, the daemon survives and keeps
		// the turn (the row works on, truthfully), and ends it when the
		// model answers. Nothing stays working once it has.
		r := a.newRun(t)
		r.noRecord = true
		tm := a.start(r)
		r.slowTurn(a, tm)
		daemon := a.agent(r, tm)
		if out, err := tm.cmd(nil, "kill-session", "-t", "agent"); err != nil {
			t.Fatalf("tmux kill-session: %v %s", err, out)
		}
		r.holdBoard("the daemon carries the turn on", 3*time.Second, oneMain(state.StatusWorking))
		if !alive(daemon) {
			t.Fatalf("the app-server daemon died with the terminal")
		}
		at := time.Now()
		r.release()
		r.waitFor("the daemon's Stop", 15*time.Second, func() bool { return r.count("Stop") > 0 })
		r.waitBoard("after the daemon ended the turn", 5*time.Second, settled(1, state.StatusDone))
		t.Logf("the model answered; the row is done %v after", time.Since(at).Round(10*time.Millisecond))
		r.holdBoard("after the daemon ended the turn", 1500*time.Millisecond, settled(1, state.StatusDone))
		r.logEvents()
	})
	t.Run("kill_idle", func(t *testing.T) { killIdle(t, a) })
	t.Run("restart_while_turn_ends", func(t *testing.T) { restartWhileTurnEnds(t, a) })
}
