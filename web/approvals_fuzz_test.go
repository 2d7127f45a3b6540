package web

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// parseAnswerRequest never panics; what it accepts is a decision a card
// takes, for a valid session, with a bounded nonce and a one-line message
// only on a deny.
func FuzzParseAnswerRequest(f *testing.F) {
	for _, seed := range []string{
		`{"sessionId":"s","call":"toolu_1","nonce":"abc","decision":"allow"}`,                                           // a click
		`{"sessionId":"s","call":"","nonce":"abc","decision":"deny","message":"not on main"}`,                           // a deny with its reason
		`{"sessionId":"s","call":"t","nonce":"abc","decision":"always"}`,                                                // always allow
		`{"sessionId":"s","call":"t","nonce":"abc","decision":"deny","message":"a\nb\u202e"}`,                           // a hostile reason
		`{"sessionId":"s","call":"t","nonce":"abc","decision":"allow","message":"x"}`,                                   // a message with an allow
		`{"sessionId":"s","call":"t\u0000","nonce":"abc","decision":"allow"}`,                                           // a control in the call
		`{"sessionId":"s","decision":"allow"} {}`,                                                                       // trailing data
		`{"sessionId":"s","call":"t","nonce":"abc","decision":"answer","answers":[{"options":[0,2]},{"other":"mine"}]}`, // a question's answers
		`{"sessionId":"s","call":"t","nonce":"abc","decision":"mode"}`,                                                  // allow and switch mode
		`{"sessionId":"s","call":"t","nonce":"abc","decision":"allow","answers":[]}`,                                    // answers with an allow
		`[]`, `null`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := parseAnswerRequest(body)
		if err != nil {
			return
		}
		switch {
		case !state.ValidSessionID(r.Session):
			t.Fatalf("accepted session %q", r.Session)
		case r.Nonce == "" || len(r.Nonce) > maxNonce:
			t.Fatalf("accepted nonce %q", r.Nonce)
		case r.Decision != host.DecideAllow && r.Decision != host.DecideDeny && r.Decision != host.DecideAlways &&
			r.Decision != host.DecideMode && r.Decision != host.DecideAnswer:
			t.Fatalf("accepted decision %q", r.Decision)
		case (r.Decision == host.DecideAnswer) != (r.Answers != nil && len(*r.Answers) > 0) || (r.Answers != nil && hookjson.CheckChoices(*r.Answers) != nil):
			t.Fatalf("answers %+v with %s", r.Answers, r.Decision)
		case r.Decision != host.DecideDeny && r.Message != "":
			t.Fatalf("a message with %s", r.Decision)
		case len(r.Message) > hookjson.MaxDecisionMessage || !utf8.ValidString(r.Message) || strings.ContainsAny(r.Message, "\n\r"):
			t.Fatalf("message %q", r.Message)
		case state.HasControl(r.Call):
			t.Fatalf("call %q", r.Call)
		}
	})
}
