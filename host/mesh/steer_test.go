//go:build notch_hub

package mesh

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc/proctest"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// TestRemoteQuestion: a machine's question card shows on the hub with its
// questions (as text) and is answered from there; the machine's held hook
// gets the answers keyed as the model wrote them.
func TestRemoteQuestion(t *testing.T) {
	hub := testHub(t)
	hh := hubHost(t, hub)
	mh, _ := testMachineHost(t, hub, "box")
	input := `{"questions":[{"question":"Which \u202ecolour?","options":[{"label":"Teal"},{"label":"Coral"}]}]}`
	pre := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":` + input + `,"tool_use_id":"toolu_q"}`
	if _, err := mh.Hook("claude-code", []byte(pre), time.Now()); err != nil {
		t.Fatal(err)
	}
	replied := make(chan []byte, 1)
	go func() {
		ask := `{"session_id":"s1","hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":` + input + `}`
		r, _, _ := mh.HookHeld(context.Background(), "claude-code", []byte(ask), time.Now(), 20*time.Second)
		replied <- r
	}()
	c := hubCard(t, hh, "box/s1", host.CardWaiting)
	if c.Kind != host.KindQuestion || len(c.Questions) != 1 || c.Questions[0].Text != "Which colour?" || len(c.Questions[0].Options) != 2 {
		t.Fatalf("the hub's question card %+v", c)
	}
	if _, err := hh.Answer(host.AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: host.DecideAnswer,
		Answers: &[]hookjson.Choice{{Options: []int{1}}}}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-replied:
		if !strings.Contains(string(r), `"answers":{"Which \u202ecolour?":"Coral"}`) && !strings.Contains(string(r), "\"answers\":{\"Which \u202ecolour?\":\"Coral\"}") {
			t.Fatalf("the held hook got %s", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held hook never got the hub's answers")
	}
}

// TestRemoteSteer: a machine publishes which of its rows take a reply
// (a tmux pane known); the hub's Reply and Stop reach that machine's own
// Steer, which types into its pane (a tmux stand-in on PATH) and answers
// its refusals as a local one would; a stopped machine is ErrMachineAway.
func TestRemoteSteer(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "tmux-sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no Unix socket here: %v", err)
	}
	defer l.Close()
	if !terminal.ValidSocket(sock) {
		t.Skipf("the temporary folder's path %q is not one the hook would keep", sock)
	}
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	log := filepath.Join(dir, "argv")
	agent := proctest.TTYAgent(t)
	// list-panes names the pane's process (the agent, its terminal's
	// foreground); asked for the input's screen, Claude Code's empty box.
	script := "#!/bin/sh\nprintf '%s\\0' \"$@\" >> '" + log + "'\necho >> '" + log + "'\n" +
		"if [ \"$3\" = list-panes ]; then echo '%3 " + strconv.Itoa(agent.PID) + "'; fi\n" +
		"if [ \"$8\" = display-message ]; then printf '%s\\n────\\n❯ \\n────\\n' \"${10}\"; fi\nexit 0\n"
	os.WriteFile(filepath.Join(bin, "tmux"), []byte(script), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	hub := testHub(t)
	hh := hubHost(t, hub)
	mh, stop := testMachineHost(t, hub, "box")
	start := []byte(`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`)
	if _, err := mh.HookFrom("claude-code", start, time.Now(), host.Origin{Where: terminal.Where{TmuxPane: "%3", TmuxSocket: sock}, Proc: agent}); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "box/s1 taking a reply on the hub", func() bool { return hh.Board().Cards().Steer["box/s1"] })
	waitfor.Until(t, "box/s1 done on the hub", func() bool {
		d, _ := hh.Board().Snapshot(time.Now())
		return len(d.Sessions) == 1 && d.Sessions[0].Status == state.StatusDone
	})
	if err := hh.Steer(context.Background(), host.SteerRequest{Session: "box/s1", Text: "from the hub\nline two"}); err != nil {
		t.Fatalf("a reply from the hub: %v", err)
	}
	b, _ := os.ReadFile(log)
	if want := "send-keys\x00-t\x00%3\x00-l\x00--\x00from the hub\nline two\x00"; !strings.Contains(string(b), want) {
		t.Fatalf("the machine's tmux ran:\n%q", b)
	}
	if err := hh.Steer(context.Background(), host.SteerRequest{Session: "box/s1", Stop: true}); !errors.Is(err, host.ErrNotWorking) {
		t.Errorf("a stop of a done row from the hub: %v, want ErrNotWorking", err)
	}
	stop()
	waitfor.Until(t, "box quiet on the hub", func() bool { return hub.remote.Unknown()["box/s1"] })
	if err := hh.Steer(context.Background(), host.SteerRequest{Session: "box/s1", Text: "hi"}); !errors.Is(err, host.ErrMachineAway) {
		t.Errorf("a reply to a stopped machine: %v, want ErrMachineAway", err)
	}
}

func FuzzDecodeSteer(f *testing.F) {
	f.Add([]byte(`{"session":"s1","text":"Run the tests"}`))           // a reply
	f.Add([]byte(`{"session":"s1","stop":true}`))                      // a stop
	f.Add([]byte(`{"session":"s1","text":"\u001b[31m","stop":false}`)) // a control character
	f.Add([]byte(`{"session":"s1","text":"x","stop":true}`))           // both
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeSteer(data)
		if err != nil {
			return
		}
		if !state.ValidSessionID(r.Session) || (r.Stop && r.Text != "") || (!r.Stop && r.Text == "") || len(r.Text) > terminal.MaxReply {
			t.Fatalf("let through: %+v", r)
		}
		if _, err := terminal.CheckReply(r.Text); !r.Stop && err != nil {
			t.Fatalf("a reply CheckReply refuses: %q", r.Text)
		}
	})
}
