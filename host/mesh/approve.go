package mesh

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/udiff"
	"github.com/notch-web/notch-web/state"
)

// Approvals of another machine's session (issue 21 with issue 20). A
// machine publishes its approval cards beside its board
// (notch.m.<machine>.cards, live only: a held hook lasts seconds, and the
// machine sends them again whenever it reconnects). The hub draws them under
// that machine's rows; a click on the hub's board goes, behind the hub's
// own locks, as a NATS request to notch.m.<machine>.approve, which only that
// machine receives (the hub's permissions) and which no machine may send
// (not even to itself). The machine applies it with its own Answer — the
// same code path, nonce and first-answer-wins rules as a click on its own
// board — and replies with the outcome, which the hub turns into the same
// HTTP statuses. A machine that is quiet, or does not reply within
// answerWait, is ErrMachineAway: never a silent success.

// answerWait bounds how long the hub waits for the machine's reply.
const answerWait = 3 * time.Second

// Bounds of a machine's published cards.
const (
	maxWireCards = 200     // cards of one machine
	maxWireBytes = 1 << 20 // one message
	// maxWireChanges are the cards (waiting first) that carry their
	// diff and command: each is bounded (udiff.CardLimits, 8 KiB), and
	// eight of them fit a message with room.
	maxWireChanges = 8
	maxCardKey     = 24  // a card's key (12 base64url characters here)
	maxCardNonce   = 64  // a card's nonce (43 here)
	maxCardDetail  = 300 // as host's
	maxAnswerBody  = 8 << 10
	maxWireRules   = 64 // rules of one card's "always allow" (a suggestion is at most 4 KiB)
)

// wireCard is one card as a machine publishes it.
type wireCard struct {
	Key     string `json:"key"`
	Session string `json:"session"`
	Call    string `json:"call,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Tool    string `json:"tool"`
	Detail  string `json:"detail,omitempty"`
	Note    string `json:"note,omitempty"`
	Always  string `json:"always,omitempty"`
	// Rules are every rule "always allow" grants, in full: the hub shows
	// them all, and offers no "always" without them.
	Rules []string `json:"rules,omitempty"`
	Kind  string   `json:"kind,omitempty"`
	// Questions and Plan are a question's or a plan's card's, as shown;
	// Mode the words of its "allow and switch mode".
	Questions []wireQuestion `json:"questions,omitempty"`
	Plan      string         `json:"plan,omitempty"`
	// Files, Command and Cwd are the change the call asks for
	// (host.Card's), sent for the first maxWireChanges cards only.
	Files   []wireChangedFile `json:"files,omitempty"`
	Command string            `json:"command,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Mode    string            `json:"mode,omitempty"`
	Nonce   string            `json:"nonce,omitempty"`
	State   string            `json:"state"`
	Outcome string            `json:"outcome,omitempty"`
	By      string            `json:"by,omitempty"`
	SinceMs int64             `json:"sinceMs"`
}

// wireQuestion is one question of a question card, as shown.
type wireQuestion struct {
	Text    string       `json:"text"`
	Header  string       `json:"header,omitempty"`
	Multi   bool         `json:"multi,omitempty"`
	Options []wireOption `json:"options,omitempty"`
}

type wireOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

func encodeQuestions(qs []hookjson.Question) []wireQuestion {
	var out []wireQuestion
	for _, q := range qs {
		w := wireQuestion{Text: q.Text, Header: q.Header, Multi: q.Multi}
		for _, o := range q.Options {
			w.Options = append(w.Options, wireOption{Label: o.Label, Description: o.Description})
		}
		out = append(out, w)
	}
	return out
}

// decodeQuestions reads a card's questions as text, each bounded as the
// host bounds its own; too many is none (the card cannot be answered).
func decodeQuestions(ws []wireQuestion) ([]hookjson.Question, bool) {
	if len(ws) > hookjson.MaxQuestions {
		return nil, false
	}
	var out []hookjson.Question
	for _, w := range ws {
		if len(w.Options) > hookjson.MaxOptions {
			return nil, false
		}
		q := hookjson.Question{Text: hookjson.OneLine(w.Text, hookjson.MaxQuestionText), Header: hookjson.OneLine(w.Header, hookjson.MaxTool), Multi: w.Multi}
		for _, o := range w.Options {
			q.Options = append(q.Options, hookjson.Option{Label: hookjson.OneLine(o.Label, hookjson.MaxOptionLabel), Description: hookjson.OneLine(o.Description, hookjson.MaxOptionDetail)})
		}
		out = append(out, q)
	}
	return out, true
}

