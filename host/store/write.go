package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/state"
)

// Event is one event as the store keeps it: whose (Machine: Local for this
// host's own), its place in that machine's own sequence (Seq, from 1), the
// agent that sent it, and the event. A machine's events are inserted once
// by (Machine, Seq), so a replay after a lost link counts nothing twice.
type Event struct {
	Machine string
	Seq     int64
	Agent   string
	state.Event
}

// fact is one thing to write.
type fact struct {
	ev     *Event
	answer *host.RecordedAnswer
	cost   *Cost
	tokens *Tokens
	launch *host.RecordedLaunch
	feed   *feedFact     // another machine's batch (Take)
	done   chan struct{} // Flush's marker
}

// Cost is what an agent reported a session has cost so far: USD, at At
// (ms since the epoch). The store keeps a row each time it changes.
type Cost struct {
	Session string
	USD     float64
	At      int64
}

// Tokens is tokens a session used since the last report (an increment,
// host/ledger's count), at At (ms since the epoch).
type Tokens struct {
	Session string
	N       int64
	At      int64
}

// Batching: the writer takes what has queued, up to batchMax facts, in one
// transaction; it waits batchWait for more after the first so a burst is
// one write, and never wakes while nothing comes.
const (
	batchMax  = 1024
	batchWait = 50 * time.Millisecond
	pruneEach = 6 * time.Hour
)

// RecordEvents is host.Recorder's: this host's applied events, queued.
func (s *Store) RecordEvents(evs []host.RecordedEvent) {
	for _, e := range evs {
		ev := e.Event
		if ev.At == 0 {
			ev.At = s.now().UnixMilli()
		}
		s.put(fact{ev: &Event{Machine: Local, Agent: e.Agent, Event: ev}})
	}
}

// RecordAnswer is host.Recorder's: a card's end.
func (s *Store) RecordAnswer(a host.RecordedAnswer) { s.put(fact{answer: &a}) }

// TypeWhy is the store's own event type for why a turn stopped
// (host.RecordedWhy): kept and fed to a hub as events are, never a
// session event of the vocabulary (state.json knows nothing of it). Its
// Tool is the Why's kind, its Outcome the words WhyText makes.
const TypeWhy = host.WhyEvent

// RecordWhy is host.Recorder's: why a turn stopped.
func (s *Store) RecordWhy(w host.RecordedWhy) {
	s.put(fact{ev: &Event{Machine: Local, Event: state.Event{Type: TypeWhy, Session: w.Session, At: w.At.UnixMilli(),
		Tool: w.Kind, Outcome: WhyText(w.Why)}}})
}

// WhyText is a Why as the history keeps it: its kind's words, and the
// agent's after a colon ("usage limit: You've hit your limit · resets
// 2pm"), one line, bounded by state.MaxReason.
func WhyText(w hookjson.Why) string {
	t := w.Label()
	if w.Words != "" {
		t += ": " + w.Words
	}
	return hookjson.OneLine(t, state.MaxReason)
}

// RecordCost is host.Recorder's: the cost an agent reports for a session.
func (s *Store) RecordCost(session string, usd float64, at time.Time) {
	s.put(fact{cost: &Cost{Session: session, USD: usd, At: at.UnixMilli()}})
}

// RecordTokens is host.TokensRecorder's: tokens a session used since the
// last report.
func (s *Store) RecordTokens(session string, n int64, at time.Time) {
	if n > 0 {
		s.put(fact{tokens: &Tokens{Session: session, N: n, At: at.UnixMilli()}})
	}
}

// RecordLaunch is host.LaunchRecorder's: a start from the board, or its
// refusal.
func (s *Store) RecordLaunch(l host.RecordedLaunch) { s.put(fact{launch: &l}) }

// put queues f, or drops it when the queue is full (counted, logged at the
// next batch).
func (s *Store) put(f fact) {
	select {
	case s.in <- f:
	default:
		s.dropped.Add(1)
	}
}

// Flush waits until everything queued before it is written (tests, the
// export of a running host).
func (s *Store) Flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case s.in <- fact{done: done}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run writes what is queued until ctx ends, then what is left. It prunes
// at start and every few hours, and rebuilds the totals of the days the
// writes touched once they pause (or every daysEvery while they go on).
func (s *Store) Run(ctx context.Context) error {
	s.prune(ctx)
	s.writeDays() // the days a stopped host left stale
	prune := time.NewTicker(pruneEach)
	defer prune.Stop()
	days := time.NewTimer(time.Hour)
	days.Stop()
	var since time.Time // the first write since the last rebuild
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	for {
		if len(s.pending) > 0 {
			retry.Reset(retryEvery)
		}
		var first fact
		select {
		case first = <-s.in:
		case <-retry.C:
			s.write(nil) // what the file refused, with nothing new to carry it
			continue
		case <-prune.C:
			s.prune(ctx)
			continue
		case <-days.C:
			s.writeDays()
			since = time.Time{}
			continue
		case <-ctx.Done():
			s.drain()
			if len(s.pending) > 0 {
				s.write(nil) // one more try as the host stops
			}
			s.writeDays()
			return nil
		}
		retry.Stop()
		batch := []fact{first}
		timer := time.NewTimer(batchWait)
	more:
		for len(batch) < batchMax {
			select {
			case f := <-s.in:
				batch = append(batch, f)
			case <-timer.C:
				break more
			case <-ctx.Done():
				break more
			}
		}
		timer.Stop()
		s.write(batch)
		if since.IsZero() {
			since = time.Now()
		}
		if time.Since(since) >= daysEvery {
			s.writeDays()
			since = time.Time{}
			days.Stop()
		} else {
			days.Reset(daysPause)
		}
	}
}

