package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// askInput is an AskUserQuestion tool_input: a single-choice question with
// hostile labels (a bidi override, markup, a newline), and a multi-select.
const askInput = `{"questions":[` +
	`{"question":"Which colour?\nReally","header":"Colour","options":[{"label":"Te\u202eal","description":"<b>warm</b>"},{"label":"Coral <script>x</script>","description":""}],"multiSelect":false},` +
	`{"question":"Which checks?","header":"Checks","options":[{"label":"Lint"},{"label":"Unit"},{"label":"Browser"}],"multiSelect":true}]}`

// askCard opens a turn, announces an AskUserQuestion call and holds its
// PermissionRequest until its card waits.
func (e *apEnv) askCard(ctx context.Context, t *testing.T, id, tool, input, extra string) (held, Card) {
	t.Helper()
	e.send(t, e.hook("UserPromptSubmit", ""))
	e.send(t, e.hook("PreToolUse", `,"tool_name":"`+tool+`","tool_input":`+input+`,"tool_use_id":"`+id+`"`))
	hr := e.hold(ctx, t, e.hook("PermissionRequest", `,"tool_name":"`+tool+`","tool_input":`+input+extra))
	var card Card
	waitCards(t, e.h, func(cs []Card) bool {
		for _, c := range cs {
			if c.Call == id && c.State == CardWaiting {
				card = c
				return true
			}
		}
		return false
	})
	return hr, card
}

// A question card shows the questions as text (hostile labels cleaned,
// bounded) and its answer goes back as Claude Code takes it: an allow
// whose updatedInput is the call's input with "answers", keyed by each
// question as the model wrote it, the labels as the model wrote them
// (several joined by ", "), or the human's words. One log record, kind
// question, outcome answered, never an answer's text.
func TestQuestionCardAnswers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []hookjson.Choice
		want    map[string]string
	}{
		{"single and multi", []hookjson.Choice{{Options: []int{1}}, {Options: []int{0, 2}}},
			map[string]string{"Which colour?\nReally": "Coral <script>x</script>", "Which checks?": "Lint, Browser"}},
		{"a label with a bidi override goes back as the model wrote it", []hookjson.Choice{{Options: []int{0}}, {Options: []int{1}}},
			map[string]string{"Which colour?\nReally": "Te\u202eal", "Which checks?": "Unit"}},
		{"own words, one line", []hookjson.Choice{{Other: "Magenta,\nplease \u202e"}, {Options: []int{1}, Other: "and fuzz"}},
			map[string]string{"Which colour?\nReally": "Magenta, please", "Which checks?": "Unit, and fuzz"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newApEnv(t, ApprovalConfig{})
			hr, c := e.askCard(context.Background(), t, "toolu_q", "AskUserQuestion", askInput, "")
			if c.Kind != KindQuestion || len(c.Questions) != 2 || c.Always != "" || c.Mode != "" {
				t.Fatalf("card %+v", c)
			}
			q := c.Questions[0]
			if q.Text != "Which colour? Really" || q.Header != "Colour" || q.Multi || len(q.Options) != 2 ||
				q.Options[0].Label != "Te al" || q.Options[0].Description != "<b>warm</b>" || !c.Questions[1].Multi {
				t.Fatalf("the first question as shown: %+v", q)
			}
			if r := e.row(t, "s1"); r.Status != state.StatusAttention {
				t.Fatalf("row %+v", r)
			}
			hr.waiting(t)
			if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_q", Nonce: c.Nonce, Decision: DecideAnswer, Answers: &tc.answers}); err != nil {
				t.Fatal(err)
			}
			d := decision(t, hr.get(t))
			if d["behavior"] != "allow" || d["updatedPermissions"] != nil {
				t.Fatalf("decision %v", d)
			}
			in, _ := d["updatedInput"].(map[string]any)
			if qs, _ := in["questions"].([]any); len(qs) != 2 {
				t.Fatalf("updatedInput lost the questions (Claude Code's schema needs them): %v", in)
			}
			got := map[string]string{}
			for k, v := range in["answers"].(map[string]any) {
				got[k] = v.(string)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("answers %q, want %q", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("answer to %q: %q, want %q", k, got[k], v)
				}
			}
			if r := e.row(t, "s1"); r.Status != state.StatusWorking || r.ApprovedAt == nil {
				t.Fatalf("row after the answer %+v", r)
			}
			recs := e.records(t)
			if len(recs) != 1 || recs[0]["kind"] != "question" || recs[0]["outcome"] != OutcomeAnswered || recs[0]["by"] != ByBoard {
				t.Fatalf("records %v", recs)
			}
			for _, secret := range []string{"Magenta", "Coral", "Lint"} {
				if bytes.Contains(e.log.Bytes(), []byte(secret)) {
					t.Errorf("the log carries %q", secret)
				}
			}
		})
	}
}

