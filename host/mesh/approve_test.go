//go:build notch_hub

package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// pairRaw pairs a machine with the hub and returns its nkey and the
// options to dial the hub as it.
func pairRaw(tb testing.TB, hub *Node, name string) (Creds, []nats.Option) {
	tb.Helper()
	kp, _ := nkeys.CreateUser()
	seed, _ := kp.Seed()
	pub, _ := kp.PublicKey()
	if msg := hub.hub.add(pairRequest{Name: name, Nkey: pub}, time.Now()); msg != "" {
		tb.Fatal(msg)
	}
	cr := Creds{Hub: fmt.Sprintf("127.0.0.1:%d", hub.Port()), Fingerprint: hub.hub.fp, Machine: name, Seed: string(seed)}
	return cr, []nats.Option{nats.Secure(pinnedTLS(cr.Fingerprint)), nats.Nkey(pub, kp.Sign)}
}

// testMachineHost pairs a machine and runs it with a real host (approvals
// on, hooks held), as notch-web --join does.
func testMachineHost(tb testing.TB, hub *Node, name string) (*host.Host, func()) {
	tb.Helper()
	cr, _ := pairRaw(tb, hub, name)
	home := tb.TempDir()
	if err := writeJSON(filepath.Join(Dir(home), joinFile), cr); err != nil {
		tb.Fatal(err)
	}
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	h := host.New(host.Config{StatePath: filepath.Join(home, "state.json"), ManualPath: filepath.Join(home, "manual.json"),
		Approvals: host.ApprovalConfig{Linger: 200 * time.Millisecond}}, svc)
	n, err := Open(context.Background(), Config{DSHHome: home, Join: true})
	if err != nil {
		tb.Fatal(err)
	}
	n.SetAnswerer(h.Answer)
	n.SetSteerer(h.Steer)
	n.SetChanger(h.Changes)
	n.SetLauncher(h)
	ctx, cancel := context.WithCancel(context.Background())
	hdone, ndone := make(chan struct{}), make(chan struct{})
	go func() { _ = h.Run(ctx); close(hdone) }()
	go func() { _ = n.Run(ctx, h.Board()); close(ndone) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-ndone
			<-hdone
		}
	}
	tb.Cleanup(stop)
	return h, stop
}

// hubHost is the hub's own host, showing the machines' rows and cards.
func hubHost(tb testing.TB, hub *Node) *host.Host {
	tb.Helper()
	home := tb.TempDir()
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	return host.New(host.Config{StatePath: filepath.Join(home, "state.json"), Remote: hub.Remote()}, svc)
}

// permissionRequest is a Claude Code PermissionRequest hook for session s.
func permissionRequest(s, call, cmd string) []byte {
	return []byte(`{"session_id":"` + s + `","hook_event_name":"PermissionRequest","tool_name":"Bash",` +
		`"tool_input":{"command":"` + cmd + `"},"tool_use_id":"` + call + `"}`)
}

