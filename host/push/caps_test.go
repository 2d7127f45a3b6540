package push

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
)

func TestCapabilities(t *testing.T) {
	now := t0
	k := newCaps(func() time.Time { return now })
	card := Offer{Session: "s", Call: "c", Nonce: "n"}
	acts := k.mint(card, "sub-1", "phone", "https://b/act")
	if len(acts) != 2 || acts[0].ID != "allow" || acts[1].ID != "deny" || acts[0].Cap == acts[1].Cap || len(acts[0].Cap) < 43 {
		t.Fatalf("minted %+v", acts)
	}
	other := k.mint(card, "sub-2", "tablet", "https://b/act")

	if _, _, err := k.use("forged", "phone", false, anyone); !errors.Is(err, ErrCapUnknown) {
		t.Errorf("a forged capability: %v", err)
	}
	if _, _, err := k.use(acts[0].Cap, "tablet", false, anyone); !errors.Is(err, ErrCapDevice) {
		t.Errorf("another device's capability: %v", err)
	}
	if _, _, err := k.use(acts[0].Cap, "", false, anyone); !errors.Is(err, ErrCapDevice) {
		t.Errorf("a device's capability from no device, not local: %v", err)
	}
	req, _, err := k.use(acts[1].Cap, "phone", false, anyone)
	if err != nil || req != (host.AnswerRequest{Session: "s", Call: "c", Nonce: "n", Decision: host.DecideDeny}) {
		t.Fatalf("deny from its device: %+v %v", req, err)
	}
	if _, _, err := k.use(acts[1].Cap, "phone", false, anyone); !errors.Is(err, ErrCapUnknown) {
		t.Errorf("a replay: %v", err)
	}
	if _, _, err := k.use(acts[0].Cap, "phone", false, anyone); !errors.Is(err, ErrCapUnknown) {
		t.Errorf("allow after deny of the same pair: %v", err)
	}
	// The card is answered (here, by the deny; or in the terminal): the
	// other device's buttons go to the host, which says how (409, 410),
	// and a refused press spends nothing.
	k.settled("s", "c", nil)
	if _, seen, err := k.use(other[0].Cap, "tablet", false, anyone); err != nil || !errors.Is(seen, host.ErrAnswered) {
		t.Errorf("a button after the card was answered: %v, seen %v", err, seen)
	}
	k.refused(other[0].Cap)
	// A later word on the same card does not change the first.
	k.settled("s", "c", host.ErrAgentGone)
	if _, seen, err := k.use(other[1].Cap, "tablet", false, anyone); err != nil || !errors.Is(seen, host.ErrAnswered) || errors.Is(seen, host.ErrAgentGone) {
		t.Errorf("the pair's other button after a refused press: %v, seen %v", err, seen)
	}
	k.refused(other[1].Cap)
	now = now.Add(capKept + time.Second)
	k.mint(Offer{Session: "x", Call: "y", Nonce: "z"}, "r", "", "u") // sweeps
	if _, _, err := k.use(other[1].Cap, "tablet", false, anyone); !errors.Is(err, ErrCapUnknown) {
		t.Errorf("a forgotten capability: %v", err)
	}
	if k.size() != 2 {
		t.Errorf("%d capabilities kept, want the 2 live ones", k.size())
	}
}