// Answers that do not fit the questions are refused (400) and leave the
// card waiting: two options for a single choice, an option and words for
// one, an index out of range or twice, a question unanswered, too few
// answers, and Allow (a question is answered with answers, or declined).
func TestQuestionCardRefusesWrongAnswers(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hr, c := e.askCard(ctx, t, "toolu_q", "AskUserQuestion", askInput, "")
	ok := hookjson.Choice{Options: []int{0}}
	for _, r := range []AnswerRequest{
		{Decision: DecideAnswer, Answers: &[]hookjson.Choice{{Options: []int{0, 1}}, ok}},
		{Decision: DecideAnswer, Answers: &[]hookjson.Choice{{Options: []int{0}, Other: "x"}, ok}},
		{Decision: DecideAnswer, Answers: &[]hookjson.Choice{{Options: []int{2}}, ok}},
		{Decision: DecideAnswer, Answers: &[]hookjson.Choice{{Options: []int{-1}}, ok}},
		{Decision: DecideAnswer, Answers: &[]hookjson.Choice{ok, {Options: []int{1, 1}}}},
		{Decision: DecideAnswer, Answers: &[]hookjson.Choice{ok, {Other: " \n "}}},
		{Decision: DecideAnswer, Answers: &[]hookjson.Choice{ok}},
		{Decision: DecideAllow},
		{Decision: DecideAlways},
		{Decision: DecideMode},
	} {
		r.Session, r.Call, r.Nonce = "s1", "toolu_q", c.Nonce
		if _, err := e.h.Answer(r); !errors.Is(err, ErrDecision) {
			t.Errorf("%+v: %v, want ErrDecision", r, err)
		}
	}
	hr.waiting(t)
	// Decline: a deny the model reads.
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_q", Nonce: c.Nonce, Decision: DecideDeny}); err != nil {
		t.Fatal(err)
	}
	if d := decision(t, hr.get(t)); d["behavior"] != "deny" || d["message"] != "The user declined to answer from the notch board." {
		t.Fatalf("decline: %v", d)
	}
}

