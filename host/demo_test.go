package host

import (
	"context"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// The demo shows its headline action: an approval card a person can
// answer (Allow once / Deny, a nonce), and when nobody does, the demo
// answers Allow once itself and the session goes on; a person's Deny is
// left as it is.
func TestDemoAsksAnswerably(t *testing.T) {
	for _, tc := range []struct {
		name        string
		person      string // a person's decision, "" for none
		wantOutcome string
		wantDevice  bool // the card says the demo answered
	}{
		{"nobody answers: the demo allows", "", OutcomeAllowed, true},
		{"a person denies", DecideDeny, OutcomeDenied, false},
		{"a person allows", DecideAllow, OutcomeAllowed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newApEnv(t, ApprovalConfig{Linger: time.Hour})
			times := demoAskTimes{SelfAnswer: time.Hour, Finish: time.Hour}
			if tc.person == "" {
				times.SelfAnswer = 0
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { e.h.demoAsk(ctx, 7, time.Now(), times); close(done) }()
			t.Cleanup(func() { cancel(); <-done })
			if tc.person != "" {
				cs := waitCards(t, e.h, nCards(1, CardWaiting))
				c := cs[0]
				if c.Session != "demo-7-release" || c.Nonce == "" || c.Tool != "Bash" || c.Always == "" {
					t.Fatalf("the demo's card: %+v, want an answerable Bash card with Always allow", c)
				}
				if _, err := e.h.Answer(AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: tc.person}); err != nil {
					t.Fatal(err)
				}
			}
			cs := waitCards(t, e.h, nCards(1, CardAnswered))
			if cs[0].Outcome != tc.wantOutcome {
				t.Errorf("outcome %q, want %q", cs[0].Outcome, tc.wantOutcome)
			}
			waitfor.Until(t, "the demo's turn to end", func() bool {
				r, ok := rows(t, e.h)["demo-7-release"]
				return ok && r.Status == state.StatusDone
			})
			e.h.approvals.mu.Lock()
			device := e.h.approvals.cards[cs[0].Key].device
			e.h.approvals.mu.Unlock()
			if got := device == DemoDevice; got != tc.wantDevice {
				t.Errorf("the answer's device %q; the demo's own: %v, want %v", device, got, tc.wantDevice)
			}
		})
	}
}

// The demo's session is closed out before the next loop starts.
func TestDemoAskFinishes(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.h.demoAsk(ctx, 1, time.Now(), demoAskTimes{})
	if _, ok := rows(t, e.h)["demo-1-release"]; ok {
		t.Fatalf("the demo's session stays after its loop: %v", rows(t, e.h))
	}
}