func TestCapabilitiesLocalAndDeviceless(t *testing.T) {
	now := t0
	k := newCaps(func() time.Time { return now })
	a := k.mint(Offer{Session: "s", Call: "c", Nonce: "n"}, "sub", "phone", "u")
	if _, _, err := k.use(a[0].Cap, "", true, anyone); err != nil {
		t.Errorf("a request from this machine may use a device's capability: %v", err)
	}
	b := k.mint(Offer{Session: "s2", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
	if _, _, err := k.use(b[0].Cap, "", false, anyone); err != nil {
		t.Errorf("an ntfy button (no device) answers by its capability: %v", err)
	}
	c := k.mint(Offer{Session: "s3", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
	now = now.Add(capMaxAge + time.Second)
	if _, _, err := k.use(c[0].Cap, "", false, anyone); !errors.Is(err, ErrCapUnknown) {
		t.Errorf("an expired capability: %v", err)
	}
}

// anyone lets every device answer (no roles).
func anyone(string) bool { return true }

// A capability minted for a device whose role is now below answer is
// refused, nothing spent, whoever presses it (this machine too); so is a
// press from such a device on a deviceless capability (ntfy's). Raised
// again, the same capability works.
func TestCapabilitiesFollowTheRole(t *testing.T) {
	k := newCaps(func() time.Time { return t0 })
	may := map[string]bool{"phone": true, "tablet": true}
	role := func(d string) bool { return may[d] }
	a := k.mint(Offer{Session: "s", Call: "c", Nonce: "n"}, "sub", "phone", "u")
	may["phone"] = false // lowered after the push went out
	for _, tc := range []struct {
		device string
		local  bool
	}{{"phone", false}, {"", true}} {
		if _, _, err := k.use(a[0].Cap, tc.device, tc.local, role); !errors.Is(err, ErrCapRole) {
			t.Errorf("the lowered phone's capability pressed by %q (local %v): %v, want ErrCapRole", tc.device, tc.local, err)
		}
	}
	n := k.mint(Offer{Session: "s2", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
	if _, _, err := k.use(n[0].Cap, "phone", false, role); !errors.Is(err, ErrCapRole) {
		t.Errorf("an ntfy button pressed from the lowered phone's browser: %v, want ErrCapRole", err)
	}
	if _, _, err := k.use(n[0].Cap, "tablet", false, role); err != nil {
		t.Errorf("the same button from the tablet: %v", err)
	}
	may["phone"] = true
	if _, _, err := k.use(a[1].Cap, "phone", false, role); err != nil {
		t.Errorf("raised again, the phone's capability: %v (a refusal for the role spends nothing)", err)
	}
}

func TestCapabilitiesAreBounded(t *testing.T) {
	k := newCaps(func() time.Time { return t0 })
	first := k.mint(Offer{Session: "s0", Call: "c", Nonce: "n"}, "r", "", "u")
	for i := 0; i < maxCaps; i++ {
		k.mint(Offer{Session: "s", Call: "c", Nonce: "n"}, "r", "", "u")
	}
	if n := k.size(); n > maxCaps+2 {
		t.Errorf("%d capabilities kept, bound %d", n, maxCaps)
	}
	if _, _, err := k.use(first[0].Cap, "", false, anyone); !errors.Is(err, ErrCapUnknown) {
		t.Errorf("the oldest beyond the bound is dropped: %v", err)
	}
}

// A question's push offers its first two options when one option answers
// the card, each a capability that answers with that option alone, the
// pair spent by the first press; a question it cannot answer in one press
// offers Decline; a plan's says Approve and Keep planning.
func TestCapabilitiesOfQuestionsAndPlans(t *testing.T) {
	k := newCaps(func() time.Time { return t0 })
	q := k.mint(Offer{Session: "s", Call: "q", Nonce: "n", Kind: host.KindQuestion}, "r", "", "u")
	if len(q) != 1 || q[0].ID != "deny" || q[0].Label != "Decline" {
		t.Fatalf("a question with no options to press: %+v", q)
	}
	p := k.mint(Offer{Session: "s", Call: "p", Nonce: "n", Kind: host.KindPlan}, "r", "", "u")
	if len(p) != 2 || p[0].Label != "Approve" || p[1].Label != "Keep planning" {
		t.Fatalf("a plan's actions %+v", p)
	}
	long := strings.Repeat("x", 100)
	o := k.mint(Offer{Session: "s", Call: "o", Nonce: "n2", Kind: host.KindQuestion, Options: []string{"Teal\u202e<b>", long, "Coral"}}, "sub", "phone", "u")
	if len(o) != MaxOptionActions || o[0].ID != "option-0" || o[1].ID != "option-1" || o[0].Label != "Teal <b>" ||
		len(o[1].Label) > maxOptionLabel+len("…") || o[0].Cap == o[1].Cap {
		t.Fatalf("a question's option buttons %+v", o)
	}
	req, _, err := k.use(o[1].Cap, "phone", false, anyone)
	if err != nil || req.Decision != host.DecideAnswer || req.Answers == nil || len(*req.Answers) != 1 ||
		len((*req.Answers)[0].Options) != 1 || (*req.Answers)[0].Options[0] != 1 || (*req.Answers)[0].Other != "" ||
		req.Session != "s" || req.Call != "o" || req.Nonce != "n2" {
		t.Fatalf("the second option's answer: %+v %v", req, err)
	}
	if _, _, err := k.use(o[0].Cap, "phone", false, anyone); !errors.Is(err, ErrCapUnknown) {
		t.Fatalf("the other option once one is pressed: %v, want it spent", err)
	}
}

// An answer through a channel's button, with no device known, is kept as
// the channel: its kind and the name the channels file gives it.
func TestAnsweredThrough(t *testing.T) {
	for _, tc := range []struct{ recipient, want string }{
		{"ntfy:phone", "ntfy phone"},
		{"webhook:team-chat", "webhook team-chat"},
		{"sub-1", ""}, // a Web Push subscription: its device is the request's
		{"ntfy", ""},
		{"", ""},
	} {
		if got := answeredThrough(tc.recipient); got != tc.want {
			t.Errorf("answeredThrough(%q) = %q, want %q", tc.recipient, got, tc.want)
		}
	}
	k := newCaps(func() time.Time { return t0 })
	a := k.mint(Offer{Session: "s", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
	if req, _, err := k.use(a[0].Cap, "", false, anyone); err != nil || req.Device != "ntfy phone" {
		t.Fatalf("an ntfy button's answer: %+v %v", req, err)
	}
}

// A press is spent while the host has it: the pair's other button (and a
// replay) is refused as used; a press the host refused gives the pair back.
func TestARefusedPressSpendsNothing(t *testing.T) {
	k := newCaps(func() time.Time { return t0 })
	a := k.mint(Offer{Session: "s", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
	for _, step := range []struct {
		cap    string
		refuse bool // the host refuses this press
		want   error
	}{
		{a[0].Cap, true, nil},
		{a[0].Cap, true, nil}, // the same button again: not spent
		{a[1].Cap, false, nil},
		{a[1].Cap, false, ErrCapUnknown}, // answered: a replay
		{a[0].Cap, false, ErrCapUnknown}, // and its pair
	} {
		_, _, err := k.use(step.cap, "", false, anyone)
		if !errors.Is(err, step.want) || (err == nil) != (step.want == nil) {
			t.Fatalf("use: %v, want %v", err, step.want)
		}
		if err == nil && step.refuse {
			if _, _, err := k.use(a[1].Cap, "", false, anyone); !errors.Is(err, ErrCapUnknown) {
				t.Fatalf("the pair while a press is with the host: %v, want it refused as used", err)
			}
			k.refused(step.cap)
		}
	}
}

// A push to a device whose role may not answer carries no action (its
// message still says the session needs you); to one that may, the pair.
func TestNoActionsForADeviceThatMayNotAnswer(t *testing.T) {
	e := &Engine{caps: newCaps(func() time.Time { return t0 }), now: func() time.Time { return t0 },
		opts: Options{ActURL: "https://b/act", MayAnswer: func(d string) bool { return d == "tablet" }}}
	m := e.message(Row{ID: "r", Title: "t", Offer: &Offer{Session: "s", Call: "c", Nonce: "n"}}, KindNeedsYou, t0)
	if m.Mint == nil {
		t.Fatal("no Mint on a needs-you message with an offer")
	}
	if acts := m.Mint("sub-1", "phone"); len(acts) != 0 {
		t.Errorf("a view phone's push carries %d actions, want none", len(acts))
	}
	if acts := m.Mint("sub-2", "tablet"); len(acts) != 2 {
		t.Errorf("an answer tablet's push carries %d actions, want 2", len(acts))
	}
	if acts := m.Mint("ntfy:x", ""); len(acts) != 2 {
		t.Errorf("an ntfy push (no device) carries %d actions, want 2", len(acts))
	}
}

// How a card that stopped waiting settled, as a press on it is told once
// the host has forgotten it: its agent ended or its row was closed out
// 410, answered (anywhere) or not known 409; the capabilities keep it.
func TestSettledAs(t *testing.T) {
	card := func(by string) host.Card {
		return host.Card{Session: "s", Call: "c", State: host.CardAnswered, By: by}
	}
	for _, c := range []struct {
		name  string
		cards []host.Card
		want  error
	}{
		{"its agent ended", []host.Card{card(host.ByGone)}, host.ErrAgentGone},
		{"its row closed out", []host.Card{card(host.ByClosed)}, host.ErrAgentGone},
		{"answered in the terminal", []host.Card{card(host.ByTerminal)}, host.ErrAnswered},
		{"answered on the board", []host.Card{card(host.ByBoard)}, host.ErrAnswered},
		{"no longer in the set", nil, host.ErrAnswered},
		{"another card's end", []host.Card{{Session: "s", Call: "other", State: host.CardAnswered, By: host.ByGone}}, host.ErrAnswered},
	} {
		k := newCaps(time.Now)
		acts := k.mint(Offer{Session: "s", Call: "c", Nonce: "n"}, "r", "", "u")
		k.settled("s", "c", settledAs(host.CardSet{Cards: c.cards}, [2]string{"s", "c"}))
		_, seen, err := k.use(acts[0].Cap, "", true, func(string) bool { return true })
		if err != nil || !errors.Is(seen, c.want) || (c.want == host.ErrAnswered && errors.Is(seen, host.ErrAgentGone)) {
			t.Errorf("%s: seen %v, %v; want %v", c.name, seen, err, c.want)
		}
	}
}
