// Package store is the lasting history: every session, turn and answer of
// every machine in one embedded SQLite file (modernc.org/sqlite: pure Go,
// no cgo, the C SQLite translated), so the History page, the row's ▸ panel
// after a restart, `notch-web history export` and the day's pictures read
// what came before.
//
// The board never waits on it: the host hands it facts (host.Recorder)
// that queue in memory and are written in batches by the store's own
// goroutine. A file that cannot be written (full, broken, locked too long)
// makes the history "unavailable" — one log record, the page says so —
// and the board goes on. The schema is versioned (PRAGMA user_version),
// migrated at open, and a file from a newer notch-web is refused.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/notify"
)

// File is the store's name in $DSH_HOME/state/agents-notch/.
const File = "history.db"

// Defaults of retention.
const (
	DefaultDays     = 90
	DefaultMaxBytes = 512 << 20
)

// ErrNewer: the file was written by a newer notch-web (its schema version
// is beyond this build's).
var ErrNewer = errors.New("the history file is from a newer notch-web")

// Options configure a Store.
type Options struct {
	Days     int   // keep sessions this many days (0: DefaultDays)
	MaxBytes int64 // and the file within this size (0: DefaultMaxBytes)
	Log      *slog.Logger
	Now      func() time.Time
}

// Store is the history. Open it, Run its writer, Close it.
type Store struct {
	db   *sql.DB
	path string
	opts Options
	log  *slog.Logger
	now  func() time.Time

	in      chan fact
	changes notify.Broadcast
	dropped atomic.Int64 // facts dropped because the queue was full

	mu      sync.Mutex
	problem string // "" healthy
	oseq    int64  // the last sequence given to a local event, answer or cost (the writer's)
	marked  int64  // the writer's: oseq as the feeds table has it
	open    map[turnKey]*openTurn
	dirty   map[int64]bool // the writer's: days whose totals the batch changed
	stale   map[int64]bool // the writer's: the days in days_stale (their totals not rebuilt yet)

	// The writer's own connection (the readers have the rest of the pool),
	// and what it keeps of the file between batches while no other
	// connection writes it (data_version).
	wc           *sql.Conn
	dataVersion  int64
	rows         map[turnKey]*sessionRow
	changedTurns []changedTurn
	events       []any                // this host's own events the batch took, as writeEvents' values
	pending      []fact               // this host's own facts of batches the file refused for a while (keepForLater)
	prepared     map[string]*sql.Stmt // the writer's statements, by query (prepare)
	unprepared   []string             // queries the writer's transaction ran without one
}

// queueLen bounds the facts waiting to be written: beyond it a fact is
// dropped and counted (the board never blocks).
const queueLen = 8192

