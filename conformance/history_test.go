//go:build conformance

package conformance

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/notch-web/notch-web/state"
)

// The board and the history agree, always (issue 48): after every
// scenario, while its host still runs, `notch-web history export` says of
// each row on the board what the board does (historyAgrees, run by each
// host's cleanup: startHostAt).

// exportedSession is the part of a `history export` line compared.
type exportedSession struct {
	ID      string `json:"id"`
	Ended   string `json:"ended"`
	Outcome string `json:"outcome"`
	Turns   []struct {
		Seq     int    `json:"seq"`
		Ended   string `json:"ended"`
		Outcome string `json:"outcome"`
	} `json:"turns"`
}

// exportHistory runs `notch-web history export` over the run's DSH home.
func (r *run) exportHistory() (map[string]exportedSession, error) {
	cmd := exec.Command(suite.notchWeb, "history", "export", "--dsh-home", filepath.Join(r.root, "dsh"))
	cmd.Env = r.env()
	out, err := cmd.Output()
	if err != nil {
		return nil, errf("history export: %v", err)
	}
	all := map[string]exportedSession{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var x exportedSession
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return nil, errf("history export: a line that is not a session: %v", err)
		}
		all[x.ID] = x
	}
	return all, sc.Err()
}

// historySays checks that the history says of each row what the board
// does: a row in a turn (working, needs you) has its session and its last
// turn open; a settled row's session, when ended, ended as the row (done
// or error), and its last turn is over, ended as the row unless the
// session's own end decided it.
func historySays(d state.Document, h map[string]exportedSession) error {
	for _, row := range d.Sessions {
		x, ok := h[row.ID]
		if !ok {
			return errf("%s: on the board (%s), not in the history", short(row.ID), row.Status)
		}
		last := len(x.Turns) - 1
		switch row.Status {
		case state.StatusWorking, state.StatusAttention:
			if x.Ended != "" || (last >= 0 && x.Turns[last].Ended != "") {
				return errf("%s: %s on the board, ended in the history (session %q %s)", short(row.ID), row.Status, x.Outcome, x.Ended)
			}
		case state.StatusDone, state.StatusError:
			switch {
			case last >= 0 && x.Turns[last].Ended == "":
				return errf("%s: %s on the board, its turn %d open in the history", short(row.ID), row.Status, x.Turns[last].Seq)
			case x.Ended != "" && x.Outcome != row.Status:
				return errf("%s: %s on the board, the history's session %s", short(row.ID), row.Status, x.Outcome)
			case x.Ended == "" && last >= 0 && x.Turns[last].Outcome != row.Status:
				return errf("%s: %s on the board, the history's turn %d %s", short(row.ID), row.Status, x.Turns[last].Seq, x.Turns[last].Outcome)
			}
		}
	}
	return nil
}

// historyAgrees waits (the host's history writer queues; 10 s at most)
// until the history export says of each row on the board what the board
// does, and fails the test if it never does. A host that no longer answers
// (stopped by the scenario) is not asked.
func (r *run) historyAgrees(step string) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := r.board()
		if err != nil {
			return
		}
		h, err := r.exportHistory()
		if err == nil {
			if err = historySays(d, h); err == nil {
				r.t.Logf("%s: the history agrees with the board (%d rows)", step, len(d.Sessions))
				return
			}
		}
		if time.Now().After(deadline) {
			r.t.Errorf("%s: the history disagrees with the board: %v\n  board: %s", step, err, rowsText(d))
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
