package host

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// answers is a Recorder that keeps the answers it is handed.
type answers struct {
	mu  sync.Mutex
	got []RecordedAnswer
}

func (r *answers) RecordEvents([]RecordedEvent)          {}
func (r *answers) RecordCost(string, float64, time.Time) {}
func (r *answers) RecordWhy(RecordedWhy)                 {}
func (r *answers) RecordAnswer(a RecordedAnswer) {
	r.mu.Lock()
	r.got = append(r.got, a)
	r.mu.Unlock()
}

func (r *answers) all() []RecordedAnswer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedAnswer(nil), r.got...)
}

// The history keeps where a card was answered: the device a board click or
// a push's button names (as one line of text, bounded), nothing for a click
// from this computer, and nothing for the terminal or a hold's end even
// when a click names a device afterwards (the first answer wins, and it
// had none).
func TestAnswersRecordTheirDevice(t *testing.T) {
	for _, tc := range []struct {
		name           string
		by, device     string // the request's
		terminal       bool   // the terminal answers first
		hold           bool   // the hold ends first
		wantBy, wantOn string
	}{
		{name: "board, a paired phone", device: "phone", wantBy: ByBoard, wantOn: "phone"},
		{name: "board, this computer", device: "", wantBy: ByBoard, wantOn: ""},
		{name: "push, its device", by: ByPush, device: "Pixel 9", wantBy: ByPush, wantOn: "Pixel 9"},
		{name: "push, an ntfy channel", by: ByPush, device: "ntfy alerts", wantBy: ByPush, wantOn: "ntfy alerts"},
		{name: "a hostile name is one line of text", device: "ph\u202eone\n<b>x</b>\x00", wantBy: ByBoard, wantOn: "ph one <b>x</b>"},
		{name: "terminal first", device: "phone", terminal: true, wantBy: ByTerminal, wantOn: ""},
		{name: "hold's end first", device: "phone", hold: true, wantBy: ByHold, wantOn: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ApprovalConfig{}
			if tc.hold {
				cfg.Hold = 100 * time.Millisecond
			}
			e := newApEnv(t, cfg)
			rec := &answers{}
			e.h.Board().SetRecorder(rec)
			e.send(t, e.hook("UserPromptSubmit", ""))
			hr, c := e.ask(context.Background(), t, "toolu_1", "make test")
			switch {
			case tc.terminal:
				e.send(t, e.hook("PostToolUse", bashCall("toolu_1", "make test")))
				hr.get(t)
				waitCards(t, e.h, nCards(1, CardAnswered))
			case tc.hold:
				hr.get(t)
				waitCards(t, e.h, nCards(1, CardTerminal))
			}
			_, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: DecideAllow, By: tc.by, Device: tc.device})
			if (err == nil) != (!tc.terminal && !tc.hold) {
				t.Fatalf("answer: %v", err)
			}
			waitfor.Until(t, "the answer recorded", func() bool { return len(rec.all()) > 0 })
			got := rec.all()
			if len(got) != 1 || got[0].By != tc.wantBy || got[0].Device != tc.wantOn {
				t.Fatalf("recorded %+v; want one by %q on %q", got, tc.wantBy, tc.wantOn)
			}
		})
	}
}