// hold sends a PermissionRequest the machine holds; the reply comes on the
// channel when the hold ends.
func hold(t *testing.T, h *host.Host, s, cmd string) <-chan []byte {
	t.Helper()
	pre := []byte(`{"session_id":"` + s + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"},"tool_use_id":"call-` + cmd + `"}`)
	if _, err := h.Hook("claude-code", pre, time.Now()); err != nil {
		t.Fatal(err)
	}
	out := make(chan []byte, 1)
	go func() {
		reply, _, _ := h.HookHeld(context.Background(), "claude-code", permissionRequest(s, "", cmd), time.Now(), 20*time.Second)
		out <- reply
	}()
	return out
}

// hubCard waits for the card of row id on the hub's board in state want.
func hubCard(t *testing.T, hh *host.Host, id, want string) host.Card {
	t.Helper()
	var got host.Card
	waitfor.Until(t, "the card of "+id+" "+want+" on the hub", func() bool {
		for _, c := range hh.Board().Cards().Cards {
			if c.Session == id && c.State == want {
				got = c
				return true
			}
		}
		return false
	})
	return got
}

// TestRemoteApproval: a card held on a machine shows on the hub's board
// and is answered from there — the answer reaches the held hook; a replay
// is refused (ErrNonce, 403); a card answered in the terminal first is
// ErrAnswered (409); a machine that has stopped is ErrMachineAway (503).
func TestRemoteApproval(t *testing.T) {
	hub := testHub(t)
	hh := hubHost(t, hub)
	mh, stop := testMachineHost(t, hub, "box")

	// Allowed from the hub: the held hook gets the allow.
	replied := hold(t, mh, "s1", "ls")
	c := hubCard(t, hh, "box/s1", host.CardWaiting)
	if c.Nonce == "" || c.Tool != "Bash" || c.Detail != "ls" || !strings.HasPrefix(c.Key, "box-") || c.Call != "call-ls" {
		t.Fatalf("the hub's card %+v", c)
	}
	// The cards and the rows travel on subjects of their own: either may
	// reach the hub first.
	waitfor.Until(t, "box/s1 needing you on the hub", func() bool {
		rows, _ := hh.Board().Snapshot(time.Now())
		return len(rows.Sessions) == 1 && rows.Sessions[0].Status == state.StatusAttention
	})
	rec := &answerLog{}
	mh.Board().SetRecorder(rec)
	// Clicked on the hub's board by its paired phone (web names it).
	req := host.AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: host.DecideAllow, Device: "phone"}
	got, err := hh.Answer(req)
	if err != nil || got.Outcome != host.OutcomeAllowed {
		t.Fatalf("answer from the hub: %+v, %v", got, err)
	}
	select {
	case r := <-replied:
		if !strings.Contains(string(r), `"allow"`) {
			t.Fatalf("the held hook got %s, want an allow", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held hook never got the hub's answer")
	}
	if _, err := hh.Answer(req); !errors.Is(err, host.ErrNonce) {
		t.Errorf("a replayed answer: %v, want ErrNonce", err)
	}
	// The machine's history keeps the hub's phone, said to be the hub's.
	if a := rec.last(t); a.By != host.ByBoard || a.Device != "phone via the hub" {
		t.Errorf("the machine recorded %+v, want by board on phone via the hub", a)
	}

	// From the hub's own computer (no device): the machine says the hub,
	// never nothing (which would be its own computer).
	replied = hold(t, mh, "s4", "date")
	c = hubCard(t, hh, "box/s4", host.CardWaiting)
	if _, err := hh.Answer(host.AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: host.DecideDeny}); err != nil {
		t.Fatal(err)
	}
	<-replied
	if a := rec.last(t); a.Call != "call-date" || a.Device != "the hub" {
		t.Errorf("the machine recorded %+v, want on the hub", a)
	}

	// Answered in the terminal first: the hub's click is told so (409).
	replied = hold(t, mh, "s2", "pwd")
	c = hubCard(t, hh, "box/s2", host.CardWaiting)
	post := []byte(`{"session_id":"s2","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"pwd"},"tool_use_id":"call-pwd"}`)
	if _, err := mh.Hook("claude-code", post, time.Now()); err != nil {
		t.Fatal(err)
	}
	<-replied
	if _, err := hh.Answer(host.AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: host.DecideDeny}); !errors.Is(err, host.ErrAnswered) {
		t.Errorf("a click after the terminal answered: %v, want ErrAnswered", err)
	}
	// A forged nonce (403), and a card of a session the machine has not.
	if _, err := hh.Answer(host.AnswerRequest{Session: "box/s2", Call: c.Call, Nonce: "forged", Decision: host.DecideAllow}); !errors.Is(err, host.ErrNonce) {
		t.Errorf("a forged nonce: %v, want ErrNonce", err)
	}

	// A machine that has stopped: its card cannot be answered, and a click
	// says why (never a silent success).
	replied = hold(t, mh, "s3", "id")
	c = hubCard(t, hh, "box/s3", host.CardWaiting)
	stop()
	<-replied
	waitfor.Until(t, "box quiet on the hub", func() bool { return hub.remote.Unknown()["box/s3"] })
	if k := hubCard(t, hh, "box/s3", host.CardTerminal); k.Nonce != "" {
		t.Errorf("a quiet machine's card keeps its nonce: %+v", k)
	}
	_, err = hh.Answer(host.AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: host.DecideAllow})
	if !errors.Is(err, host.ErrMachineAway) || !strings.Contains(err.Error(), "box is quiet") {
		t.Errorf("a click for a stopped machine: %v, want ErrMachineAway saying box is quiet", err)
	}
}