// A plan card shows the plan as plain text with its lines (control and
// bidi characters spaces, markup as its characters, bounded); Approve is
// an allow echoing the call's input (Claude Code ignores an allow of
// ExitPlanMode without it), Approve and auto-accept edits adds the setMode
// update, Keep planning is a deny whose reason the model reads.
func TestPlanCard(t *testing.T) {
	plan := "# Plan\n\n1. <b>Write</b> it\u202e.\r\n2. Say\x1b[31m done.\n" + strings.Repeat("x", 40<<10)
	input, _ := json.Marshal(map[string]string{"plan": plan, "planFilePath": "/home/me/.claude/plans/p.md"})
	for _, tc := range []struct {
		decision, message string
		want              string
		outcome           string
	}{
		{DecideAllow, "", `{"behavior":"allow","updatedInput":` + string(input) + `}`, OutcomeAllowed},
		{DecideMode, "", `{"behavior":"allow","updatedInput":` + string(input) + `,"updatedPermissions":[{"destination":"session","mode":"acceptEdits","type":"setMode"}]}`, OutcomeMode},
		{DecideDeny, "Also cover\nthe docs", `{"behavior":"deny","message":"Also cover the docs"}`, OutcomeDenied},
		{DecideDeny, "", `{"behavior":"deny","message":"The user wants you to keep planning (from the notch board)."}`, OutcomeDenied},
	} {
		t.Run(tc.decision+"/"+tc.message, func(t *testing.T) {
			e := newApEnv(t, ApprovalConfig{})
			hr, c := e.askCard(context.Background(), t, "toolu_p", "ExitPlanMode", string(input), `,"permission_mode":"plan"`)
			if c.Kind != KindPlan || c.Mode == "" || c.Always != "" {
				t.Fatalf("card %+v", c)
			}
			if !strings.HasPrefix(c.Plan, "# Plan\n\n1. <b>Write</b> it .\n2. Say [31m done.\nxxx") || len(c.Plan) > hookjson.MaxPlan || !strings.HasSuffix(c.Plan, "…") {
				t.Fatalf("plan as shown (%d bytes): %q…", len(c.Plan), c.Plan[:min(len(c.Plan), 80)])
			}
			if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_p", Nonce: c.Nonce, Decision: tc.decision, Message: tc.message}); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(decision(t, hr.get(t)))
			wantJSON, _ := json.Marshal(want)
			if !bytes.Equal(got, wantJSON) {
				t.Fatalf("decision\n %s\nwant\n %s", got, wantJSON)
			}
			if recs := e.records(t); len(recs) != 1 || recs[0]["kind"] != "plan" || recs[0]["outcome"] != tc.outcome {
				t.Fatalf("records %v", recs)
			}
		})
	}
}

// A permission card whose payload offers a mode switch (Claude Code's
// setMode suggestion: "Yes, and switch to accept edits") shows it as its
// own button: an allow with that update, scoped to the session. One that
// offers none takes no mode decision; a switch to bypassPermissions is
// never offered.
func TestAllowAndSwitchMode(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	write := `{"file_path":"/home/me/src/argon/a.txt","content":"x"}`
	hr, c := e.askCard(context.Background(), t, "toolu_w", "Write", write,
		`,"permission_suggestions":[{"type":"setMode","mode":"bypassPermissions","destination":"session"},{"type":"setMode","mode":"acceptEdits","destination":"localSettings"}]`)
	if c.Kind != KindPermission || c.Mode != "Allow and accept edits" {
		t.Fatalf("card %+v", c)
	}
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_w", Nonce: c.Nonce, Decision: DecideMode}); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(decision(t, hr.get(t)))
	if want := `{"behavior":"allow","updatedPermissions":[{"destination":"session","mode":"acceptEdits","type":"setMode"}]}`; string(got) != want {
		t.Fatalf("decision %s, want %s", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, c = e.ask(ctx, t, "toolu_2", "make test")
	if c.Mode != "" {
		t.Fatalf("a card with no mode suggestion offers %q", c.Mode)
	}
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_2", Nonce: c.Nonce, Decision: DecideMode}); !errors.Is(err, ErrDecision) {
		t.Fatalf("mode on a card that offers none: %v", err)
	}
}

// A question and a permission in parallel each get their card; answering
// the question leaves the permission waiting and the row asking; the
// terminal answering the permission first (its PostToolUse) makes a click
// 409 (ErrAnswered) and sends the held hook nothing.
func TestParallelQuestionAndPermission(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hq, q := e.askCard(ctx, t, "toolu_q", "AskUserQuestion", askInput, "")
	hp, p := e.ask(ctx, t, "toolu_b", "make test")
	if q.Kind != KindQuestion || p.Kind != KindPermission {
		t.Fatalf("cards %+v %+v", q, p)
	}
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_q", Nonce: q.Nonce, Decision: DecideAnswer,
		Answers: &[]hookjson.Choice{{Options: []int{0}}, {Options: []int{2}}}}); err != nil {
		t.Fatal(err)
	}
	if d := decision(t, hq.get(t)); d["behavior"] != "allow" {
		t.Fatalf("question's decision %v", d)
	}
	hp.waiting(t)
	if r := e.row(t, "s1"); r.Status != state.StatusAttention || r.Approval == nil || r.Approval.ToolName != "Bash" {
		t.Fatalf("row with the permission still pending: %+v", r)
	}
	// The terminal answers the permission first.
	e.send(t, e.hook("PostToolUse", bashCall("toolu_b", "make test")))
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_b", Nonce: p.Nonce, Decision: DecideAllow}); !errors.Is(err, ErrAnswered) {
		t.Fatalf("a click after the terminal answered: %v, want ErrAnswered", err)
	}
	if body := hp.get(t); len(body) != 0 {
		t.Fatalf("the terminal answered, yet the hook got %s", body)
	}
}