// The days' totals are rebuilt when the writes pause for daysPause, and at
// least every daysEvery while they go on: a bar is at most that late, and
// a burst of hooks costs one rebuild, not one per batch.
const (
	daysPause = time.Second
	daysEvery = 10 * time.Second
)

// writeDays rebuilds the stale days' totals in one transaction, and
// forgets them as stale once that is committed.
func (s *Store) writeDays() {
	if len(s.stale) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.wtx(ctx, func(tx dbtx) error {
		for day := range s.stale {
			if err := rebuildDay(ctx, tx, day); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM days_stale WHERE day = ?`, day); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		s.stale = map[int64]bool{}
	}
	s.setProblem(err)
	s.changes.Notify()
}

// drain writes what is queued at shutdown.
func (s *Store) drain() {
	for {
		var batch []fact
	take:
		for len(batch) < batchMax {
			select {
			case f := <-s.in:
				batch = append(batch, f)
			default:
				break take
			}
		}
		if len(batch) == 0 {
			return
		}
		s.write(batch)
	}
}

// retryEvery is how soon the writer tries again to write what a busy or
// full file refused, when nothing new comes to carry it.
const retryEvery = time.Second

// write applies a batch in one transaction, after what earlier batches
// could not write (pending).
func (s *Store) write(batch []fact) {
	if len(s.pending) > 0 {
		batch = append(s.pending, batch...)
		s.pending = nil
	}
	if n := s.dropped.Swap(0); n > 0 {
		s.log.Warn("the history fell behind: facts were dropped", "log_type", logx.TypeHistory, slog.Group("data", "dropped", n))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.others(ctx)
	err := s.wtx(ctx, func(tx dbtx) error {
		for _, f := range batch {
			var err error
			switch {
			case f.ev != nil:
				err = s.applyEvent(ctx, tx, f.ev)
			case f.answer != nil:
				err = s.applyAnswer(ctx, tx, Local, 0, f.answer)
			case f.cost != nil:
				err = s.applyCost(ctx, tx, Local, 0, f.cost)
			case f.tokens != nil:
				err = s.applyTokens(ctx, tx, f.tokens)
			case f.launch != nil:
				err = applyLaunch(ctx, tx, f.launch)
			case f.feed != nil:
				err = s.applyFeed(ctx, tx, f.feed)
			}
			if err != nil {
				return err
			}
		}
		if err := s.writeTools(ctx, tx); err != nil {
			return err
		}
		if err := s.writeEvents(ctx, tx); err != nil {
			return err
		}
		if err := s.markLocal(ctx, tx); err != nil {
			return err
		}
		return s.markStale(ctx, tx)
	})
	if err != nil {
		s.forgetCache() // it may hold what was rolled back
		s.keepForLater(batch, err)
	} else {
		s.marked = s.oseq
	}
	s.settle(err == nil)
	s.setProblem(err)
	for _, f := range batch {
		if f.feed != nil {
			f.feed.err <- err
		}
		if f.done != nil {
			s.writeDays() // what Flush waits for includes the days' totals
			close(f.done)
		}
	}
	s.changes.Notify()
}

// keepForLater keeps this host's own facts of a batch the file refused for
// a while — locked by another program past the busy timeout, full, an I/O
// error — to be written first by the next batch (or by the writer's retry),
// so a session that starts meanwhile is late in the history, not lost. The
// sequence numbers the batch gave are taken back (nothing committed them),
// so its facts take the same again. At most queueLen facts wait: beyond
// that the newest are dropped and counted, as a full queue's are. Another
// machine's batch (its feed asks again from its mark) and a failure of the
// facts themselves (which no retry would mend) are not kept.
func (s *Store) keepForLater(batch []fact, err error) {
	if !fileBusy(err) {
		return
	}
	s.oseq = s.marked
	for _, f := range batch {
		if f.ev == nil && f.answer == nil && f.cost == nil && f.tokens == nil && f.launch == nil {
			continue
		}
		if len(s.pending) >= queueLen {
			s.dropped.Add(1)
			continue
		}
		if f.ev != nil && f.ev.Machine == Local {
			f.ev.Seq = 0 // given again when it is written
		}
		s.pending = append(s.pending, f)
	}
}

// fileBusy reports whether err is the file's state rather than the facts':
// busy or locked (another program's transaction), full, an I/O error, or
// the batch's own time running out while it waited.
func fileBusy(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff { // the primary code of an extended one
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR:
		return true
	}
	return false
}

func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

type turnKey struct{ machine, session string }

// openTurn is a session's latest turn, kept while the writer adds to it.
type openTurn struct {
	seq     int
	ended   bool
	tools   map[string]int
	errors  int
	tokens  int64
	changed bool // tools or errors to write at the batch's end
}

// status words of a span, from the event that starts it ("" starts none).
func spanOf(e *Event) string {
	switch e.Type {
	case state.TypeTurnStarted, state.TypeApprovalResolved:
		return state.StatusWorking
	case state.TypeApprovalRequested:
		return state.StatusAttention
	case state.TypeTurnEnded, state.TypeSessionEnded:
		if e.Outcome == state.OutcomeError {
			return state.StatusError
		}
		return state.StatusDone
	}
	return ""
}

// outcomeOf is a turn's or session's end in the store's words.
func outcomeOf(o string) string {
	if o == state.OutcomeError {
		return "error"
	}
	return "done"
}

func (s *Store) applyEvent(ctx context.Context, tx dbtx, e *Event) error {
	if e.Machine == Local && e.Seq == 0 {
		// This host's own, its sequence given now: never a replay, so its
		// row waits for the batch's end, many rows a statement (writeEvents).
		s.oseq++
		e.Seq = s.oseq
		s.events = append(s.events, e.Seq, e.Session, e.At, e.Type, e.Tool, e.Outcome)
	} else {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO events (machine, oseq, session, at_ms, type, tool, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			e.Machine, e.Seq, e.Session, e.At, e.Type, e.Tool, e.Outcome)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // a replay: counted already
		}
	}
	if e.Type == state.TypeContextTokens && !s.knows(ctx, tx, e.Machine, e.Session) {
		return nil
	}
	if e.Type == TypeWhy {
		return s.why(ctx, tx, e)
	}
	if err := s.session(ctx, tx, e); err != nil {
		return err
	}
	k := turnKey{e.Machine, e.Session}
	switch e.Type {
	case state.TypeSessionOpened:
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET ended_ms = 0, outcome = '' WHERE machine = ? AND id = ? AND ended_ms != 0`, e.Machine, e.Session); err != nil {
			return err
		}
	case state.TypeTurnStarted:
		t, err := s.turn(ctx, tx, k)
		if err != nil {
			return err
		}
		seq := 1
		if t != nil {
			seq = t.seq + 1
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO turns (machine, session, seq, started_ms) VALUES (?, ?, ?, ?)`, e.Machine, e.Session, seq, e.At); err != nil {
			return err
		}
		s.touch(e.At)
		s.mu.Lock()
		s.open[k] = &openTurn{seq: seq, tools: map[string]int{}}
		s.mu.Unlock()
	case state.TypeToolStarted, state.TypeToolEnded:
		t, err := s.turn(ctx, tx, k)
		if err != nil || t == nil || t.ended {
			return err
		}
		if e.Type == state.TypeToolStarted {
			t.tools[state.Cut(e.Tool, 100)]++
		} else if e.Outcome == state.OutcomeError {
			t.errors++
		}
		s.toolsChanged(k, t) // written once at the batch's end

	case state.TypeContextTokens:
		s.touch(e.At) // a count after the turn's end still belongs to its day
		if e.Tokens != nil {
			t, err := s.turn(ctx, tx, k)
			if err != nil {
				return err
			}
			if t != nil && t.tokens != *e.Tokens {
				if _, err := tx.ExecContext(ctx, `UPDATE turns SET context_tokens = ? WHERE machine = ? AND session = ? AND seq = ?`, *e.Tokens, e.Machine, e.Session, t.seq); err != nil {
					return err
				}
				t.tokens = *e.Tokens
			}
		}
	case state.TypeTurnEnded, state.TypeSessionEnded:
		t, err := s.turn(ctx, tx, k)
		if err != nil {
			return err
		}
		if t != nil && !t.ended {
			t.ended = true
			if _, err := tx.ExecContext(ctx, `UPDATE turns SET ended_ms = ?, outcome = ? WHERE machine = ? AND session = ? AND seq = ?`, e.At, outcomeOf(e.Outcome), e.Machine, e.Session, t.seq); err != nil {
				return err
			}
			s.touch(e.At)
		} else if t != nil && e.Type == state.TypeTurnEnded {
			// The board changed its mind on an ended turn (a failure that
			// was the human's cancel): the turn's verdict follows, its
			// time stays.
			if _, err := tx.ExecContext(ctx, `UPDATE turns SET outcome = ? WHERE machine = ? AND session = ? AND seq = ? AND ended_ms != 0 AND outcome != ?`,
				outcomeOf(e.Outcome), e.Machine, e.Session, t.seq, outcomeOf(e.Outcome)); err != nil {
				return err
			}
		}
		// A session's first end is its end: a second (a restarted host's
		// word on a session that had ended) rewrites no time of it.
		if e.Type == state.TypeSessionEnded {
			res, err := tx.ExecContext(ctx, `UPDATE sessions SET ended_ms = ?, outcome = ? WHERE machine = ? AND id = ? AND ended_ms = 0`, e.At, outcomeOf(e.Outcome), e.Machine, e.Session)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				// The session is over: its last band (its verdict) ends
				// with it, not at now nor at a later restart.
				if err := s.span(ctx, tx, e); err != nil {
					return err
				}
				return s.closeSpans(ctx, tx, e.Machine, e.Session, e.At)
			}
			return nil // it had ended: a second end moves no band
		}
	case state.TypeSessionFinished:
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET ended_ms = ?, outcome = CASE WHEN outcome = '' THEN 'ended' ELSE outcome END WHERE machine = ? AND id = ? AND ended_ms = 0`, e.At, e.Machine, e.Session); err != nil {
			return err
		}
		return s.closeSpans(ctx, tx, e.Machine, e.Session, e.At)
	}
	return s.span(ctx, tx, e)
}

// why keeps why a turn stopped on the session's latest turn and on the
// session (its search words), for a session the store holds.
func (s *Store) why(ctx context.Context, tx dbtx, e *Event) error {
	if !s.knows(ctx, tx, e.Machine, e.Session) {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE turns SET why = ?1 WHERE machine = ?2 AND session = ?3 AND seq = (SELECT max(seq) FROM turns WHERE machine = ?2 AND session = ?3) AND why != ?1`,
		e.Outcome, e.Machine, e.Session); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET why = ?1 WHERE machine = ?2 AND id = ?3 AND why != ?1`, e.Outcome, e.Machine, e.Session)
	return err
}

// knows reports whether the store has machine's session (a count, or
// another machine's answer, for a session it does not hold opens nothing).
func (s *Store) knows(ctx context.Context, tx dbtx, machine, session string) bool {
	if s.rows[turnKey{machine, session}] != nil {
		return true
	}
	var one int
	return tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE machine = ? AND id = ?`, machine, session).Scan(&one) == nil
}

// span moves a session's status band on, when the event changes it.
func (s *Store) span(ctx context.Context, tx dbtx, e *Event) error {
	status := spanOf(e)
	if status == "" {
		return nil
	}
	row := s.rows[turnKey{e.Machine, e.Session}] // session() put it there
	if row == nil {
		return nil // not a session the store has
	}
	if !row.spanKnown {
		err := tx.QueryRowContext(ctx, `SELECT status FROM spans WHERE machine = ? AND session = ? AND to_ms = 0 ORDER BY from_ms DESC LIMIT 1`, e.Machine, e.Session).Scan(&row.span)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		row.spanKnown = true
	}
	cur := row.span
	if cur == status {
		return nil
	}
	if e.Type == state.TypeApprovalResolved && cur != state.StatusAttention {
		return nil // an answer outside a wait moves nothing
	}
	if err := s.closeSpans(ctx, tx, e.Machine, e.Session, e.At); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO spans (machine, session, from_ms, status) VALUES (?, ?, ?, ?)`, e.Machine, e.Session, e.At, status)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		row.span = status
	} // else the band was there, closed: none is open
	return nil
}

