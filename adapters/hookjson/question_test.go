package hookjson

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

func TestParseAsk(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		ok          bool
		shown       string // the first question and its options as shown
	}{
		{"single", `{"questions":[{"question":"Which?","header":"H","options":[{"label":"A","description":"a"},{"label":"B"}],"multiSelect":false}]}`, true, "Which?|A|B"},
		{"free text only", `{"questions":[{"question":"Why?"}]}`, true, "Why?"},
		{"hostile labels are text, one line", `{"questions":[{"question":"<b>Q</b>\n\u202etwo","options":[{"label":"\u0000A\u2066"}]}]}`, true, "<b>Q</b> two|A"},
		{"a long label is cut for the eye", `{"questions":[{"question":"Q","options":[{"label":"` + strings.Repeat("é", 400) + `"}]}]}`, true, ""},
		{"no questions", `{"questions":[]}`, false, ""},
		{"five questions", `{"questions":[{"question":"a"},{"question":"b"},{"question":"c"},{"question":"d"},{"question":"e"}]}`, false, ""},
		{"the same question twice", `{"questions":[{"question":"a"},{"question":"a"}]}`, false, ""},
		{"an empty label", `{"questions":[{"question":"a","options":[{"label":" "}]}]}`, false, ""},
		{"an empty question", `{"questions":[{"question":""}]}`, false, ""},
		{"nine options", `{"questions":[{"question":"a","options":[` + strings.Repeat(`{"label":"x"},`, 8) + `{"label":"y"}]}]}`, false, ""},
		{"not an object", `[1]`, false, ""},
		{"a key twice", `{"questions":[{"question":"a"}],"questions":[{"question":"b"}]}`, false, ""},
		{"too large", `{"questions":[{"question":"a"}],"x":"` + strings.Repeat("x", MaxQuestionInput) + `"}`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := ParseAsk(json.RawMessage(tc.input))
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if !ok || tc.shown == "" {
				if ok && len(a.Questions[0].Options[0].Label) > MaxOptionLabel {
					t.Fatalf("label of %d bytes", len(a.Questions[0].Options[0].Label))
				}
				return
			}
			parts := []string{a.Questions[0].Text}
			for _, o := range a.Questions[0].Options {
				parts = append(parts, o.Label)
			}
			if got := strings.Join(parts, "|"); got != tc.shown {
				t.Fatalf("shown %q, want %q", got, tc.shown)
			}
		})
	}
}

func TestAskAnswerKeepsTheInput(t *testing.T) {
	a, ok := ParseAsk(json.RawMessage(`{"questions":[{"question":"Q\u202e","options":[{"label":"A\nB"},{"label":"C"}],"multiSelect":true}],"extra":{"kept":1}}`))
	if !ok {
		t.Fatal("not parsed")
	}
	in, err := a.Answer([]Choice{{Options: []int{1, 0}, Other: "mine"}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Questions []any
		Extra     map[string]int
		Answers   map[string]string
	}
	if err := json.Unmarshal(in, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Questions) != 1 || got.Extra["kept"] != 1 || got.Answers["Q\u202e"] != "C, A\nB, mine" || len(got.Answers) != 1 {
		t.Fatalf("updatedInput %s", in)
	}
}

func TestPlanText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# Plan\n\n- one\n- two", "# Plan\n\n- one\n- two"},
		{"a\r\nb\x1b[2Jc\u202e\td  ", "a\nb [2Jc  d"},
		{"<script>alert(1)</script>", "<script>alert(1)</script>"},
		{strings.Repeat("line\n", 500), strings.TrimSuffix(strings.Repeat("line\n", 400), "\n") + "\n…"},
	} {
		if got := PlanText(tc.in); got != tc.want {
			t.Errorf("PlanText(%.40q) = %.80q, want %.80q", tc.in, got, tc.want)
		}
	}
	if got := PlanText(strings.Repeat("é", MaxPlan)); len(got) > MaxPlan || !strings.HasSuffix(got, "…") {
		t.Errorf("a plan of %d bytes is shown in %d", 2*MaxPlan, len(got))
	}
}