// wireCards is a machine's cards, and which agent each of its rows
// is (its badge, its context meter's words, the note of a row that asks
// with no card).
type wireCards struct {
	Cards  []wireCard        `json:"cards"`
	Agents map[string]string `json:"agents,omitempty"`
	// Steer are the rows that take Reply and Stop (steer.go).
	Steer []string `json:"steer,omitempty"`
	// Whys are why its rows stopped (host/why.go).
	Whys map[string]wireWhy `json:"whys,omitempty"`
}

// wireWhy is a hookjson.Why on the wire.
type wireWhy struct {
	Kind     string `json:"kind,omitempty"`
	Words    string `json:"words,omitempty"`
	ResetsMs int64  `json:"resetsMs,omitempty"`
}

// encodeCards is what a machine publishes of its cards: at most
// maxWireCards (the waiting ones first, then the newest), and the agent of
// each row of its board (its badge and words on a hub, as here).
func encodeCards(cs host.CardSet, doc state.Document) []byte {
	cards := slices.Clone(cs.Cards)
	slices.SortStableFunc(cards, func(a, b host.Card) int {
		aw, bw := a.State == host.CardWaiting, b.State == host.CardWaiting
		switch {
		case aw && !bw:
			return -1
		case bw && !aw:
			return 1
		}
		return b.Since.Compare(a.Since)
	})
	if len(cards) > maxWireCards {
		cards = cards[:maxWireCards]
	}
	w := wireCards{Cards: make([]wireCard, 0, len(cards))}
	for _, c := range cards {
		w.Cards = append(w.Cards, wireCard{
			Key: c.Key, Session: c.Session, Call: c.Call, Agent: c.Agent, Tool: c.Tool,
			Detail: c.Detail, Note: c.Note, Always: c.Always, Rules: c.AlwaysRules, Nonce: c.Nonce,
			Kind: c.Kind, Questions: encodeQuestions(c.Questions), Plan: c.Plan, Mode: c.Mode,
			State: c.State, Outcome: c.Outcome, By: c.By, SinceMs: c.Since.UnixMilli(),
		})
		if len(w.Cards) <= maxWireChanges {
			wc := &w.Cards[len(w.Cards)-1]
			wc.Command, wc.Cwd = c.Command, c.Cwd
			for _, f := range c.Files {
				wc.Files = append(wc.Files, wireFile(f.File(), false))
			}
		}
	}
	for _, s := range doc.Sessions {
		if a := cs.Agents[s.ID]; a != "" {
			if w.Agents == nil {
				w.Agents = map[string]string{}
			}
			w.Agents[s.ID] = a
		}
	}
	for _, s := range doc.Sessions {
		if cs.Steer[s.ID] {
			w.Steer = append(w.Steer, s.ID)
		}
		if y, ok := cs.Whys[s.ID]; ok {
			if w.Whys == nil {
				w.Whys = map[string]wireWhy{}
			}
			w.Whys[s.ID] = wireWhy{Kind: y.Kind, Words: y.Words, ResetsMs: y.ResetsMs}
		}
	}
	b, _ := json.Marshal(w)
	return b
}