// closeSpans ends a session's open band at to, split at each local
// midnight it crosses (so a day's bands are a range of from_ms), and marks
// the days it covered for their totals.
func (s *Store) closeSpans(ctx context.Context, tx dbtx, machine, session string, to int64) error {
	if row := s.rows[turnKey{machine, session}]; row != nil {
		if row.spanKnown && row.span == "" {
			return nil // none open
		}
		row.span, row.spanKnown = "", true
	}
	rows, err := tx.QueryContext(ctx, `SELECT from_ms, status FROM spans WHERE machine = ? AND session = ? AND to_ms = 0`, machine, session)
	if err != nil {
		return err
	}
	type open struct {
		from   int64
		status string
	}
	var spans []open
	for rows.Next() {
		var o open
		if err := rows.Scan(&o.from, &o.status); err != nil {
			rows.Close()
			return err
		}
		spans = append(spans, o)
	}
	rows.Close()
	for _, o := range spans {
		end := max(to, o.from)
		cut := nextMidnight(o.from)
		first := min(cut, end)
		if _, err := tx.ExecContext(ctx, `UPDATE spans SET to_ms = ? WHERE machine = ? AND session = ? AND from_ms = ? AND status = ?`, first, machine, session, o.from, o.status); err != nil {
			return err
		}
		s.touch(o.from)
		for from := cut; from < end; from = nextMidnight(from) {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO spans (machine, session, from_ms, status, to_ms) VALUES (?, ?, ?, ?, ?)`,
				machine, session, from, o.status, min(nextMidnight(from), end)); err != nil {
				return err
			}
			s.touch(from)
		}
	}
	return nil
}

// session opens the event's session row when it is new (a day's count)
// and updates what the event says of it, only when that changes it (the
// search's index follows each change).
func (s *Store) session(ctx context.Context, tx dbtx, e *Event) error {
	if e.Project == "" && e.Cwd != "" {
		e.Project = state.ProjectFromCwd(e.Cwd) // the row's own rule: the folder's last segment
	}
	k := turnKey{e.Machine, e.Session}
	row := s.rows[k]
	if row != nil && row.says(e) {
		return nil // the row says it all already: most events, no statement
	}
	if row == nil {
		// Its rowid is its start's key, the next free among those started in
		// the same millisecond (a thousand taken: the next rowid of all).
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO sessions (rowid, machine, id, agent, project, cwd, title, parent, started_ms)
			VALUES ((SELECT CASE WHEN n < ?1 + 1000 THEN n END FROM (SELECT coalesce(max(rowid) + 1, ?1) AS n FROM sessions WHERE rowid >= ?1 AND rowid < ?1 + 1000)),
			?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)`,
			startKey(e.At), e.Machine, e.Session, e.Agent, e.Project, e.Cwd, e.Title, e.Parent, e.At)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			s.touch(e.At)
			s.keep(k, &sessionRow{agent: e.Agent, project: e.Project, cwd: e.Cwd, title: e.Title, parent: e.Parent, spanKnown: true})
			return nil
		}
		row = &sessionRow{}
		if err := tx.QueryRowContext(ctx, `SELECT agent, project, cwd, title, parent FROM sessions WHERE machine = ? AND id = ?`, e.Machine, e.Session).
			Scan(&row.agent, &row.project, &row.cwd, &row.title, &row.parent); err != nil {
			return err
		}
		s.keep(k, row)
		if row.says(e) {
			return nil
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET
			agent = CASE WHEN ?1 != '' THEN ?1 ELSE agent END,
			project = CASE WHEN ?2 != '' THEN ?2 ELSE project END,
			cwd = CASE WHEN ?3 != '' THEN ?3 ELSE cwd END,
			title = CASE WHEN ?4 != '' THEN ?4 ELSE title END,
			parent = CASE WHEN ?5 != '' THEN ?5 ELSE parent END
		WHERE machine = ?6 AND id = ?7`,
		e.Agent, e.Project, e.Cwd, e.Title, e.Parent, e.Machine, e.Session)
	row.take(e)
	return err
}

// sessionRow is what the writer knows of a session's row: its words as
// the file has them, and its open band's status (spanKnown: read or
// written since). Kept between batches while no other connection writes
// (Store.others).
type sessionRow struct {
	agent, project, cwd, title, parent string
	span                               string // "" none open
	spanKnown                          bool
}

// says reports whether the row already holds every word the event gives.
func (r *sessionRow) says(e *Event) bool {
	same := func(give, has string) bool { return give == "" || give == has }
	return same(e.Agent, r.agent) && same(e.Project, r.project) && same(e.Cwd, r.cwd) && same(e.Title, r.title) && same(e.Parent, r.parent)
}

// take is says' update: the words the event gives.
func (r *sessionRow) take(e *Event) {
	set := func(has *string, give string) {
		if give != "" {
			*has = give
		}
	}
	set(&r.agent, e.Agent)
	set(&r.project, e.Project)
	set(&r.cwd, e.Cwd)
	set(&r.title, e.Title)
	set(&r.parent, e.Parent)
}

// keep caches a session's row, the cache bounded as the turns' is.
func (s *Store) keep(k turnKey, r *sessionRow) {
	if len(s.rows) > 4096 {
		s.rows = map[turnKey]*sessionRow{}
	}
	s.rows[k] = r
}

// toolsChanged notes a turn whose tools or errors the batch changed, to
// be written once at its end (writeTools).
func (s *Store) toolsChanged(k turnKey, t *openTurn) {
	if !t.changed {
		t.changed = true
		s.changedTurns = append(s.changedTurns, changedTurn{k, t})
	}
}

type changedTurn struct {
	k turnKey
	t *openTurn
}

// eventsPer is how many of this host's own events one INSERT writes.
const eventsPer = 64

// writeEvents writes the rows of this host's own events the batch took
// (s.events: six values each), eventsPer a statement.
func (s *Store) writeEvents(ctx context.Context, tx dbtx) error {
	const cols = 6
	for len(s.events) > 0 {
		n := min(len(s.events)/cols, eventsPer)
		if n < eventsPer {
			n = 1 // the rest one by one: one statement prepared for each size
		}
		args := make([]any, 0, 1+n*cols)
		args = append(args, Local)
		args = append(args, s.events[:n*cols]...)
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO events (machine, oseq, session, at_ms, type, tool, outcome) VALUES `+eventRows[n], args...); err != nil {
			return err
		}
		s.events = s.events[n*cols:]
	}
	s.events = s.events[:0]
	return nil
}

