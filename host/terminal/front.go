package terminal

import (
	"errors"
	"fmt"

	"github.com/notch-web/notch-web/internal/proc"
)

// ErrNotInPane: the pane's foreground is not the agent the row watches
// (it exited — /exit, /quit, a kill — and the shell is back, or another
// program runs in front of it); nothing was typed (409).
var ErrNotInPane = errors.New("the agent is no longer in that pane")

// Target is who keys typed into a pane are for: the pane (Where) and the
// agent's process the row watches (Agent: PID, start time, boot — the
// liveness watch's facts, so a reused PID is never taken for it).
type Target struct {
	Where
	Agent proc.ID
	// Client: the process the row watches is not in the terminal but a
	// daemon the pane's program is a client of (Codex's app-server, which
	// runs the hooks; its TUI is the client): the pane's foreground must
	// hold a process of the same program (its name) on the pane's
	// terminal, and the daemon must live.
	Client bool
	// Empty reports whether the agent's input box is empty, from the
	// pane's screen (capture-pane -p -e: its text and SGR escapes, read in
	// the same run of tmux as the pane's process); Type types nothing over
	// a draft (ErrDraft). nil: the input is not read (and Stop never reads
	// it).
	Empty func(screen string) bool
}

// inFront reports (nil) whether tg's agent is what the keys typed into the
// pane reach: the pane's terminal's foreground process group (the pane's
// process's tpgid, as the kernel keeps it) holds the agent's process
// itself, alive with its start time — or, for a Client, a process of the
// agent's program. The pane's process (panePID, tmux's pane_pid) is the
// terminal's session leader: a shell, or the agent run directly.
func (t *Tmux) inFront(panePID int, tg Target) error {
	lookup, group := t.lookup, t.group
	if lookup == nil {
		lookup, group = proc.Lookup, proc.Group
	}
	if tg.Agent.IsZero() {
		return fmt.Errorf("%w: no process is known for the session", ErrNotInPane)
	}
	boot, err := proc.BootID()
	if err != nil || boot != tg.Agent.Boot {
		return fmt.Errorf("%w: its process is not this machine's", ErrNotInPane)
	}
	pane, err := lookup(panePID)
	if err != nil || pane.Gone {
		return fmt.Errorf("%w: the pane's process has ended", ErrGone)
	}
	agent, err := lookup(tg.Agent.PID)
	if err != nil || agent.Start != tg.Agent.Start || agent.Gone {
		return fmt.Errorf("%w: its process has ended", ErrNotInPane)
	}
	var members []proc.Info
	if tg.Client && pane.TPgrp > 0 {
		members, _ = group(panePID, pane.TPgrp)
	}
	if !front(pane, agent, members, tg.Client) {
		return fmt.Errorf("%w: the pane's foreground is another program", ErrNotInPane)
	}
	return nil
}

// front is inFront's rule on what was read: pane (the pane's process),
// agent (the row's), and for a client the members of the pane's
// foreground group.
func front(pane, agent proc.Info, members []proc.Info, client bool) bool {
	if pane.TTY == 0 || pane.TPgrp <= 0 {
		return false // no terminal, or no foreground group on it
	}
	if !client {
		return agent.Pgrp == pane.TPgrp && agent.TTY == pane.TTY
	}
	for _, m := range members {
		if m.Pgrp == pane.TPgrp && m.TTY == pane.TTY && m.Name == agent.Name && m.Name != "" {
			return true
		}
	}
	return false
}

// ErrDraft: the agent's input box holds text the human typed there (or
// the screen is not the agent's prompt): a reply typed after it would
// reach the model as draft + reply, and clearing it would lose the draft.
// Nothing was typed (409).
var ErrDraft = errors.New("the agent's input is not empty: send or clear what is typed there first")
