package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// agentChild starts a process that stands for an agent (it runs until
// killed, reaped in the background) and returns its ID.
func agentChild(t *testing.T) (*exec.Cmd, proc.ID) {
	t.Helper()
	if _, err := proc.Of(os.Getpid()); errors.Is(err, proc.ErrUnsupported) {
		t.Skip("no process facts on this platform")
	}
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to stand for an agent: %v", err)
	}
	go cmd.Wait()
	t.Cleanup(func() { cmd.Process.Kill() })
	id, err := proc.Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, id
}

// hookAs sends a Claude Code hook that says it comes from process id.
func (e *apEnv) hookAs(t *testing.T, id proc.ID, payload []byte) {
	t.Helper()
	if _, err := e.h.HookFrom("claude-code", payload, time.Now(), Origin{Proc: id}); err != nil {
		t.Fatal(err)
	}
}

// waitStatus waits for a row to be in status.
func waitStatus(t *testing.T, e *apEnv, id, status string) state.Session {
	t.Helper()
	var s state.Session
	waitfor.Until(t, "row "+id+" "+status, func() bool {
		var ok bool
		s, ok = rows(t, e.h)[id]
		return ok && s.Status == status
	})
	return s
}

func TestKilledMidTurnSettlesAsError(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	agent, id := agentChild(t)
	e.hookAs(t, id, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	e.send(t, e.hook("PreToolUse", bashCall("c1", "make")))
	waitStatus(t, e, "s1", state.StatusWorking)

	// How soon it settles is a figure for a benchmark, not a test on a
	// shared machine: here, only that it does (waitfor's deadline).
	agent.Process.Kill()
	s := waitStatus(t, e, "s1", state.StatusError)
	if s.Activity != nil && s.Activity.Kind == state.ActivityTool {
		t.Errorf("a tool is still out on the settled row: %+v", s.Activity)
	}
	h, _ := e.h.Board().History("s1")
	if len(h) == 0 || h[0].What != endedSilentlyWhat {
		t.Errorf("history's newest entry = %+v, want %q", h, endedSilentlyWhat)
	}
	// A late hook does not bring it back to work.
	e.send(t, e.hook("PostToolUse", bashCall("c1", "make")))
	if got := rows(t, e.h)["s1"].Status; got != state.StatusError {
		t.Errorf("after a late hook the row is %s", got)
	}
	// The record is written just after the row settles: wait for it.
	waitfor.Until(t, "the agents-notch.process.v1 record", func() bool {
		return strings.Contains(e.logText(), `"log_type":"agents-notch.process.v1"`)
	})
}

func TestKilledAtADialogTakesTheCard(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	agent, id := agentChild(t)
	e.hookAs(t, id, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	e.send(t, e.hook("PreToolUse", bashCall("c1", "rm -rf build")))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hd := e.hold(ctx, t, e.hook("PermissionRequest", bashAsk("rm -rf build")))
	cards := waitCards(t, e.h, nCards(1, CardWaiting))
	waitStatus(t, e, "s1", state.StatusAttention)

	agent.Process.Kill()
	waitStatus(t, e, "s1", state.StatusError)
	waitCards(t, e.h, func(c []Card) bool { return len(c) == 0 })
	if r := hd.get(t); r != nil {
		t.Errorf("the held hook of a dead agent got %s", r)
	}
	_, err := e.h.Answer(AnswerRequest{Session: "s1", Call: cards[0].Call, Nonce: cards[0].Nonce, Decision: DecideAllow})
	if !errors.Is(err, ErrAgentGone) {
		t.Fatalf("a click on the gone card: %v, want ErrAgentGone", err)
	}
}

func TestKilledWhileIdleStaysDone(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	agent, id := agentChild(t)
	e.hookAs(t, id, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	e.send(t, e.hook("Stop", ""))
	done := waitStatus(t, e, "s1", state.StatusDone)
	agent.Process.Kill()
	waitfor.Until(t, "the row ended", func() bool {
		e.h.board.mu.Lock()
		defer e.h.board.mu.Unlock()
		return e.h.board.fold.Ended("s1")
	})
	if s := rows(t, e.h)["s1"]; s.Status != state.StatusDone || s.Since != done.Since {
		t.Errorf("an idle session's row after its kill: %s since %d, want done since %d", s.Status, s.Since, done.Since)
	}
}

func TestSessionEndBeforeTheExitIsTheWord(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	agent, id := agentChild(t)
	e.hookAs(t, id, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	e.send(t, e.hook("Stop", ""))
	e.send(t, e.hook("SessionEnd", `,"reason":"prompt_input_exit"`))
	agent.Process.Kill()
	time.Sleep(exitGrace + 500*time.Millisecond) // nothing must happen: wait it out
	if strings.Contains(e.logText(), `"log_type":"agents-notch.process.v1"`) {
		t.Error("a session that said its end was also ended without a word")
	}
	if s := rows(t, e.h)["s1"]; s.Status != state.StatusDone {
		t.Errorf("row is %s, want done", s.Status)
	}
}

func TestAReusedPIDIsNotTheAgent(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	_, id := agentChild(t)
	other := id
	other.Start++ // the PID now holds a process that started at another time
	e.hookAs(t, other, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	// The named process is not running: the row settles, though a
	// process with its PID lives.
	waitStatus(t, e, "s1", state.StatusError)
}

func TestAnotherMachinesProcessIsNotWatched(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	agent, id := agentChild(t)
	id.Boot = "another-machine"
	e.hookAs(t, id, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	agent.Process.Kill()
	time.Sleep(exitGrace + 500*time.Millisecond) // nothing must happen: wait it out
	if s := rows(t, e.h)["s1"]; s.Status != state.StatusWorking {
		t.Errorf("a row of another machine's process is %s, want working still", s.Status)
	}
}

func (e *apEnv) logText() string {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	return e.log.String()
}

func TestKilledSettlesItsSubagents(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	agent, id := agentChild(t)
	e.hookAs(t, id, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	e.send(t, e.hook("SubagentStart", `,"agent_id":"a1","agent_type":"Explore"`))
	sub := "s1/a1"
	waitStatus(t, e, sub, state.StatusWorking)
	agent.Process.Kill()
	waitStatus(t, e, "s1", state.StatusError)
	if s := rows(t, e.h)[sub]; !state.Settled(s.Status) {
		t.Errorf("the subagent's row is %s after its agent died", s.Status)
	}
}

// Qwen Code runs its StopFailure hook under a detached supervisor node
// that may outlive it (agent.Spec HelperEvents): the process that hook
// names is not the agent's. Watched, its exit would end a live session's
// row (as it did before: the next prompt's turn was then refused).
func TestAHelpersProcessIsNotWatched(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	_, agentID := agentChild(t)
	helper, helperID := agentChild(t)
	from := func(id proc.ID, payload []byte) {
		t.Helper()
		if _, err := e.h.HookFrom("qwen", payload, time.Now(), Origin{Proc: id}); err != nil {
			t.Fatal(err)
		}
	}
	from(agentID, e.hook("SessionStart", `,"source":"startup"`))
	from(agentID, e.hook("UserPromptSubmit", `,"prompt":"go","submitted_prompt":"go"`))
	from(helperID, e.hook("StopFailure", `,"error":"invalid_request"`))
	waitStatus(t, e, "s1", state.StatusError)
	if got := e.h.board.procOf("s1"); got != agentID {
		t.Fatalf("the row's process is %+v, want the agent's %+v (not the helper's %+v)", got, agentID, helperID)
	}
	helper.Process.Kill()
	from(agentID, e.hook("UserPromptSubmit", `,"prompt":"again","submitted_prompt":"again"`))
	waitStatus(t, e, "s1", state.StatusWorking)
}