// eventRows are the VALUES of writeEvents' two statements, by rows.
var eventRows = map[int]string{1: "(?1, ?, ?, ?, ?, ?, ?)", eventsPer: "(?1, ?, ?, ?, ?, ?, ?)" + strings.Repeat(", (?1, ?, ?, ?, ?, ?, ?)", eventsPer-1)}

// writeTools writes the tools and errors of the turns the batch changed.
func (s *Store) writeTools(ctx context.Context, tx dbtx) error {
	for _, c := range s.changedTurns {
		c.t.changed = false
		tools, _ := json.Marshal(c.t.tools)
		if _, err := tx.ExecContext(ctx, `UPDATE turns SET tools = ?, errors = ? WHERE machine = ? AND session = ? AND seq = ?`, string(tools), c.t.errors, c.k.machine, c.k.session, c.t.seq); err != nil {
			return err
		}
	}
	s.changedTurns = s.changedTurns[:0]
	return nil
}

// others drops what the writer keeps of the file when another connection
// wrote it since the last batch (PRAGMA data_version: this process's
// forget or prune, or another notch-web's `history forget`): its rows,
// turns and bands are read again.
func (s *Store) others(ctx context.Context) {
	var v int64
	if err := s.wc.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil || v != s.dataVersion {
		s.forgetCache()
		s.dataVersion = v
	}
}