// TestRemoteApprovalNoReply: a machine present on the hub that does not
// reply (its connection gone, its presence not yet expired) is
// ErrMachineAway, not a success.
func TestRemoteApprovalNoReply(t *testing.T) {
	hub := testHub(t)
	hh := hubHost(t, hub)
	pairRaw(t, hub, "ghost")
	hub.remote.setBoard("ghost", mustEncode(t, state.Document{Schema: 4, Sessions: []state.Session{{ID: "s1", Status: state.StatusAttention}}}), true)
	_, err := hh.Answer(host.AnswerRequest{Session: "ghost/s1", Nonce: "n", Decision: host.DecideAllow})
	if !errors.Is(err, host.ErrMachineAway) || !strings.Contains(err.Error(), "not connected") {
		t.Errorf("no machine listening: %v, want ErrMachineAway saying it is not connected", err)
	}
}

func mustEncode(t *testing.T, d state.Document) []byte {
	t.Helper()
	b, err := state.Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestApprovePermissions: only the hub sends a machine its answers, and
// only that machine hears them: another machine may neither publish to
// notch.box.approve nor subscribe to it, and box may not send itself one.
func TestApprovePermissions(t *testing.T) {
	hub := testHub(t)
	_, box := pairRaw(t, hub, "box")
	_, other := pairRaw(t, hub, "other")
	dial := func(opts []nats.Option) (*nats.Conn, chan error) {
		errs := make(chan error, 8)
		nc, err := nats.Connect(fmt.Sprintf("tls://127.0.0.1:%d", hub.Port()), append(opts, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs <- err }))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc, errs
	}
	boxNC, _ := dial(box)
	heard := make(chan *nats.Msg, 4)
	if _, err := boxNC.Subscribe(approveSubject("box"), func(m *nats.Msg) { heard <- m; _ = m.Respond([]byte(`{"ok":true,"outcome":"allowed"}`)) }); err != nil {
		t.Fatal(err)
	}
	_ = boxNC.Flush()

	otherNC, otherErrs := dial(other)
	body, _ := json.Marshal(wireAnswer{Session: "s1", Nonce: "n", Decision: "allow"})
	_ = otherNC.Publish(approveSubject("box"), body)
	_, _ = otherNC.Subscribe(approveSubject("box"), func(*nats.Msg) {})
	_ = otherNC.Flush()
	// Nor may it type into box's panes (Reply and Stop).
	_ = otherNC.Publish(steerSubject("box"), []byte(`{"session":"s1","text":"rm -rf ~"}`))
	_ = otherNC.Flush()
	for range 3 {
		select {
		case err := <-otherErrs:
			if !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
				t.Errorf("other machine: %v, want a permissions violation", err)
			}
		case <-time.After(waitfor.Patience):
			t.Fatal("another machine's publish or subscribe to box's answers was not refused")
		}
	}
	boxSelf, boxErrs := dial(box)
	_ = boxSelf.Publish(approveSubject("box"), body)
	_ = boxSelf.Publish(steerSubject("box"), []byte(`{"session":"s1","text":"x"}`))
	_ = boxSelf.Flush()
	for range 2 {
		select {
		case err := <-boxErrs:
			if !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
				t.Errorf("box to itself: %v, want a permissions violation", err)
			}
		case <-time.After(waitfor.Patience):
			t.Fatal("a machine sending itself an answer or a reply was not refused")
		}
	}
	select {
	case m := <-heard:
		t.Fatalf("box heard an answer not from the hub: %s", m.Data)
	default:
	}
	// The hub's request does arrive, and only box replies.
	if _, err := hub.sendAnswer("box", host.AnswerRequest{Session: "s1", Nonce: "n", Decision: "allow"}); err != nil {
		t.Fatalf("the hub's answer to box: %v", err)
	}
	if len(heard) != 1 {
		t.Errorf("box heard %d answers, want the hub's one", len(heard))
	}
}

// answerLog is a host.Recorder keeping only the answers.
type answerLog struct {
	mu  sync.Mutex
	got []host.RecordedAnswer
}

