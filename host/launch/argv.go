package launch

import (
	"fmt"
	"slices"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/registry"
)

// Argv is the command line that starts spec's agent as f allows it: the
// file's argv for the agent (else the Spec's Launch.Argv), then the
// resume arguments when resume is set, then the prompt's when prompt is
// set; an agent that takes no prompt argument is refused a prompt
// (nothing is typed into a pane to start a session). prompt and resume
// are checked (CheckPrompt, CheckResume) before this.
func Argv(spec agent.Spec, a Agent, prompt, resume string) (argv []string, err error) {
	l := spec.Launch
	if l == nil {
		return nil, fmt.Errorf("%w: %s is not started from the board", ErrAgent, spec.Display)
	}
	argv = slices.Clone(a.Argv)
	if len(argv) == 0 {
		argv = slices.Clone(l.Argv)
	}
	if resume != "" {
		if err := CheckResume(spec, resume); err != nil {
			return nil, err
		}
		argv = append(argv, l.Resume(resume)...)
	}
	if prompt != "" {
		if l.Prompt == nil {
			return nil, fmt.Errorf("%w: %s takes no first prompt from the board: start it without one", ErrAgent, spec.Display)
		}
		argv = append(argv, l.Prompt(prompt)...)
	}
	return argv, nil
}

// Resumes reports whether the agent named name resumes a session by its id.
func Resumes(name string) bool {
	s, ok := registry.Get(name)
	return ok && s.Launch != nil && s.Launch.Resume != nil
}