// forgetCache drops the writer's cache of rows, turns and bands.
func (s *Store) forgetCache() {
	s.mu.Lock()
	s.open = map[turnKey]*openTurn{}
	s.mu.Unlock()
	s.rows = map[turnKey]*sessionRow{}
	s.changedTurns = s.changedTurns[:0]
	s.events = s.events[:0]
}

// turn is the session's latest turn from the cache, else the file; nil
// before its first.
func (s *Store) turn(ctx context.Context, tx dbtx, k turnKey) (*openTurn, error) {
	s.mu.Lock()
	t := s.open[k]
	s.mu.Unlock()
	if t != nil {
		return t, nil
	}
	var tools string
	var ended int64
	t = &openTurn{}
	err := tx.QueryRowContext(ctx, `SELECT seq, tools, errors, ended_ms, context_tokens FROM turns WHERE machine = ? AND session = ? ORDER BY seq DESC LIMIT 1`, k.machine, k.session).
		Scan(&t.seq, &tools, &t.errors, &ended, &t.tokens)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t.ended = ended != 0
	if json.Unmarshal([]byte(tools), &t.tools) != nil || t.tools == nil {
		t.tools = map[string]int{}
	}
	if len(s.open) > 4096 {
		// Bounded: the turns whose tools wait for the batch's end are
		// written first, or a turn read again would lose them.
		if err := s.writeTools(ctx, tx); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.open = map[turnKey]*openTurn{}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.open[k] = t
	s.mu.Unlock()
	return t, nil
}

// applyAnswer writes an answered card of machine's. This host's own takes
// the next of its sequence, so the feed sends it as it sends events;
// another machine's comes with its own (seq) and is written once, and only
// for a session the store holds: one forgotten or pruned here is not
// brought back by its answers.
func (s *Store) applyAnswer(ctx context.Context, tx dbtx, machine string, seq int64, a *host.RecordedAnswer) error {
	local := machine == Local
	if local {
		seq = s.oseq + 1
	} else if !s.knows(ctx, tx, machine, a.Session) {
		return nil
	}
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO answers (machine, session, call, asked_ms, answered_ms, agent, tool, by, device, outcome, oseq, operation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		machine, a.Session, a.Call, a.Asked.UnixMilli(), a.Answered.UnixMilli(), a.Agent, state.Cut(a.Tool, 100), a.By, host.AnswerDevice(a.Device), a.Outcome, seq, operationID(a.OperationID))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 && local {
		s.oseq = seq // a card recorded twice takes no second number
	}
	return nil
}

// maxOperationID bounds a stored operation id: this host's are 16 hex
// digits (web.OperationID); anything longer is not one of ours.
const maxOperationID = 64

// operationID is id as the answers table keeps it: ” unless it is at
// most maxOperationID bytes of letters, digits, '-' and '_'.
func operationID(id string) string {
	if len(id) > maxOperationID {
		return ""
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_') {
			return ""
		}
	}
	return id
}

