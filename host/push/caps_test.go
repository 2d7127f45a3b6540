package push

import (
	"errors"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
)

func TestCapabilities(t *testing.T) {
	now := t0
	k := newCaps(func() time.Time { return now })
	card := host.Card{Session: "s", Call: "c", Nonce: "n"}
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
	k.settled("s", "c")
	if _, answered, err := k.use(other[0].Cap, "tablet", false, anyone); err != nil || !answered {
		t.Errorf("a button after the card was answered: %v answered=%v", err, answered)
	}
	k.refused(other[0].Cap)
	if _, answered, err := k.use(other[1].Cap, "tablet", false, anyone); err != nil || !answered {
		t.Errorf("the pair's other button after a refused press: %v answered=%v", err, answered)
	}
	k.refused(other[1].Cap)
	now = now.Add(capKept + time.Second)
	k.mint(host.Card{Session: "x", Call: "y", Nonce: "z"}, "r", "", "u") // sweeps
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
	a := k.mint(host.Card{Session: "s", Call: "c", Nonce: "n"}, "sub", "phone", "u")
	if _, _, err := k.use(a[0].Cap, "", true, anyone); err != nil {
		t.Errorf("a request from this machine may use a device's capability: %v", err)
	}
	b := k.mint(host.Card{Session: "s2", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
	if _, _, err := k.use(b[0].Cap, "", false, anyone); err != nil {
		t.Errorf("an ntfy button (no device) answers by its capability: %v", err)
	}
	c := k.mint(host.Card{Session: "s3", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
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
	a := k.mint(host.Card{Session: "s", Call: "c", Nonce: "n"}, "sub", "phone", "u")
	may["phone"] = false // lowered after the push went out
	for _, tc := range []struct {
		device string
		local  bool
	}{{"phone", false}, {"", true}} {
		if _, _, err := k.use(a[0].Cap, tc.device, tc.local, role); !errors.Is(err, ErrCapRole) {
			t.Errorf("the lowered phone's capability pressed by %q (local %v): %v, want ErrCapRole", tc.device, tc.local, err)
		}
	}
	n := k.mint(host.Card{Session: "s2", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
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
	first := k.mint(host.Card{Session: "s0", Call: "c", Nonce: "n"}, "r", "", "u")
	for i := 0; i < maxCaps; i++ {
		k.mint(host.Card{Session: "s", Call: "c", Nonce: "n"}, "r", "", "u")
	}
	if n := k.size(); n > maxCaps+2 {
		t.Errorf("%d capabilities kept, bound %d", n, maxCaps)
	}
	if _, _, err := k.use(first[0].Cap, "", false, anyone); !errors.Is(err, ErrCapUnknown) {
		t.Errorf("the oldest beyond the bound is dropped: %v", err)
	}
}

// A question's push offers only Decline (its answers need the board's
// card; an Allow would answer nothing); a plan's says Approve and Keep
// planning.
func TestCapabilitiesOfQuestionsAndPlans(t *testing.T) {
	k := newCaps(func() time.Time { return t0 })
	q := k.mint(host.Card{Session: "s", Call: "q", Nonce: "n", Kind: host.KindQuestion}, "r", "", "u")
	if len(q) != 1 || q[0].ID != "deny" || q[0].Label != "Decline" {
		t.Fatalf("a question's actions %+v", q)
	}
	p := k.mint(host.Card{Session: "s", Call: "p", Nonce: "n", Kind: host.KindPlan}, "r", "", "u")
	if len(p) != 2 || p[0].Label != "Approve" || p[1].Label != "Keep planning" {
		t.Fatalf("a plan's actions %+v", p)
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
	a := k.mint(host.Card{Session: "s", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
	if req, _, err := k.use(a[0].Cap, "", false, anyone); err != nil || req.Device != "ntfy phone" {
		t.Fatalf("an ntfy button's answer: %+v %v", req, err)
	}
}

// A press is spent while the host has it: the pair's other button (and a
// replay) is refused as used; a press the host refused gives the pair back.
func TestARefusedPressSpendsNothing(t *testing.T) {
	k := newCaps(func() time.Time { return t0 })
	a := k.mint(host.Card{Session: "s", Call: "c", Nonce: "n"}, "ntfy:phone", "", "u")
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
