package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/state"
)

// Reply and Stop for another machine's session (issue 30), as its
// approvals go: the hub's POST, behind the hub's locks, becomes a NATS
// request to notch.<machine>.steer, which only that machine receives and
// no machine may send (machinePerms). The machine applies it with its own
// Steer — its own pane facts, checks and log record — and replies with
// the outcome; a machine that is quiet or does not reply within steerWait
// is ErrMachineAway. Which of its rows take a reply the machine publishes
// with its cards (wireCards.Steer).

// steerWait bounds the hub's wait for the machine's reply: a reply's
// typing (its Enter comes up to 0.6 s after the text) and tmux's own time.
const steerWait = terminal.Timeout + 2*time.Second

// maxSteerBody bounds a steer request: a reply of terminal.MaxReply bytes,
// JSON-escaped.
const maxSteerBody = 8*terminal.MaxReply + 1024

// wireSteer is the hub's request to a machine.
type wireSteer struct {
	Session string `json:"session"`
	Text    string `json:"text,omitempty"`
	Stop    bool   `json:"stop,omitempty"`
}

// Refusal codes of a steer, each a host or terminal error.
var steerCodes = []struct {
	code string
	err  error
}{
	{"off", host.ErrSteerOff},
	{"no-terminal", host.ErrNoTerminal},
	{"no-tmux", terminal.ErrNoTmux},
	{"not-settled", host.ErrNotSettled},
	{"not-working", host.ErrNotWorking},
	{"text", terminal.ErrReplyText},
	{"gone", terminal.ErrGone},
	{"busy", terminal.ErrBusy},
	{"not-in-pane", terminal.ErrNotInPane},
	{"draft", terminal.ErrDraft},
	{"input-unread", host.ErrInputUnread},
	{"following", host.ErrFollowing},
}

func steerCode(err error) string {
	for _, c := range steerCodes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "failed"
}

func steerErr(code string) error {
	for _, c := range steerCodes {
		if c.code == code {
			return c.err
		}
	}
	return nil
}

// decodeSteer reads the hub's request strictly: a valid session, and a
// reply that passes terminal.CheckReply or a stop with no text.
func decodeSteer(data []byte) (host.SteerRequest, error) {
	if len(data) > maxSteerBody {
		return host.SteerRequest{}, errors.New("the request is too large")
	}
	var w wireSteer
	if err := jsonx.DecodeOne(data, &w, jsonx.Options{Strict: true}); err != nil {
		return host.SteerRequest{}, errors.New(jsonx.Reason(err))
	}
	if !state.ValidSessionID(w.Session) {
		return host.SteerRequest{}, errors.New("no valid session")
	}
	if w.Stop {
		if w.Text != "" {
			return host.SteerRequest{}, errors.New("a stop carries no text")
		}
		return host.SteerRequest{Session: w.Session, Stop: true}, nil
	}
	text, err := terminal.CheckReply(w.Text)
	if err != nil {
		return host.SteerRequest{}, err
	}
	return host.SteerRequest{Session: w.Session, Text: text}, nil
}

// Steerer applies a Reply or Stop for this machine's row: *host.Host's
// Steer.
type Steerer func(context.Context, host.SteerRequest) error

// SetSteerer gives a publishing machine the way to apply the hub's Reply
// and Stop (its host's Steer). Without one, every one is refused.
func (n *Node) SetSteerer(s Steerer) {
	n.boardMu.Lock()
	n.steer = s
	n.boardMu.Unlock()
}

// onSteer applies a Reply or Stop the hub sent and replies.
func (n *Node) onSteer(m *nats.Msg) {
	reply := func(r wireReply) {
		b, _ := json.Marshal(r)
		_ = m.Respond(b)
	}
	r, err := decodeSteer(m.Data)
	if err != nil {
		reply(wireReply{Code: "text", Error: err.Error()})
		return
	}
	n.boardMu.Lock()
	steer := n.steer
	n.boardMu.Unlock()
	if steer == nil {
		reply(wireReply{Code: "off", Error: host.ErrSteerOff.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), steerWait)
	defer cancel()
	if err := steer(ctx, r); err != nil {
		reply(wireReply{Code: steerCode(err), Error: err.Error()})
		return
	}
	n.log.Info("steered from the hub", "log_type", logx.TypeMesh, slog.Group("data", "session", r.Session, "stop", r.Stop, "bytes", len(r.Text)))
	reply(wireReply{OK: true})
}

// sendSteer is the hub's side: the request to the machine, its reply as
// nil or a host error.
func (n *Node) sendSteer(ctx context.Context, machine string, r host.SteerRequest) error {
	body, _ := json.Marshal(wireSteer{Session: r.Session, Text: r.Text, Stop: r.Stop})
	ctx, cancel := context.WithTimeout(ctx, steerWait)
	defer cancel()
	msg, err := n.nc.RequestWithContext(ctx, steerSubject(machine), body)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%w: %s is not connected to the hub; reply in its terminal", host.ErrMachineAway, machine)
	case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %s did not reply within %v, so whether the keys were typed is not known", host.ErrMachineAway, machine, steerWait)
	case err != nil:
		return fmt.Errorf("%w: %s could not be asked (%v)", host.ErrMachineAway, machine, err)
	}
	var rep wireReply
	if len(msg.Data) > maxAnswerBody || jsonx.DecodeOne(msg.Data, &rep, jsonx.Options{}) != nil {
		return fmt.Errorf("%w: %s replied with something that is not an answer", host.ErrMachineAway, machine)
	}
	if !rep.OK {
		if e := steerErr(rep.Code); e != nil {
			return e
		}
		return fmt.Errorf("%w: %s could not do it", host.ErrMachineAway, machine)
	}
	return nil
}

// Steer is host.Remote's: a Reply or Stop for another machine's row, sent
// to that machine. A machine that is not present is not asked.
func (r *remote) Steer(ctx context.Context, s host.SteerRequest) error {
	name, sid, ok := r.resolve(s.Session)
	if !ok || CheckName(name) != nil {
		return host.ErrNoTerminal
	}
	r.mu.Lock()
	m := r.machines[name]
	present := m != nil && m.present
	send := r.sendSteer
	r.mu.Unlock()
	if m == nil || send == nil {
		return host.ErrNoTerminal
	}
	if !present {
		return fmt.Errorf("%w: %s is quiet; reply in its terminal", host.ErrMachineAway, name)
	}
	s.Session = sid
	return send(ctx, name, s)
}