// applyCost writes a cost an agent reported for machine's session, and
// makes it the session's and its turn's. This host's own is kept only
// when it changes the session's, and takes the next of its sequence;
// another machine's (seq: its own) was kept there on the same rule, so
// each is written, once: a cost taken again moves nothing.
func (s *Store) applyCost(ctx context.Context, tx dbtx, machine string, seq int64, c *Cost) error {
	local := machine == Local
	var last sql.NullFloat64
	if err := tx.QueryRowContext(ctx, `SELECT cost_usd FROM sessions WHERE machine = ? AND id = ?`, machine, c.Session).Scan(&last); err != nil {
		if err == sql.ErrNoRows {
			return nil
		}
		return err
	}
	if local {
		if last.Valid && last.Float64 == c.USD {
			return nil
		}
		seq = s.oseq + 1
	}
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO costs (machine, session, at_ms, usd, oseq) VALUES (?, ?, ?, ?, ?)`, machine, c.Session, c.At, c.USD, seq)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 && local {
		s.oseq = seq
	} else if n == 0 && !local {
		return nil // a replay: counted already
	}
	s.touch(c.At)
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET cost_usd = ? WHERE machine = ? AND id = ?`, c.USD, machine, c.Session); err != nil {
		return err
	}
	// The turn the report falls in: the last to start before it.
	_, err = tx.ExecContext(ctx, `UPDATE turns SET cost_usd = ? WHERE machine = ? AND session = ? AND seq = (SELECT max(seq) FROM turns WHERE machine = ? AND session = ? AND started_ms <= ?)`,
		c.USD, machine, c.Session, machine, c.Session, c.At)
	return err
}

