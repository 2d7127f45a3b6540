package hookjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/jsonx"
)

// Questions and plans (docs/agents.md): Claude Code's AskUserQuestion and
// ExitPlanMode ask through the same PermissionRequest hook a permission
// does, and a hook answers them with an allow whose updatedInput completes
// the tool's input — checked against the real 2.1.328:
//
//   - AskUserQuestion: updatedInput is the whole tool_input (its questions
//     are required: a rewrite without them fails the tool's schema) plus
//     "answers", an object from each question's text to the answer — an
//     option's label, several labels joined by ", " for a multi-select, or
//     the human's own words. The model reads them in the call's result.
//   - ExitPlanMode: an allow is ignored (its dialog stays) unless it
//     carries updatedInput (the tool_input echoed); a permission update
//     {"type":"setMode","mode":"acceptEdits","destination":"session"} makes
//     the session accept edits; a deny's message reaches the model and
//     plan mode goes on.

// Tools whose PermissionRequest is a question or a plan, not a permission.
const (
	ToolAskUserQuestion = "AskUserQuestion"
	ToolExitPlanMode    = "ExitPlanMode"
)

// Bounds on a question card. AskUserQuestion's own schema takes 1–4
// questions of 2–4 options; a payload past these bounds makes no question
// card (it is answered in the terminal).
const (
	MaxQuestions     = 4
	MaxOptions       = 8
	MaxQuestionText  = 500      // a question, as shown
	MaxOptionLabel   = 200      // an option's label, as shown
	MaxOptionDetail  = 300      // an option's description, as shown
	MaxAnswerText    = 500      // the human's own answer, one line
	MaxQuestionInput = 64 << 10 // the tool_input kept to echo back
	MaxPlan          = 16 << 10 // the plan as shown, bytes
	maxPlanLines     = 400      // the plan as shown, lines
	maxRawString     = 4 << 10  // a question's or label's own text, echoed as a key or an answer
)

// Option is one answer a question offers.
type Option struct {
	Label       string // shown: one line, bounded
	Description string // shown: one line, bounded
	raw         string // the label as the model wrote it: the answer sent back
}

// Question is one question of an AskUserQuestion call.
type Question struct {
	Text    string // shown: one line, bounded
	Header  string // shown: a short chip, bounded
	Multi   bool   // several options may be chosen
	Options []Option
	raw     string // the question as the model wrote it: the answers' key
}

// Ask is an AskUserQuestion call's questions, and its input to echo back.
type Ask struct {
	Questions []Question
	input     json.RawMessage
}

// ParseAsk reads an AskUserQuestion tool_input: an object with 1 to
// MaxQuestions questions, each with its text and 0 to MaxOptions options
// with labels (none: a free-text question). ok is false for anything else,
// and for an input larger than MaxQuestionInput.
func ParseAsk(toolInput json.RawMessage) (Ask, bool) {
	if len(toolInput) == 0 || len(toolInput) > MaxQuestionInput {
		return Ask{}, false
	}
	var in struct {
		Questions []struct {
			Question    string `json:"question"`
			Header      string `json:"header"`
			MultiSelect bool   `json:"multiSelect"`
			Options     []struct {
				Label       string `json:"label"`
				Description string `json:"description"`
			} `json:"options"`
		} `json:"questions"`
	}
	if jsonx.DecodeOne(toolInput, &in, jsonx.Options{}) != nil || len(in.Questions) == 0 || len(in.Questions) > MaxQuestions {
		return Ask{}, false
	}
	a := Ask{input: append(json.RawMessage(nil), toolInput...)}
	seen := map[string]bool{}
	for _, q := range in.Questions {
		if strings.TrimSpace(q.Question) == "" || len(q.Question) > maxRawString || seen[q.Question] || len(q.Options) > MaxOptions {
			return Ask{}, false
		}
		seen[q.Question] = true
		x := Question{Text: OneLine(q.Question, MaxQuestionText), Header: OneLine(q.Header, MaxTool), Multi: q.MultiSelect, raw: q.Question}
		for _, o := range q.Options {
			if strings.TrimSpace(o.Label) == "" || len(o.Label) > maxRawString {
				return Ask{}, false
			}
			x.Options = append(x.Options, Option{Label: OneLine(o.Label, MaxOptionLabel), Description: OneLine(o.Description, MaxOptionDetail), raw: o.Label})
		}
		a.Questions = append(a.Questions, x)
	}
	return a, true
}

// Choice is the human's answer to one question: the options chosen (by
// their index) and, or instead, their own words.
type Choice struct {
	Options []int  `json:"options,omitempty"`
	Other   string `json:"other,omitempty"`
}

// CheckChoices bounds answers as they come from a page or a hub, before
// any card is looked at: at most MaxQuestions, each of at most MaxOptions
// indexes and words of at most 4×MaxAnswerText bytes of valid UTF-8 (they
// are made one line, MaxAnswerText, when sent).
func CheckChoices(cs []Choice) error {
	if len(cs) > MaxQuestions {
		return fmt.Errorf("at most %d answers", MaxQuestions)
	}
	for _, c := range cs {
		if len(c.Options) > MaxOptions {
			return fmt.Errorf("at most %d options an answer", MaxOptions)
		}
		if len(c.Other) > 4*MaxAnswerText || !utf8.ValidString(c.Other) {
			return fmt.Errorf("an answer's words are at most %d bytes of text", MaxAnswerText)
		}
	}
	return nil
}