// decodeCards reads a machine's published cards: one JSON object of known
// fields, bounded; every string one line of shown text, cut to its bound;
// a card with no key, session or tool, or of an unknown state, is dropped.
func decodeCards(data []byte) ([]host.Card, map[string]string, map[string]bool, map[string]hookjson.Why, error) {
	if len(data) > maxWireBytes {
		return nil, nil, nil, nil, errors.New("the cards are too large")
	}
	var w wireCards
	if err := jsonx.DecodeOne(data, &w, jsonx.Options{Strict: true}); err != nil {
		return nil, nil, nil, nil, errors.New(jsonx.Reason(err))
	}
	if len(w.Cards) > maxWireCards || len(w.Agents) > state.MaxSessions || len(w.Whys) > state.MaxSessions {
		return nil, nil, nil, nil, errors.New("too many cards")
	}
	cards := make([]host.Card, 0, len(w.Cards))
	for _, c := range w.Cards {
		k := host.Card{
			Key: c.Key, Session: c.Session, Call: c.Call,
			Agent:   hookjson.OneLine(c.Agent, 32),
			Tool:    hookjson.OneLine(c.Tool, hookjson.MaxTool),
			Detail:  hookjson.OneLine(c.Detail, maxCardDetail),
			Note:    hookjson.OneLine(c.Note, hookjson.MaxReason),
			Nonce:   c.Nonce,
			Kind:    c.Kind,
			Plan:    hookjson.PlanText(c.Plan),
			Mode:    hookjson.OneLine(c.Mode, hookjson.MaxReason),
			State:   c.State,
			Outcome: hookjson.OneLine(c.Outcome, 32),
			By:      hookjson.OneLine(c.By, 32),
			Since:   time.UnixMilli(c.SinceMs),
			Command: state.Cut(textrule.Escape(c.Command, "\n\t"), 8<<10),
			Cwd:     state.Cut(textrule.Escape(c.Cwd, ""), 1024),
		}
		used := 0
		for i, wf := range c.Files {
			if i >= 16 {
				break
			}
			f := decodeFile(wf, udiff.CardLimits, udiff.CardLimits.Bytes, &used)
			k.Files = append(k.Files, host.CardFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, View: f.View})
		}
		// "Always allow" grants the rules, not the label: the label is
		// made here from them, and with no rule (or one that cannot be
		// shown as it is) none is offered.
		if len(c.Rules) <= maxWireRules && c.Always != "" {
			if k.Always = hookjson.AlwaysLabel(c.Rules); k.Always != "" {
				k.AlwaysRules = c.Rules
			}
		}
		qs, ok := decodeQuestions(c.Questions)
		k.Questions = qs
		switch {
		case !ok, k.Kind != host.KindPermission && k.Kind != host.KindQuestion && k.Kind != host.KindPlan:
			continue
		case !isToken(k.Key, 1, maxCardKey), !state.ValidSessionID(k.Session), k.Tool == "",
			k.Call != "" && !state.ValidSessionID(k.Call):
			continue
		case k.State != host.CardWaiting && k.State != host.CardTerminal && k.State != host.CardAnswered:
			continue
		}
		if k.State != host.CardWaiting || !isToken(k.Nonce, 1, maxCardNonce) {
			k.Nonce = "" // only a waiting card can be answered
			if k.State == host.CardWaiting {
				k.State = host.CardTerminal
			}
		}
		cards = append(cards, k)
	}
	agents := map[string]string{}
	for id, a := range w.Agents {
		if state.ValidSessionID(id) {
			agents[id] = hookjson.OneLine(a, 32)
		}
	}
	if len(w.Steer) > state.MaxSessions {
		return nil, nil, nil, nil, errors.New("too many rows")
	}
	steer := map[string]bool{}
	for _, id := range w.Steer {
		if state.ValidSessionID(id) {
			steer[id] = true
		}
	}
	// Every why is made fit to show here: a known kind or none, one line
	// of bounded words, a reset in range.
	whys := map[string]hookjson.Why{}
	for id, y := range w.Whys {
		if why := (hookjson.Why{Kind: y.Kind, Words: y.Words, ResetsMs: y.ResetsMs}).Clean(); state.ValidSessionID(id) && !why.IsZero() {
			whys[id] = why
		}
	}
	return cards, agents, steer, whys, nil
}

// wireAnswer is the hub's request to a machine: a click on its card.
type wireAnswer struct {
	Session  string            `json:"session"`
	Call     string            `json:"call"`
	Nonce    string            `json:"nonce"`
	Decision string            `json:"decision"`
	Message  string            `json:"message,omitempty"`
	Answers  []hookjson.Choice `json:"answers,omitempty"`
	// Device is the hub's paired device the click came from, by its name
	// ("" for the hub's own computer); the machine keeps it in its history
	// as a device of the hub's (viaHub).
	Device string `json:"device,omitempty"`
}

// viaHub is where an answer from the hub was given, as the machine's
// history keeps it: the hub's device, said to be the hub's (a device of
// this machine's may have the same name), or the hub itself when the hub
// names none — never "" there, which is this machine's own computer.
func viaHub(device string) string {
	const via = " via the hub"
	if device = hookjson.OneLine(device, host.MaxAnswerDevice-len(via)); device == "" {
		return "the hub"
	}
	return device + via
}