// applyTokens adds tokens a session of this host's used to its running
// total, and keeps the new total (a row in tokens, the session's and its
// turn's). A session the history does not hold takes none (as for cost).
// Two reports in one millisecond are one row, the later total.
func (s *Store) applyTokens(ctx context.Context, tx dbtx, t *Tokens) error {
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT tokens FROM sessions WHERE machine = ? AND id = ?`, Local, t.Session).Scan(&last); err != nil {
		if err == sql.ErrNoRows {
			return nil
		}
		return err
	}
	total := last.Int64 + t.N
	// A session's totals grow with time: a report stamped before the
	// session's last (an export's records out of order) is kept at the
	// last's time, so no day's growth is negative.
	at := t.At
	var prev sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(at_ms) FROM tokens WHERE machine = ? AND session = ?`, Local, t.Session).Scan(&prev); err != nil {
		return err
	}
	if prev.Valid && prev.Int64 > at {
		at = prev.Int64
	}
	// The row takes the next of this host's sequence (a hub is fed it);
	// one that replaces the same millisecond's takes a new number, so the
	// hub is fed the later total too.
	seq := s.oseq + 1
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tokens (machine, session, at_ms, total, oseq) VALUES (?, ?, ?, ?, ?)`, Local, t.Session, at, total, seq); err != nil {
		return err
	}
	s.oseq = seq
	return s.keepTokens(ctx, tx, Local, t.Session, total, at)
}

// keepTokens makes total a session's tokens and its turn's: the last turn
// to start before at.
func (s *Store) keepTokens(ctx context.Context, tx dbtx, machine, session string, total, at int64) error {
	s.touch(at)
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET tokens = ? WHERE machine = ? AND id = ?`, total, machine, session); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE turns SET tokens = ? WHERE machine = ? AND session = ? AND seq = (SELECT max(seq) FROM turns WHERE machine = ? AND session = ? AND started_ms <= ?)`,
		total, machine, session, machine, session, at)
	return err
}

// applyFedTokens writes another machine's row of tokens (seq: its own),
// as that machine keeps it: its session's total at its time. A session
// the hub does not hold takes none; a row at or before the session's
// last taken (a resend, in the machine's order) moves nothing; a later
// total in the same millisecond replaces the earlier, as on the machine.
func (s *Store) applyFedTokens(ctx context.Context, tx dbtx, machine string, seq int64, t *TokenTotal) error {
	var known int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE machine = ? AND id = ?`, machine, t.Session).Scan(&known); err != nil || known == 0 {
		return err
	}
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(oseq), 0) FROM tokens WHERE machine = ? AND session = ?`, machine, t.Session).Scan(&last); err != nil {
		return err
	}
	if seq <= last {
		return nil // a replay: counted already
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tokens (machine, session, at_ms, total, oseq) VALUES (?, ?, ?, ?, ?)`, machine, t.Session, t.At, t.Total, seq); err != nil {
		return err
	}
	return s.keepTokens(ctx, tx, machine, t.Session, t.Total, t.At)
}

// touch marks the local day of ms as changed by the batch (the writer's
// own state): markStale records it in the batch's transaction.
func (s *Store) touch(ms int64) {
	if s.dirty == nil {
		s.dirty = map[int64]bool{}
	}
	s.dirty[midnightMs(ms)] = true
}