// Errors Answer returns.
var (
	ErrAnswerShape = errors.New("the answers do not fit the questions")
	ErrNoAnswer    = errors.New("a question has no answer")
)

// Answer is the updatedInput that answers the questions with choices (one
// per question, in order): the call's input as it came, with "answers"
// from each question's own text to its answer — the chosen labels as the
// model wrote them, joined by ", ", then the human's words (one line,
// bounded). A single-choice question takes one option or words, not both.
func (a Ask) Answer(choices []Choice) (json.RawMessage, error) {
	if len(choices) != len(a.Questions) {
		return nil, ErrAnswerShape
	}
	answers := make(map[string]string, len(a.Questions))
	for i, q := range a.Questions {
		c := choices[i]
		other := OneLine(c.Other, MaxAnswerText)
		if !q.Multi && len(c.Options)+min(len(other), 1) > 1 {
			return nil, ErrAnswerShape
		}
		var parts []string
		seen := map[int]bool{}
		for _, k := range c.Options {
			if k < 0 || k >= len(q.Options) || seen[k] {
				return nil, ErrAnswerShape
			}
			seen[k] = true
			parts = append(parts, q.Options[k].raw)
		}
		if other != "" {
			parts = append(parts, other)
		}
		if len(parts) == 0 {
			return nil, ErrNoAnswer
		}
		answers[q.raw] = strings.Join(parts, ", ")
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(a.input, &in); err != nil {
		return nil, err
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	in["answers"] = b
	return json.Marshal(in)
}

// Input is the call's input as it came (ExitPlanMode's allow echoes it).
func (a Ask) Input() json.RawMessage { return a.input }

// Plan is an ExitPlanMode call: its plan as shown, and its input to echo.
type Plan struct {
	Text  string // shown as text: lines kept, every hidden character a space, bounded
	input json.RawMessage
}

// ParsePlan reads an ExitPlanMode tool_input: an object whose "plan" is
// the plan's text (Claude Code 2.1 fills it from the plan file, with
// "planFilePath"). ok is false for anything else.
func ParsePlan(toolInput json.RawMessage) (Plan, bool) {
	if len(toolInput) == 0 || len(toolInput) > MaxQuestionInput+MaxPlan {
		return Plan{}, false
	}
	var in struct {
		Plan *string `json:"plan"`
	}
	if jsonx.DecodeOne(toolInput, &in, jsonx.Options{}) != nil || in.Plan == nil {
		return Plan{}, false
	}
	return Plan{Text: PlanText(*in.Plan), input: append(json.RawMessage(nil), toolInput...)}, true
}

// Input is the call's input as it came: the allow's updatedInput.
func (p Plan) Input() json.RawMessage { return p.input }

// PlanText is a plan fit to show as plain text: its lines kept (at most
// maxPlanLines), each cleaned as Clean does (tabs, other control and bidi
// characters become spaces), the whole at most MaxPlan bytes, ended with
// "…" when cut. Markdown stays as its characters.
func PlanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.SplitN(s, "\n", maxPlanLines+1)
	cut := len(lines) > maxPlanLines
	if cut {
		lines = lines[:maxPlanLines]
	}
	var b strings.Builder
	for i, l := range lines {
		room := MaxPlan - b.Len() - 1
		if room <= len(ellipsis) {
			cut = true
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		c := Clean(l, room)
		b.WriteString(strings.TrimRight(c, " "))
		if strings.HasSuffix(c, ellipsis) {
			return b.String()
		}
	}
	out := strings.TrimRight(b.String(), "\n ")
	if cut {
		out += "\n" + ellipsis
	}
	return out
}

// Mode is a permission-mode switch a PermissionRequest offers (its
// permission_suggestions' setMode), as "Allow and switch mode" echoes it.
type Mode struct {
	Mode  string          // "acceptEdits"
	Label string          // "Allow and accept edits"
	Echo  json.RawMessage // {"type":"setMode","mode":…,"destination":"session"}
}

// modeLabels are the modes a card may switch to, with their buttons'
// words. Switching to one that skips every prompt (bypassPermissions) is
// never offered from a board.
var modeLabels = map[string]string{
	"acceptEdits": "Allow and accept edits",
	"default":     "Allow and ask each time",
}

// AcceptEdits is the permission update that makes a Claude Code session
// accept edits for the rest of the session.
var AcceptEdits = SetMode("acceptEdits")

// SetMode is the updatedPermissions entry that switches the session to
// mode.
func SetMode(mode string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "setMode", "mode": mode, "destination": "session"})
	return b
}

// ModeSuggestion is the first setMode suggestion of a PermissionRequest's
// permission_suggestions whose mode a board may offer, rebuilt to be scoped
// to the session. ok is false when there is none.
func ModeSuggestion(raw json.RawMessage) (Mode, bool) {
	var list []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return Mode{}, false
	}
	for _, s := range list {
		if len(s) > MaxSuggestion {
			continue
		}
		var f struct {
			Type string `json:"type"`
			Mode string `json:"mode"`
		}
		if json.Unmarshal(s, &f) != nil || f.Type != "setMode" {
			continue
		}
		if label, ok := modeLabels[f.Mode]; ok {
			return Mode{Mode: f.Mode, Label: label, Echo: SetMode(f.Mode)}, true
		}
	}
	return Mode{}, false
}