// wireReply is the machine's reply: the outcome, or the refusal as one of
// the codes below and its words.
type wireReply struct {
	OK      bool   `json:"ok"`
	Outcome string `json:"outcome,omitempty"`
	Code    string `json:"code,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Refusal codes: each a host error, so the hub answers its page with the
// status a local click would get.
var answerCodes = []struct {
	code string
	err  error
}{
	{"nonce", host.ErrNonce},
	{"answered", host.ErrAnswered},
	{"not-held", host.ErrNotHeld},
	{"off", host.ErrApprovalsOff},
	{"decision", host.ErrDecision},
	{"following", host.ErrFollowing},
}

func codeOf(err error) string {
	for _, c := range answerCodes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "failed"
}

func errOfCode(code string) error {
	for _, c := range answerCodes {
		if c.code == code {
			return c.err
		}
	}
	return nil
}

// decodeAnswer reads the hub's request strictly, as the page's POST is
// read: a valid session and call, a nonce, a known decision, a one-line
// message.
func decodeAnswer(data []byte) (host.AnswerRequest, error) {
	if len(data) > maxAnswerBody {
		return host.AnswerRequest{}, errors.New("the answer is too large")
	}
	var w wireAnswer
	if err := jsonx.DecodeOne(data, &w, jsonx.Options{Strict: true}); err != nil {
		return host.AnswerRequest{}, errors.New(jsonx.Reason(err))
	}
	switch {
	case !state.ValidSessionID(w.Session):
		return host.AnswerRequest{}, errors.New("no valid session")
	case w.Call != "" && !state.ValidSessionID(w.Call):
		return host.AnswerRequest{}, errors.New("no valid call")
	case w.Nonce == "" || len(w.Nonce) > maxCardNonce:
		return host.AnswerRequest{}, errors.New("no valid nonce")
	}
	switch w.Decision {
	case host.DecideAllow, host.DecideDeny, host.DecideAlways, host.DecideMode, host.DecideAnswer:
	default:
		return host.AnswerRequest{}, errors.New("no valid decision")
	}
	if err := hookjson.CheckChoices(w.Answers); err != nil || (w.Decision == host.DecideAnswer) != (len(w.Answers) > 0) {
		return host.AnswerRequest{}, errors.New("no valid answers")
	}
	r := host.AnswerRequest{Session: w.Session, Call: w.Call, Nonce: w.Nonce, Decision: w.Decision,
		Message: hookjson.OneLine(w.Message, hookjson.MaxDecisionMessage),
		Device:  viaHub(w.Device)}
	if w.Answers != nil {
		r.Answers = &w.Answers
	}
	return r, nil
}

// Answerer applies a click on this machine's card: *host.Host's Answer.
type Answerer func(host.AnswerRequest) (host.Card, error)

// SetAnswerer gives a publishing machine the way to apply the hub's
// answers (its host's Answer). Without one, every answer is refused.
func (n *Node) SetAnswerer(a Answerer) {
	n.boardMu.Lock()
	n.answer = a
	n.boardMu.Unlock()
}

// onApprove applies an answer the hub sent for one of this machine's
// cards and replies with the outcome.
func (n *Node) onApprove(m *nats.Msg) {
	reply := func(r wireReply) {
		b, _ := json.Marshal(r)
		_ = m.Respond(b)
	}
	r, err := decodeAnswer(m.Data)
	if err != nil {
		reply(wireReply{Code: "decision", Error: err.Error()})
		return
	}
	n.boardMu.Lock()
	answer := n.answer
	n.boardMu.Unlock()
	if answer == nil {
		reply(wireReply{Code: "off", Error: host.ErrApprovalsOff.Error()})
		return
	}
	c, err := answer(r)
	if err != nil {
		reply(wireReply{Code: codeOf(err), Error: err.Error()})
		return
	}
	n.log.Info("approval answered from the hub", "log_type", logx.TypeMesh, slog.Group("data", "session", r.Session, "outcome", c.Outcome))
	reply(wireReply{OK: true, Outcome: c.Outcome})
}

// sendAnswer is the hub's side: the request to the machine, its reply as
// a host outcome or error.
func (n *Node) sendAnswer(machine string, r host.AnswerRequest) (host.Card, error) {
	w := wireAnswer{Session: r.Session, Call: r.Call, Nonce: r.Nonce, Decision: r.Decision, Message: r.Message, Answers: derefChoices(r.Answers),
		Device: host.AnswerDevice(r.Device)}
	rep, err := n.askMachine(machine, w)
	if err == nil && !rep.OK && rep.Code == "decision" && w.Device != "" && rep.Error == `unknown field "device"` {
		// A machine from before devices went with answers reads the
		// answer strictly and refuses the field before it looks at the
		// card (the nonce is not spent): asked again without it, its
		// history says the hub's board answered, on no device.
		w.Device = ""
		rep, err = n.askMachine(machine, w)
	}
	if err != nil {
		return host.Card{}, err
	}
	if !rep.OK {
		if e := errOfCode(rep.Code); e != nil {
			return host.Card{}, e
		}
		return host.Card{}, fmt.Errorf("%w: %s could not apply the answer: %s", host.ErrMachineAway, machine, hookjson.OneLine(rep.Error, 200))
	}
	return host.Card{Session: rowID(machine, r.Session), Call: r.Call, State: host.CardAnswered, By: host.ByBoard,
		Outcome: hookjson.OneLine(rep.Outcome, 32)}, nil
}

// askMachine sends the hub's answer w to machine and reads its reply.
func (n *Node) askMachine(machine string, w wireAnswer) (wireReply, error) {
	body, _ := json.Marshal(w)
	msg, err := n.nc.Request(approveSubject(machine), body, answerWait)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return wireReply{}, fmt.Errorf("%w: %s is not connected to the hub; answer in its terminal", host.ErrMachineAway, machine)
	case errors.Is(err, nats.ErrTimeout):
		return wireReply{}, fmt.Errorf("%w: %s did not reply within %v, so whether it took the answer is not known; its card will say when it is back", host.ErrMachineAway, machine, answerWait)
	case err != nil:
		return wireReply{}, fmt.Errorf("%w: %s could not be asked (%v)", host.ErrMachineAway, machine, err)
	}
	var rep wireReply
	if len(msg.Data) > maxAnswerBody || jsonx.DecodeOne(msg.Data, &rep, jsonx.Options{}) != nil {
		return wireReply{}, fmt.Errorf("%w: %s replied with something that is not an answer", host.ErrMachineAway, machine)
	}
	return rep, nil
}

// setCards records a machine's published cards (the last good ones stay
// when a message is malformed); a name the hub has not paired now
// (revoked) has none.
func (r *remote) setCards(name string, data []byte) {
	cards, agents, steer, whys, err := decodeCards(data)
	if err != nil {
		return
	}
	r.mu.Lock()
	if r.allowed != nil && !r.allowed(name) {
		r.mu.Unlock()
		return
	}
	m := r.get(name)
	m.cards, m.agents, m.steer, m.whys = cards, agents, steer, whys
	changed := r.changed
	r.mu.Unlock()
	changed()
}

// Cards is host.Remote's: every other machine's cards, keyed by the rows'
// ids on this board; a quiet machine's cannot be answered (no nonce, "answer
// in the terminal").
func (r *remote) Cards() host.CardSet {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out host.CardSet
	for name, m := range r.machines {
		if name == r.self || m.doc == nil {
			continue
		}
		for _, c := range m.cards {
			c.Key = name + "-" + c.Key
			c.Session = rowID(name, c.Session)
			if !m.present && c.State == host.CardWaiting {
				c.State, c.Nonce = host.CardTerminal, ""
			}
			out.Cards = append(out.Cards, c)
		}
		for id, a := range m.agents {
			if out.Agents == nil {
				out.Agents = map[string]string{}
			}
			out.Agents[rowID(name, id)] = a
		}
		for id, y := range m.whys {
			if out.Whys == nil {
				out.Whys = map[string]hookjson.Why{}
			}
			out.Whys[rowID(name, id)] = y
		}
		for id := range m.steer {
			if !m.present {
				break // a quiet machine takes nothing
			}
			if out.Steer == nil {
				out.Steer = map[string]bool{}
			}
			out.Steer[rowID(name, id)] = true
		}
	}
	slices.SortFunc(out.Cards, func(a, b host.Card) int {
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// Answer is host.Remote's: a click on another machine's card, sent to
// that machine. A machine that is not present is not asked.
func (r *remote) Answer(a host.AnswerRequest) (host.Card, error) {
	name, sid, ok := r.resolve(a.Session)
	if !ok || CheckName(name) != nil {
		return host.Card{}, host.ErrNonce
	}
	r.mu.Lock()
	m := r.machines[name]
	present, lastSeen := m != nil && m.present, int64(0)
	if m != nil {
		lastSeen = m.lastSeen
	}
	send := r.sendAns
	r.mu.Unlock()
	if m == nil || send == nil {
		return host.Card{}, host.ErrNonce
	}
	if !present {
		when := "never heard from"
		if lastSeen > 0 {
			when = "last heard from " + time.Since(time.UnixMilli(lastSeen)).Round(time.Second).String() + " ago"
		}
		return host.Card{}, fmt.Errorf("%w: %s is quiet (%s); answer in its terminal", host.ErrMachineAway, name, when)
	}
	a.Session = sid
	return send(name, a)
}

func derefChoices(c *[]hookjson.Choice) []hookjson.Choice {
	if c == nil {
		return nil
	}
	return *c
}