// markStale records, in the batch's own transaction, the days it changed
// that are not stale yet: a reader of the same snapshot counts them live
// (Days), and a crash before their rebuild leaves them marked.
func (s *Store) markStale(ctx context.Context, tx dbtx) error {
	for day := range s.dirty {
		if s.stale[day] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO days_stale (day) VALUES (?)`, day); err != nil {
			return err
		}
	}
	return nil
}

// settle takes the batch's changed days into the stale ones once it is
// committed (a batch rolled back changed none).
func (s *Store) settle(committed bool) {
	if committed {
		for day := range s.dirty {
			s.stale[day] = true
		}
	}
	s.dirty = nil
}

// rebuildDay writes day's totals as the tables hold them (a day with
// nothing has no row).
func rebuildDay(ctx context.Context, tx dbtx, day int64) error {
	b, err := dayTotals(ctx, tx, day)
	if err != nil {
		return err
	}
	if b.Sessions == 0 && b.Turns == 0 && b.WorkingMs == 0 && b.WaitingMs == 0 && b.Tokens == 0 && b.CostUSD == nil {
		_, err := tx.ExecContext(ctx, `DELETE FROM days WHERE day = ?`, day)
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO days (day, sessions, turns, working_ms, waiting_ms, tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		day, b.Sessions, b.Turns, b.WorkingMs, b.WaitingMs, b.Tokens, b.CostUSD)
	return err
}

// dayTotals are the totals of the local day that begins at day (ms), from
// the tables (each a few indexed range reads): its sessions and turns by
// their start, its closed bands, the largest context of each session's
// turns that ended that day, and the cost reported that day. The bands
// still open are the reader's to add (Days: they grow with now).
func dayTotals(ctx context.Context, tx dbtx, day int64) (DayBar, error) {
	end := nextMidnight(day)
	b := DayBar{Day: time.UnixMilli(day)}
	var cost sql.NullFloat64
	q := func(dst any, query string, args ...any) error {
		return tx.QueryRowContext(ctx, query, args...).Scan(dst)
	}
	if err := q(&b.Sessions, `SELECT count(*) FROM sessions WHERE started_ms >= ? AND started_ms < ?`, day, end); err != nil {
		return b, err
	}
	if err := q(&b.Turns, `SELECT count(*) FROM turns WHERE started_ms >= ? AND started_ms < ?`, day, end); err != nil {
		return b, err
	}
	band := `SELECT coalesce(sum(to_ms - from_ms), 0) FROM spans WHERE status = ? AND from_ms >= ? AND from_ms < ? AND to_ms != 0`
	if err := q(&b.WorkingMs, band, state.StatusWorking, day, end); err != nil {
		return b, err
	}
	if err := q(&b.WaitingMs, band, state.StatusAttention, day, end); err != nil {
		return b, err
	}
	if err := q(&b.Tokens, `SELECT coalesce(sum(m), 0) FROM (SELECT max(context_tokens) AS m FROM turns WHERE ended_ms >= ? AND ended_ms < ? GROUP BY machine, session)`, day, end); err != nil {
		return b, err
	}
	// The cost of a day: per session, its last report of the day less its
	// last before it; NULL when no agent reported one that day.
	if err := q(&cost, `SELECT sum(hi - lo) FROM (
			SELECT max(c.usd) AS hi, coalesce((SELECT max(b.usd) FROM costs b WHERE b.machine = c.machine AND b.session = c.session AND b.at_ms < ?), 0) AS lo
			FROM costs c WHERE c.at_ms >= ? AND c.at_ms < ? GROUP BY c.machine, c.session)`, day, day, end); err != nil {
		return b, err
	}
	b.CostUSD = floatPtr(cost)
	return b, nil
}

// startKey is the first rowid of the sessions started at ms: rowid order
// is start order (migration 3), a thousand to a millisecond. Times are
// bounded so the key fits (state.MaxAt is well within).
func startKey(ms int64) int64 { return min(max(ms, 0), maxKeyedMs) * 1000 }

const maxKeyedMs = 9_000_000_000_000_000

// midnightMs is the local midnight that begins the day of ms.
func midnightMs(ms int64) int64 { return midnight(time.UnixMilli(ms)).UnixMilli() }

// nextMidnight is the local midnight after ms (a day may be 23 or 25 hours).
func nextMidnight(ms int64) int64 { return midnight(time.UnixMilli(ms)).AddDate(0, 0, 1).UnixMilli() }

// dbtx is what the writes need of a transaction: *sql.Tx, or the writer's
// own (wtx), whose statements are prepared once per Store.
type dbtx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// writerTx is a transaction of the writer's, running each query through
// a statement prepared once per Store (SQLite parses a query anew on every
// plain Exec: it was most of a write's cost; prepared once per
// transaction, the parse was still a fifth of a one-event batch's).
//
// Its statements run without the transaction's deadline: a context that
// can end makes the driver watch it with a goroutine and a progress
// handler for every statement (a third of a small write's CPU). The
// deadline still ends the transaction, and the file's busy timeout bounds
// a wait for its lock.
type writerTx struct {
	*sql.Tx
	s     *Store
	stmts map[string]*sql.Stmt // the transaction's own of s.prepared
	bg    context.Context      // the transaction's, without its end
}

func (w writerTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	var txs *sql.Stmt
	if st, ok := w.s.prepared[query]; ok {
		// The one prepared on the writer's connection, prepared there the
		// first time and kept with st.
		txs = w.Tx.StmtContext(w.bg, st)
	} else {
		var err error
		if txs, err = w.Tx.PrepareContext(w.bg, query); err != nil {
			return nil, err
		}
		w.s.unprepared = append(w.s.unprepared, query)
	}
	w.stmts[query] = txs
	return txs, nil
}

// prepare makes the pool's statements of the queries the writer's last
// transaction ran unprepared, for the next to run (the writer's alone: wtx
// runs on its goroutine). A statement of the pool, not of the writer's
// connection, so that a transaction of that connection can run it
// (sql.Tx.StmtContext re-prepares one that belongs to a connection, and
// reuses what the pool's has prepared there); prepared between the
// writer's transactions, since the pool's new connection may wait for the
// file's write lock to open.
func (s *Store) prepare(ctx context.Context) {
	for _, query := range s.unprepared {
		if _, ok := s.prepared[query]; ok {
			continue
		}
		st, err := s.db.PrepareContext(ctx, query)
		if err != nil {
			continue // prepared for each transaction again, as before
		}
		if s.prepared == nil {
			s.prepared = map[string]*sql.Stmt{}
		}
		s.prepared[query] = st
	}
	s.unprepared = s.unprepared[:0]
}

func (w writerTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(w.bg, args...)
}

func (w writerTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := w.stmt(ctx, query)
	if err != nil {
		return w.Tx.QueryRowContext(w.bg, query, args...) // the same error, as a Row
	}
	return st.QueryRowContext(w.bg, args...)
}

func (w writerTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(w.bg, args...)
}

// wtx runs fn in a transaction whose statements are prepared once per Store.
func (s *Store) wtx(ctx context.Context, fn func(dbtx) error) error {
	tx, err := s.wc.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer s.prepare(ctx)
	if err := fn(writerTx{Tx: tx, s: s, stmts: map[string]*sql.Stmt{}, bg: context.WithoutCancel(ctx)}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// applyLaunch keeps a start or a refusal.
func applyLaunch(ctx context.Context, tx dbtx, l *host.RecordedLaunch) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO launches (at_ms, machine, device, folder, agent, worktree, resume, pane, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.At.UnixMilli(), l.Machine, l.Device, l.Folder, l.Agent, l.Worktree, l.Resume, l.Pane, l.Outcome)
	return err
}

// Launch is one start or refusal as the history keeps it.
type Launch struct {
	AtMs                                                   int64
	Machine, Device, Folder, Agent, Worktree, Resume, Pane string
	Outcome                                                string // "started" or the refusal's words
}

// Launches are the latest n starts and refusals, newest first.
func (s *Store) Launches(ctx context.Context, n int) ([]Launch, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at_ms, machine, device, folder, agent, worktree, resume, pane, outcome FROM launches ORDER BY at_ms DESC, rowid DESC LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Launch
	for rows.Next() {
		var l Launch
		if err := rows.Scan(&l.AtMs, &l.Machine, &l.Device, &l.Folder, &l.Agent, &l.Worktree, &l.Resume, &l.Pane, &l.Outcome); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