func (r *answerLog) RecordEvents([]host.RecordedEvent)     {}
func (r *answerLog) RecordCost(string, float64, time.Time) {}
func (r *answerLog) RecordWhy(host.RecordedWhy)            {}
func (r *answerLog) RecordAnswer(a host.RecordedAnswer) {
	r.mu.Lock()
	r.got = append(r.got, a)
	r.mu.Unlock()
}

// last waits for an answer recorded and returns the last one.
func (r *answerLog) last(t *testing.T) host.RecordedAnswer {
	t.Helper()
	var a host.RecordedAnswer
	waitfor.Until(t, "an answer recorded", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.got) == 0 {
			return false
		}
		a = r.got[len(r.got)-1]
		return true
	})
	return a
}

// TestAnOlderMachineTakesTheHubsAnswer: a machine from before answers named
// their device refuses the field (it reads strictly, before it looks at the
// card); the hub asks again without it, and the click is answered.
func TestAnOlderMachineTakesTheHubsAnswer(t *testing.T) {
	hub := testHub(t)
	_, box := pairRaw(t, hub, "box")
	nc, err := nats.Connect(fmt.Sprintf("tls://127.0.0.1:%d", hub.Port()), box...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	// The wire answer as that machine knows it, read as its decodeAnswer did.
	type olderAnswer struct {
		Session  string            `json:"session"`
		Call     string            `json:"call"`
		Nonce    string            `json:"nonce"`
		Decision string            `json:"decision"`
		Message  string            `json:"message,omitempty"`
		Answers  []hookjson.Choice `json:"answers,omitempty"`
	}
	heard := make(chan string, 4)
	if _, err := nc.Subscribe(approveSubject("box"), func(m *nats.Msg) {
		heard <- string(m.Data)
		var w olderAnswer
		if err := jsonx.DecodeOne(m.Data, &w, jsonx.Options{Strict: true}); err != nil {
			b, _ := json.Marshal(wireReply{Code: "decision", Error: errors.New(jsonx.Reason(err)).Error()})
			_ = m.Respond(b)
			return
		}
		_ = m.Respond([]byte(`{"ok":true,"outcome":"allowed"}`))
	}); err != nil {
		t.Fatal(err)
	}
	_ = nc.Flush()
	c, err := hub.sendAnswer("box", host.AnswerRequest{Session: "s1", Nonce: "n", Decision: host.DecideAllow, Device: "phone"})
	if err != nil || c.Outcome != host.OutcomeAllowed {
		t.Fatalf("the hub's answer to an older machine: %+v %v", c, err)
	}
	if n := len(heard); n != 2 {
		t.Fatalf("the machine heard %d asks, want 2", n)
	}
	if first, second := <-heard, <-heard; !strings.Contains(first, `"device":"phone"`) || strings.Contains(second, "device") {
		t.Errorf("the machine heard %s then %s: want the answer with its device, then without", first, second)
	}
	// A refusal of anything else is the machine's word, not asked again.
	if _, err := hub.sendAnswer("box", host.AnswerRequest{Session: "s1", Nonce: "n", Decision: host.DecideAllow}); err != nil || len(heard) != 1 {
		t.Errorf("an answer with no device: %v, %d asks", err, len(heard))
	}
}

func TestDecodeCards(t *testing.T) {
	good := `{"cards":[{"key":"k1","session":"s1","tool":"Bash","detail":"rm -rf /\u202e","nonce":"abc_-1","state":"waiting","sinceMs":5}],"agents":{"s1":"claude-code"}}`
	tests := []struct {
		name, in string
		cards    int
		err      bool
		check    func(host.Card) bool
	}{
		{"good", good, 1, false, func(c host.Card) bool { return c.Nonce == "abc_-1" && !strings.ContainsRune(c.Detail, '\u202e') }},
		{"unknown field", `{"cards":[],"x":1}`, 0, true, nil},
		{"trailing", `{"cards":[]}{}`, 0, true, nil},
		{"markup key dropped", `{"cards":[{"key":"<b>","session":"s1","tool":"Bash","state":"waiting","sinceMs":1}]}`, 0, false, nil},
		{"unknown state dropped", `{"cards":[{"key":"k","session":"s1","tool":"Bash","state":"evil","sinceMs":1}]}`, 0, false, nil},
		{"no tool dropped", `{"cards":[{"key":"k","session":"s1","tool":"","state":"waiting","sinceMs":1}]}`, 0, false, nil},
		{"answered loses its nonce", `{"cards":[{"key":"k","session":"s1","tool":"Bash","nonce":"n","state":"answered","sinceMs":1}]}`, 1, false,
			func(c host.Card) bool { return c.Nonce == "" }},
		{"waiting with a bad nonce is read-only", `{"cards":[{"key":"k","session":"s1","tool":"Bash","nonce":"a b","state":"waiting","sinceMs":1}]}`, 1, false,
			func(c host.Card) bool { return c.Nonce == "" && c.State == host.CardTerminal }},
		{"too many", `{"cards":[` + strings.Repeat(`{"key":"k","session":"s","tool":"T","state":"waiting","sinceMs":1},`, maxWireCards) + `{"key":"k","session":"s","tool":"T","state":"waiting","sinceMs":1}]}`, 0, true, nil},
		{"a megabyte", `{"cards":[{"key":"k","session":"s1","tool":"` + strings.Repeat("x", maxWireBytes) + `","state":"waiting","sinceMs":1}]}`, 0, true, nil},
		// "Always allow" grants the rules: the hub offers it with them
		// all, labelled from them, and never on a label alone.
		{"always with its rules", `{"cards":[{"key":"k","session":"s1","tool":"Bash","always":"anything","rules":["Bash(make:*)","Read"],"state":"waiting","sinceMs":1}]}`, 1, false,
			func(c host.Card) bool { return c.Always == "Bash(make:*), Read" && len(c.AlwaysRules) == 2 }},
		{"always on a label alone", `{"cards":[{"key":"k","session":"s1","tool":"Bash","always":"Bash(make:*)","state":"waiting","sinceMs":1}]}`, 1, false,
			func(c host.Card) bool { return c.Always == "" && c.AlwaysRules == nil }},
		{"always with a rule it cannot show", `{"cards":[{"key":"k","session":"s1","tool":"Bash","always":"x","rules":["Read","Bash(\u202els)"],"state":"waiting","sinceMs":1}]}`, 1, false,
			func(c host.Card) bool { return c.Always == "" && c.AlwaysRules == nil }},
	}
	for _, tt := range tests {
		cards, _, _, _, err := decodeCards([]byte(tt.in))
		if (err != nil) != tt.err || len(cards) != tt.cards {
			t.Errorf("%s: %d cards, %v", tt.name, len(cards), err)
			continue
		}
		if tt.check != nil && !tt.check(cards[0]) {
			t.Errorf("%s: %+v", tt.name, cards[0])
		}
	}
}

// TestCardsCarryWhys: why a machine's rows stopped reaches the hub made
// fit to show: a known kind, one line of bounded words, a reset in range.
func TestCardsCarryWhys(t *testing.T) {
	doc := state.Document{Sessions: []state.Session{{ID: "s1"}, {ID: "s2"}}}
	cs := host.CardSet{Whys: map[string]hookjson.Why{
		"s1":    {Kind: hookjson.WhyLimit, Words: "429", ResetsMs: 1796400000000},
		"s2":    {Kind: hookjson.WhyAuth},
		"gone1": {Kind: hookjson.WhyEnded}, // not on its board: not sent
	}}
	_, _, _, whys, err := decodeCards(encodeCards(cs, doc))
	if err != nil || len(whys) != 2 || whys["s1"] != cs.Whys["s1"] || whys["s2"] != cs.Whys["s2"] {
		t.Fatalf("decoded %v %+v", err, whys)
	}
	_, _, _, whys, err = decodeCards([]byte(`{"cards":[],"whys":{"s1":{"kind":"bogus","words":"a\u202eb\nc","resetsMs":-1}}}`))
	if err != nil || whys["s1"] != (hookjson.Why{Words: "a b c"}) {
		t.Fatalf("a hostile why: %v %+v", err, whys)
	}
}

func FuzzDecodeCards(f *testing.F) {
	f.Add([]byte(`{"cards":[{"key":"k1","session":"s1","tool":"Bash","nonce":"n","state":"waiting","sinceMs":5}],"agents":{"s1":"claude-code"}}`))
	f.Add([]byte(`{"cards":[{"key":"k","session":"s\u0000","tool":"<script>","state":"waiting"}]}`))
	f.Add([]byte(`{"cards":[{"key":"k","session":"s","tool":"Bash","always":"a","rules":["Bash","Read(\u2066x)"],"state":"waiting","sinceMs":1}]}`))                                                                       // rules of always allow
	f.Add([]byte(`{"cards":[{"key":"k","session":"s","tool":"AskUserQuestion","kind":"question","questions":[{"text":"Q\u202e?","options":[{"label":"<b>A"}]}],"state":"waiting","sinceMs":1}],"steer":["s","s\u0000"]}`)) // a question, rows to steer
	f.Add([]byte(`{"cards":[{"key":"k","session":"s","tool":"ExitPlanMode","kind":"plan","plan":"# P\n\u001b[2J","mode":"Approve","state":"waiting","sinceMs":1}]}`))                                                      // a plan
	f.Add([]byte(`{"cards":[],"whys":{"s":{"kind":"limit","words":"429\u202e resets <b>2pm","resetsMs":1796400000000},"t":{"kind":"bogus","resetsMs":-5}}}`))                                                              // whys, one hostile
	f.Fuzz(func(t *testing.T, data []byte) {
		cards, agents, steer, whys, err := decodeCards(data)
		if err != nil {
			return
		}
		for id, w := range whys {
			if !state.ValidSessionID(id) || w.Clean() != w || w.IsZero() || textrule.Has(w.Words) {
				t.Fatalf("why of %q let through: %+v", id, w)
			}
		}
		if len(cards) > maxWireCards || len(agents) > state.MaxSessions || len(steer) > state.MaxSessions {
			t.Fatalf("%d cards, %d agents, %d steered", len(cards), len(agents), len(steer))
		}
		for id := range steer {
			if !state.ValidSessionID(id) {
				t.Fatalf("steer row %q", id)
			}
		}
		for _, c := range cards {
			if !isToken(c.Key, 1, maxCardKey) || !state.ValidSessionID(c.Session) || (c.Nonce != "" && c.State != host.CardWaiting) ||
				len(c.Detail) > maxCardDetail || state.HasControl(c.Detail+c.Tool+c.Note) {
				t.Fatalf("a card let through: %+v", c)
			}
			if len(c.Questions) > hookjson.MaxQuestions || len(c.Plan) > hookjson.MaxPlan+len("\n…") || state.HasControl(c.Mode) {
				t.Fatalf("a question or plan let through: %+v", c)
			}
			for _, q := range c.Questions {
				if state.HasControl(q.Text+q.Header) || len(q.Options) > hookjson.MaxOptions {
					t.Fatalf("a question let through: %+v", q)
				}
			}
			if (c.Always == "") != (len(c.AlwaysRules) == 0) || (c.Always != "" && c.Always != hookjson.AlwaysLabel(c.AlwaysRules)) {
				t.Fatalf("always %q offered for the rules %q", c.Always, c.AlwaysRules)
			}
		}
	})
}

func FuzzDecodeAnswer(f *testing.F) {
	f.Add([]byte(`{"session":"s1","call":"c","nonce":"n","decision":"deny","message":"no\nway"}`))
	f.Add([]byte(`{"session":"","nonce":"n","decision":"allow"}`))
	// The hub's device: a name, one hostile, one long, one not text.
	f.Add([]byte(`{"session":"s1","nonce":"n","decision":"allow","device":"phone"}`))
	f.Add([]byte(`{"session":"s1","nonce":"n","decision":"allow","device":"ph\u202eone\n\u0000<b>"}`))
	f.Add([]byte(`{"session":"s1","nonce":"n","decision":"allow","device":"` + strings.Repeat("é", 300) + `"}`))
	f.Add([]byte(`{"session":"s1","nonce":"n","decision":"allow","device":7}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeAnswer(data)
		if err != nil {
			return
		}
		if r.Device == "" || len(r.Device) > host.MaxAnswerDevice || textrule.Has(r.Device) || !strings.HasSuffix(r.Device, "the hub") {
			t.Fatalf("the device %q let through", r.Device)
		}
		if !state.ValidSessionID(r.Session) || r.Nonce == "" || len(r.Nonce) > maxCardNonce || strings.ContainsAny(r.Message, "\n\r") {
			t.Fatalf("an answer let through: %+v", r)
		}
	})
}