func TestModeSuggestion(t *testing.T) {
	for _, tc := range []struct {
		raw, mode string
	}{
		{`[{"type":"setMode","mode":"acceptEdits","destination":"session"}]`, "acceptEdits"},
		{`[{"type":"addRules","rules":[]},{"type":"setMode","mode":"acceptEdits","destination":"localSettings"}]`, "acceptEdits"},
		{`[{"type":"setMode","mode":"bypassPermissions","destination":"session"}]`, ""},
		{`[{"type":"setMode","mode":"plan"}]`, ""},
		{`{"type":"setMode","mode":"acceptEdits"}`, ""},
		{`[1,null,"x"]`, ""},
	} {
		m, ok := ModeSuggestion(json.RawMessage(tc.raw))
		if m.Mode != tc.mode || ok != (tc.mode != "") {
			t.Errorf("%s: %+v %v", tc.raw, m, ok)
		}
		if ok && string(m.Echo) != `{"destination":"session","mode":"`+tc.mode+`","type":"setMode"}` {
			t.Errorf("%s: echo %s", tc.raw, m.Echo)
		}
	}
}

// FuzzParseAsk: whatever the payload, a question card shows bounded text
// with no hidden character, and every answer Answer accepts is an object
// holding the questions and one answer per question.
func FuzzParseAsk(f *testing.F) {
	f.Add([]byte(`{"questions":[{"question":"Which?","header":"H","options":[{"label":"A"},{"label":"B"}],"multiSelect":false}]}`), 0, "") // single
	f.Add([]byte(`{"questions":[{"question":"Which?","options":[{"label":"A"},{"label":"B"}],"multiSelect":true}]}`), 1, "mine")           // multi and words
	f.Add([]byte(`{"questions":[{"question":"\u202eQ\n","options":[{"label":"<b>\u0000"}]}]}`), 0, "\x1b[31m")                             // hostile
	f.Add([]byte(`{"questions":[{"question":"a"},{"question":"a"}]}`), 0, "")                                                              // refused
	f.Fuzz(func(t *testing.T, input []byte, pick int, other string) {
		a, ok := ParseAsk(input)
		if !ok {
			return
		}
		var choices []Choice
		for _, q := range a.Questions {
			for _, s := range []string{q.Text, q.Header} {
				if textrule.Has(s) || !utf8.ValidString(s) || len(s) > MaxQuestionText {
					t.Fatalf("shown %q", s)
				}
			}
			for _, o := range q.Options {
				if textrule.Has(o.Label) || textrule.Has(o.Description) || len(o.Label) > MaxOptionLabel {
					t.Fatalf("option shown %q", o.Label)
				}
			}
			choices = append(choices, Choice{Options: []int{pick}, Other: other})
		}
		in, err := a.Answer(choices)
		if err != nil {
			return
		}
		var got struct {
			Questions json.RawMessage
			Answers   map[string]string
		}
		if json.Unmarshal(in, &got) != nil || len(got.Questions) == 0 || len(got.Answers) != len(a.Questions) {
			t.Fatalf("updatedInput %s", in)
		}
	})
}

// FuzzPlanText: a plan is shown bounded, as valid UTF-8, with no hidden
// character but its newlines.
func FuzzPlanText(f *testing.F) {
	f.Add("# Plan\n\n1. Do it.")        // markdown
	f.Add("a\r\n\x1b[2J\u202e\u2066b")  // control and bidi
	f.Add(strings.Repeat("é\n", 10000)) // long
	f.Fuzz(func(t *testing.T, s string) {
		got := PlanText(s)
		if len(got) > MaxPlan+len("\n…") || !utf8.ValidString(got) || textrule.Has(strings.ReplaceAll(got, "\n", "")) {
			t.Fatalf("PlanText(%.60q) = %.60q (%d bytes)", s, got, len(got))
		}
	})
}

// FuzzModeSuggestion: only the modes a board may offer, echoed as a
// session-scoped setMode and nothing else.
func FuzzModeSuggestion(f *testing.F) {
	f.Add([]byte(`[{"type":"setMode","mode":"acceptEdits","destination":"session"}]`)) // Claude Code's offer
	f.Add([]byte(`[{"type":"setMode","mode":"bypassPermissions"}]`))                   // never offered
	f.Add([]byte(`[{"type":"setMode","mode":7}]`))                                     // junk
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, ok := ModeSuggestion(raw)
		if !ok {
			return
		}
		if _, known := modeLabels[m.Mode]; !known || string(m.Echo) != string(SetMode(m.Mode)) {
			t.Fatalf("%s: %+v", raw, m)
		}
	})
}