// A question answered in the terminal (its result in the transcript, as
// Claude Code writes it) clears the card, and a click after it is 409.
func TestQuestionAnsweredInTheTerminal(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	hq, q := e.askCard(context.Background(), t, "toolu_q", "AskUserQuestion", askInput, "")
	appendFile(t, e.transcript, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_q","content":"User has answered your questions: \"Which colour?\"=\"Teal\"."}]}}`+"\n")
	waitCards(t, e.h, func(cs []Card) bool { return len(cs) == 1 && cs[0].State == CardAnswered && cs[0].By == ByTerminal })
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_q", Nonce: q.Nonce, Decision: DecideAnswer,
		Answers: &[]hookjson.Choice{{Options: []int{0}}, {Options: []int{0}}}}); !errors.Is(err, ErrAnswered) {
		t.Fatalf("a click after the terminal answered: %v, want ErrAnswered", err)
	}
	if body := hq.get(t); len(body) != 0 {
		t.Fatalf("the hook got %s after the terminal answered", body)
	}
}

// An AskUserQuestion or ExitPlanMode whose input is not as the tool's
// (too many questions, none, a label missing, a question twice; a plan
// missing) is not held: an allow without its answers, or without the plan
// echoed, answers nothing, so its card says "answer in Claude Code" and
// the hook's answer is empty at once.
func TestMalformedQuestionIsAnsweredInTheTerminal(t *testing.T) {
	for _, tc := range []struct{ tool, input string }{
		{"AskUserQuestion", `{"questions":[]}`},
		{"AskUserQuestion", `{"questions":[{"question":"a","options":[{"label":""}]}]}`},
		{"AskUserQuestion", `{"questions":[{"question":"a"},{"question":"b"},{"question":"c"},{"question":"d"},{"question":"e"}]}`},
		{"AskUserQuestion", `{"questions":[{"question":"a"},{"question":"a"}]}`},
		{"ExitPlanMode", `{}`},
		{"ExitPlanMode", `{"plan":7}`},
	} {
		e := newApEnv(t, ApprovalConfig{})
		e.send(t, e.hook("UserPromptSubmit", ""))
		e.send(t, e.hook("PreToolUse", `,"tool_name":"`+tc.tool+`","tool_input":`+tc.input+`,"tool_use_id":"toolu_q"`))
		hr := e.hold(context.Background(), t, e.hook("PermissionRequest", `,"tool_name":"`+tc.tool+`","tool_input":`+tc.input))
		if body := hr.get(t); len(body) != 0 {
			t.Errorf("%s: the hook got %s", tc.input, body)
		}
		cs := waitCards(t, e.h, nCards(1, CardTerminal))
		if cs[0].Nonce != "" || cs[0].Kind != KindPermission {
			t.Errorf("%s: card %+v", tc.input, cs[0])
		}
	}
}