// Open opens (or creates, mode 0600) the store at path and migrates it.
func Open(path string, o Options) (*Store, error) {
	if o.Days <= 0 {
		o.Days = DefaultDays
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// Created by hand so the mode is 0600 before SQLite writes a byte;
	// opened without waiting, and refused unless it is a regular file (a
	// FIFO there would hold the host's start).
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the history: %w", err)
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("opening the history: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("opening the history: %s is %s: %w; move it away", path, fsx.KindOf(fi.Mode()), fsx.ErrNotRegular)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	s := &Store{db: db, path: path, opts: o, log: o.Log, now: o.Now, in: make(chan fact, queueLen), open: map[turnKey]*openTurn{}}
	if err := s.migrate(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	if s.oseq, err = s.Last(context.Background(), Local); err != nil {
		db.Close()
		return nil, fmt.Errorf("reading the history: %w", err)
	}
	if s.stale, err = staleDays(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("reading the history: %w", err)
	}
	if s.oseq == 0 {
		// A new file's sequence begins at its clock (µs): a machine whose
		// file was moved aside goes on beyond what a hub took of the old
		// one, instead of starting again at 1 below the hub's mark.
		s.oseq = o.Now().UnixMicro()
	}
	if s.wc, err = db.Conn(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening the history: %w", err)
	}
	s.rows = map[turnKey]*sessionRow{}
	s.marked = s.oseq // kept once an event is given the next
	return s, nil
}

// dsn is the driver's name of the file at path: a URI (SQLite's
// file:PATH?QUERY) whose query sets the connection's options, with path's
// own %, ? and # escaped, or SQLite would read a DSH home named "a?b" as
// the file "a" and the query "b" (its options lost, the file elsewhere),
// and "%41" as "A".
func dsn(path string) string {
	path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + path + "?_pragma=busy_timeout(2000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=auto_vacuum(2)&_txlock=immediate"
}

// staleDays are the days whose totals wait for their rebuild (a host that
// stopped before it ran leaves them).
func staleDays(db *sql.DB) (map[int64]bool, error) {
	rows, err := db.Query(`SELECT day FROM days_stale`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var d int64
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out[d] = true
	}
	return out, rows.Err()
}

// Close closes the file. Call it after Run returned.
func (s *Store) Close() error {
	for _, st := range s.prepared {
		st.Close()
	}
	s.wc.Close()
	return s.db.Close()
}

// Path is the file's path.
func (s *Store) Path() string { return s.path }

// Problem is "" while the history is written, else why it is unavailable.
func (s *Store) Problem() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.problem
}

// Changes wakes its subscribers after each batch written.
func (s *Store) Changes() (<-chan struct{}, func()) { return s.changes.Subscribe() }

// setProblem records the history's health, logging each change once.
func (s *Store) setProblem(err error) {
	why := ""
	if err != nil {
		why = "history unavailable: " + err.Error()
	}
	s.mu.Lock()
	was := s.problem
	s.problem = why
	s.mu.Unlock()
	switch {
	case why != "" && was == "":
		s.log.Error(why+"; the board goes on without it", "log_type", logx.TypeHistory, logx.Err("history", err))
	case why == "" && was != "":
		s.log.Info("the history is written again", "log_type", logx.TypeHistory)
	}
}

// migrations are the schema, one step per version: user_version N means
// the first N ran. Append; never edit a step that shipped.
var migrations = []string{
	// 1: sessions (with a full-text index of their words for the search,
	// and the projects, machines and agents seen, for the filters),
	// turns, status bands (split at local midnight when they close, so a
	// day's are a range), answers, costs, the events they were made from
	// (each machine's own sequence: replays are idempotent), and each
	// day's totals (rebuilt from the rest for every day a write touches).
	`CREATE TABLE sessions (
		machine TEXT NOT NULL, id TEXT NOT NULL,
		agent TEXT NOT NULL DEFAULT '', project TEXT NOT NULL DEFAULT '', cwd TEXT NOT NULL DEFAULT '',
		title TEXT NOT NULL DEFAULT '', parent TEXT NOT NULL DEFAULT '',
		started_ms INTEGER NOT NULL, ended_ms INTEGER NOT NULL DEFAULT 0, outcome TEXT NOT NULL DEFAULT '',
		cost_usd REAL,
		UNIQUE (machine, id)
	);
	CREATE INDEX sessions_started ON sessions (started_ms);
	CREATE INDEX sessions_project ON sessions (project);
	CREATE INDEX sessions_agent ON sessions (agent);
	CREATE VIRTUAL TABLE sessions_words USING fts5 (words, tokenize = 'unicode61 remove_diacritics 2');
	CREATE TRIGGER sessions_words_insert AFTER INSERT ON sessions BEGIN
		INSERT INTO sessions_words (rowid, words) VALUES (new.rowid, concat_ws(' ', new.title, new.project, new.machine, new.agent, new.cwd));
	END;
	CREATE TRIGGER sessions_words_update AFTER UPDATE OF title, project, agent, cwd ON sessions BEGIN
		DELETE FROM sessions_words WHERE rowid = old.rowid;
		INSERT INTO sessions_words (rowid, words) VALUES (new.rowid, concat_ws(' ', new.title, new.project, new.machine, new.agent, new.cwd));
	END;
	CREATE TRIGGER sessions_words_delete AFTER DELETE ON sessions BEGIN
		DELETE FROM sessions_words WHERE rowid = old.rowid;
	END;
	CREATE TABLE facets (kind TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, value)) WITHOUT ROWID;
	CREATE TRIGGER facets_insert AFTER INSERT ON sessions BEGIN
		INSERT OR IGNORE INTO facets VALUES ('project', new.project), ('machine', new.machine), ('agent', new.agent);
	END;
	CREATE TRIGGER facets_update AFTER UPDATE OF project, agent ON sessions BEGIN
		INSERT OR IGNORE INTO facets VALUES ('project', new.project), ('agent', new.agent);
	END;
	CREATE TABLE turns (
		machine TEXT NOT NULL, session TEXT NOT NULL, seq INTEGER NOT NULL,
		started_ms INTEGER NOT NULL, ended_ms INTEGER NOT NULL DEFAULT 0, outcome TEXT NOT NULL DEFAULT '',
		tools TEXT NOT NULL DEFAULT '{}', errors INTEGER NOT NULL DEFAULT 0,
		context_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL,
		PRIMARY KEY (machine, session, seq)
	) WITHOUT ROWID;
	CREATE INDEX turns_started ON turns (started_ms);
	CREATE INDEX turns_ended ON turns (ended_ms);
	CREATE TABLE spans (
		machine TEXT NOT NULL, session TEXT NOT NULL, from_ms INTEGER NOT NULL,
		status TEXT NOT NULL, to_ms INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (machine, session, from_ms, status)
	) WITHOUT ROWID;
	CREATE INDEX spans_from ON spans (from_ms);
	CREATE INDEX spans_open ON spans (machine, session) WHERE to_ms = 0;
	CREATE TABLE answers (
		machine TEXT NOT NULL, session TEXT NOT NULL, call TEXT NOT NULL, asked_ms INTEGER NOT NULL,
		answered_ms INTEGER NOT NULL, agent TEXT NOT NULL DEFAULT '', tool TEXT NOT NULL DEFAULT '',
		by TEXT NOT NULL, outcome TEXT NOT NULL,
		PRIMARY KEY (machine, session, call, asked_ms)
	) WITHOUT ROWID;
	CREATE TABLE costs (
		machine TEXT NOT NULL, session TEXT NOT NULL, at_ms INTEGER NOT NULL, usd REAL NOT NULL,
		PRIMARY KEY (machine, session, at_ms)
	) WITHOUT ROWID;
	CREATE INDEX costs_at ON costs (at_ms);
	CREATE TABLE events (
		machine TEXT NOT NULL, oseq INTEGER NOT NULL, session TEXT NOT NULL, at_ms INTEGER NOT NULL,
		type TEXT NOT NULL, tool TEXT NOT NULL DEFAULT '', outcome TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (machine, oseq)
	) WITHOUT ROWID;
	CREATE INDEX events_session ON events (machine, session, at_ms);
	CREATE TABLE days (
		day INTEGER PRIMARY KEY,
		sessions INTEGER NOT NULL DEFAULT 0, turns INTEGER NOT NULL DEFAULT 0,
		working_ms INTEGER NOT NULL DEFAULT 0, waiting_ms INTEGER NOT NULL DEFAULT 0,
		tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL
	);`,
	// 2: each machine's mark in the feed (host/mesh): the last sequence
	// this store gave one of its own events (Local), or took of another
	// machine's. Forgetting or pruning events never lowers it, so no
	// sequence is given twice, and a forgotten session is not fed again.
	`CREATE TABLE feeds (machine TEXT PRIMARY KEY, oseq INTEGER NOT NULL) WITHOUT ROWID;`,
	// 3: a session's rowid is its start (startKey: started_ms × 1000 plus
	// a count among those started in the same millisecond), so rowid order
	// is the list's order and the search reads its index newest first,
	// stopping at a page. The search's index keeps no copy of the words
	// (contentless: they are the session's own columns) and has prefix
	// indexes of 1–8 characters, so a word's beginning is one list, not a
	// merge of every word it begins. The bands have an index by status
	// that covers the day's sums and waits, the turns' by their end covers
	// the day's context; days_stale keeps the days a
	// write touched until their totals are rebuilt (they are counted live
	// until then, and rebuilt after a crash).
	`CREATE TABLE sessions_v2 (
		machine TEXT NOT NULL, id TEXT NOT NULL,
		agent TEXT NOT NULL DEFAULT '', project TEXT NOT NULL DEFAULT '', cwd TEXT NOT NULL DEFAULT '',
		title TEXT NOT NULL DEFAULT '', parent TEXT NOT NULL DEFAULT '',
		started_ms INTEGER NOT NULL, ended_ms INTEGER NOT NULL DEFAULT 0, outcome TEXT NOT NULL DEFAULT '',
		cost_usd REAL,
		UNIQUE (machine, id)
	);
	CREATE TEMP TABLE keyed AS SELECT rowid AS old, max(0, min(started_ms, 9000000000000000)) * 1000 AS k,
		row_number() OVER (PARTITION BY max(0, min(started_ms, 9000000000000000)) ORDER BY rowid) - 1 AS n FROM sessions;
	INSERT INTO sessions_v2 (rowid, machine, id, agent, project, cwd, title, parent, started_ms, ended_ms, outcome, cost_usd)
		SELECT k.k + k.n, s.machine, s.id, s.agent, s.project, s.cwd, s.title, s.parent, s.started_ms, s.ended_ms, s.outcome, s.cost_usd
		FROM keyed k JOIN sessions s ON s.rowid = k.old WHERE k.n < 1000 ORDER BY k.k + k.n;
	INSERT INTO sessions_v2 (rowid, machine, id, agent, project, cwd, title, parent, started_ms, ended_ms, outcome, cost_usd)
		SELECT NULL, s.machine, s.id, s.agent, s.project, s.cwd, s.title, s.parent, s.started_ms, s.ended_ms, s.outcome, s.cost_usd
		FROM keyed k JOIN sessions s ON s.rowid = k.old WHERE k.n >= 1000 ORDER BY k.k, k.n;
	DROP TABLE keyed;
	DROP TABLE sessions;
	DROP TABLE sessions_words;
	ALTER TABLE sessions_v2 RENAME TO sessions;
	CREATE INDEX sessions_started ON sessions (started_ms);
	CREATE INDEX sessions_project ON sessions (project);
	CREATE INDEX sessions_agent ON sessions (agent);
	CREATE VIRTUAL TABLE sessions_words USING fts5 (words, content = '', contentless_delete = 1, prefix = '1 2 3 4 5 6 7 8',
		tokenize = 'unicode61 remove_diacritics 2');
	INSERT INTO sessions_words (rowid, words) SELECT rowid, concat_ws(' ', title, project, machine, agent, cwd) FROM sessions;
	CREATE TRIGGER sessions_words_insert AFTER INSERT ON sessions BEGIN
		INSERT INTO sessions_words (rowid, words) VALUES (new.rowid, concat_ws(' ', new.title, new.project, new.machine, new.agent, new.cwd));
	END;
	CREATE TRIGGER sessions_words_update AFTER UPDATE OF title, project, agent, cwd ON sessions BEGIN
		DELETE FROM sessions_words WHERE rowid = old.rowid;
		INSERT INTO sessions_words (rowid, words) VALUES (new.rowid, concat_ws(' ', new.title, new.project, new.machine, new.agent, new.cwd));
	END;
	CREATE TRIGGER sessions_words_delete AFTER DELETE ON sessions BEGIN
		DELETE FROM sessions_words WHERE rowid = old.rowid;
	END;
	CREATE TRIGGER facets_insert AFTER INSERT ON sessions BEGIN
		INSERT OR IGNORE INTO facets VALUES ('project', new.project), ('machine', new.machine), ('agent', new.agent);
	END;
	CREATE TRIGGER facets_update AFTER UPDATE OF project, agent ON sessions BEGIN
		INSERT OR IGNORE INTO facets VALUES ('project', new.project), ('agent', new.agent);
	END;
	DROP INDEX turns_ended;
	CREATE INDEX turns_ended ON turns (ended_ms, context_tokens);
	DROP INDEX spans_from;
	CREATE INDEX spans_status ON spans (status, from_ms, to_ms);
	CREATE TABLE days_stale (day INTEGER PRIMARY KEY);
	INSERT INTO days_stale SELECT day FROM days;`,
	// 4: answers and costs are fed too: they take their machine's sequence
	// as its events do (one outbox, one mark), each once by (machine,
	// oseq). This host's rows from before get the numbers after its mark,
	// in the order they happened (a session's costs in order, its last
	// last), so a hub takes them after every event it already has; a file
	// that never gave a number starts at its clock, as Open does.
	`ALTER TABLE answers ADD COLUMN oseq INTEGER;
	ALTER TABLE costs ADD COLUMN oseq INTEGER;
	CREATE TEMP TABLE outbox AS
		SELECT kind, session, k1, k2, (SELECT CASE WHEN b > 0 THEN b ELSE CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER) END
				FROM (SELECT max(coalesce((SELECT max(oseq) FROM events WHERE machine = '` + Local + `'), 0),
					coalesce((SELECT oseq FROM feeds WHERE machine = '` + Local + `'), 0)) AS b))
			+ row_number() OVER (ORDER BY t, kind, session, k1, k2) AS oseq
		FROM (SELECT 0 AS kind, session, call AS k1, asked_ms AS k2, answered_ms AS t FROM answers WHERE machine = '` + Local + `'
			UNION ALL SELECT 1, session, '', at_ms, at_ms FROM costs WHERE machine = '` + Local + `');
	UPDATE answers SET oseq = o.oseq FROM outbox o
		WHERE o.kind = 0 AND answers.machine = '` + Local + `' AND answers.session = o.session AND answers.call = o.k1 AND answers.asked_ms = o.k2;
	UPDATE costs SET oseq = o.oseq FROM outbox o
		WHERE o.kind = 1 AND costs.machine = '` + Local + `' AND costs.session = o.session AND costs.at_ms = o.k2;
	INSERT INTO feeds (machine, oseq) SELECT '` + Local + `', oseq FROM outbox WHERE oseq = (SELECT max(oseq) FROM outbox)
		ON CONFLICT (machine) DO UPDATE SET oseq = max(oseq, excluded.oseq);
	DROP TABLE outbox;
	CREATE UNIQUE INDEX answers_oseq ON answers (machine, oseq);
	CREATE UNIQUE INDEX costs_oseq ON costs (machine, oseq);`,
	// 5: where an answer was given (host.RecordedAnswer.Device): a paired
	// device's name when it answered, a push channel's, '' for none known.
	// A step of its own, not a change to 4: 4 was on main before this, so
	// a file may be at 4 already, and a step that shipped is never edited.
	// Answers from before say nothing of a device: ''.
	`ALTER TABLE answers ADD COLUMN device TEXT NOT NULL DEFAULT '';`,
	// 6: the operation id of the request that answered
	// (host.RecordedAnswer.OperationID): a board click's, also on its
	// approval record and its request's completion record, so the row is
	// found from the log and the log from the row. '' for an answer from
	// the terminal, a push's button without one, another machine's, or
	// from before.
	`ALTER TABLE answers ADD COLUMN operation_id TEXT NOT NULL DEFAULT '';`,
	// 7: the sessions started from the board and the starts refused
	// (host.RecordedLaunch, docs/launch.md): who asked, where, what; never
	// the prompt. This host's own, kept as long as the days are.
	`CREATE TABLE launches (
		at_ms INTEGER NOT NULL, machine TEXT NOT NULL, device TEXT NOT NULL, folder TEXT NOT NULL,
		agent TEXT NOT NULL, worktree TEXT NOT NULL, resume TEXT NOT NULL, pane TEXT NOT NULL,
		outcome TEXT NOT NULL
	);
	CREATE INDEX launches_at ON launches (at_ms);`,
	// 8: why a turn stopped (host.RecordedWhy: its kind's words and the
	// agent's, "usage limit: …"), on the turn and, the latest, on its
	// session, whose words the search reads too. '' for none, and for
	// every turn from before.
	`ALTER TABLE turns ADD COLUMN why TEXT NOT NULL DEFAULT '';
	ALTER TABLE sessions ADD COLUMN why TEXT NOT NULL DEFAULT '';
	DROP TRIGGER sessions_words_update;
	CREATE TRIGGER sessions_words_update AFTER UPDATE OF title, project, agent, cwd, why ON sessions BEGIN
		DELETE FROM sessions_words WHERE rowid = old.rowid;
		INSERT INTO sessions_words (rowid, words) VALUES (new.rowid, concat_ws(' ', new.title, new.project, new.machine, new.agent, new.cwd, new.why));
	END;`,
	// 9: the tokens a session used, where its agent tells them (its
	// OpenTelemetry, Codex's rollout; host/ledger counts each session one
	// way only): the session's running total (NULL: none told, not 0), on
	// the turn the report fell in too, and a row each time it grows, as
	// costs has for cost — so a day's tokens per agent are its sessions'
	// growth that day. Every file from before has none.
	`ALTER TABLE sessions ADD COLUMN tokens INTEGER;
	ALTER TABLE turns ADD COLUMN tokens INTEGER;
	CREATE TABLE tokens (
		machine TEXT NOT NULL, session TEXT NOT NULL, at_ms INTEGER NOT NULL, total INTEGER NOT NULL,
		PRIMARY KEY (machine, session, at_ms)
	) WITHOUT ROWID;
	CREATE INDEX tokens_at ON tokens (at_ms);`,
	// 10: tokens are fed too, as answers and costs are (4): a row of
	// tokens takes its machine's sequence, so a hub's History shows every
	// machine's tokens per agent and day, not only its own. This host's
	// rows from before get the numbers after its mark, in the order they
	// happened (a session's totals in order), and the mark follows.
	`ALTER TABLE tokens ADD COLUMN oseq INTEGER;
	CREATE TEMP TABLE outbox AS
		SELECT session, at_ms, (SELECT CASE WHEN b > 0 THEN b ELSE CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER) END
				FROM (SELECT max(coalesce((SELECT max(oseq) FROM events WHERE machine = '` + Local + `'), 0),
					coalesce((SELECT max(oseq) FROM answers WHERE machine = '` + Local + `'), 0),
					coalesce((SELECT max(oseq) FROM costs WHERE machine = '` + Local + `'), 0),
					coalesce((SELECT oseq FROM feeds WHERE machine = '` + Local + `'), 0)) AS b))
			+ row_number() OVER (ORDER BY at_ms, session) AS oseq
		FROM tokens WHERE machine = '` + Local + `';
	UPDATE tokens SET oseq = o.oseq FROM outbox o
		WHERE tokens.machine = '` + Local + `' AND tokens.session = o.session AND tokens.at_ms = o.at_ms;
	INSERT INTO feeds (machine, oseq) SELECT '` + Local + `', oseq FROM outbox WHERE oseq = (SELECT max(oseq) FROM outbox)
		ON CONFLICT (machine) DO UPDATE SET oseq = max(oseq, excluded.oseq);
	DROP TABLE outbox;
	CREATE UNIQUE INDEX tokens_oseq ON tokens (machine, oseq);`,
}

// Version is the schema version this build writes.
var Version = len(migrations)

// migrate brings the file to Version, refusing a newer one.
func (s *Store) migrate(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("reading the history's version: %w", err)
	}
	if v > Version {
		return fmt.Errorf("%w (schema %d; this build reads up to %d): upgrade notch-web, or move %s aside", ErrNewer, v, Version, s.path)
	}
	for ; v < Version; v++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrating the history to schema %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
