package push

import (
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// A push's buttons by what the row is: a question answered by one option
// offers its first two options (each its own capability); one that needs
// more (several questions, a multi-select) offers Decline; a settled row
// that takes a Reply links to the board's reply box for it (no
// capability), one that takes none has no button, and a row that works
// has none either.
func TestPushActionsByRow(t *testing.T) {
	one := []hookjson.Question{{Text: "Colour?", Options: []hookjson.Option{{Label: "Teal"}, {Label: "Coral"}, {Label: "Lime"}}}}
	multi := []hookjson.Question{{Text: "Checks?", Multi: true, Options: []hookjson.Option{{Label: "Lint"}, {Label: "Unit"}}}}
	doc := state.Document{Sessions: []state.Session{
		{ID: "q", Status: state.StatusAttention},
		{ID: "m", Status: state.StatusAttention},
		{ID: "d", Status: state.StatusDone, Activity: &state.Activity{Kind: "thinking"}},
		{ID: "e", Status: state.StatusError, Activity: &state.Activity{Kind: "thinking"}},
		{ID: "n", Status: state.StatusDone, Activity: &state.Activity{Kind: "thinking"}},
	}}
	cards := host.CardSet{
		Cards: []host.Card{
			{Session: "q", Call: "c1", Nonce: "n1", Kind: host.KindQuestion, Tool: "AskUserQuestion", State: host.CardWaiting, Questions: one},
			{Session: "m", Call: "c2", Nonce: "n2", Kind: host.KindQuestion, Tool: "AskUserQuestion", State: host.CardWaiting, Questions: multi},
		},
		Steer: map[string]bool{"d": true, "e": true, "q": true},
	}
	e := &Engine{opts: Options{BoardURL: "https://b.example/agents-notch/", ActURL: "https://b.example/agents-notch/act"}, caps: newCaps(func() time.Time { return t0 })}
	want := map[string][]Action{
		"q": {{ID: "option-0", Label: "Teal"}, {ID: "option-1", Label: "Coral"}},
		"m": {{ID: "deny", Label: "Decline"}},
		"d": {{ID: "reply", Label: "Reply", URL: "https://b.example/agents-notch/?reply=d"}},
		"e": {{ID: "reply", Label: "Reply", URL: "https://b.example/agents-notch/?reply=e"}},
		"n": nil,
	}
	for _, row := range rowsOf(doc, cards, "", nil) {
		m := e.message(row, kindOf(row), t0)
		var got []Action
		if m.Mint != nil {
			got = m.Mint("sub", "phone")
		}
		if len(got) != len(want[row.ID]) {
			t.Errorf("%s: %+v, want %+v", row.ID, got, want[row.ID])
			continue
		}
		for i, a := range got {
			w := want[row.ID][i]
			capped := a.Cap != "" && a.URL == e.opts.ActURL
			if a.ID != w.ID || a.Label != w.Label || (w.URL != "" && (a.URL != w.URL || a.Cap != "")) || (w.URL == "" && !capped) {
				t.Errorf("%s: button %d is %+v, want %+v", row.ID, i, a, w)
			}
		}
	}
}

// ReplyURL keeps the board's own query and escapes the row's id.
func TestReplyURL(t *testing.T) {
	for _, tc := range []struct{ board, id, want string }{
		{"https://b.example/agents-notch/", "s-1", "https://b.example/agents-notch/?reply=s-1"},
		{"https://b.example/agents-notch/?m=x", "a b&c=#", "https://b.example/agents-notch/?m=x&reply=a+b%26c%3D%23"},
	} {
		if got := ReplyURL(tc.board, tc.id); got != tc.want {
			t.Errorf("ReplyURL(%q, %q) = %q, want %q", tc.board, tc.id, got, tc.want)
		}
	}
}
