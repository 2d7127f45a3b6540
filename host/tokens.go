package host

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/internal/pace"
)

// settleAfter are the times, after a hook names a transcript, at which it
// is read: at once, then again while the file may still be settling.
// Claude Code writes a reply's usage to its transcript a little after the
// hook fires, so a read at Stop (or at a permission request) often sees the
// previous reply's: a single read would leave the row's context tokens
// stale at done.
var settleAfter = [...]time.Duration{0, 250 * time.Millisecond, time.Second, 3 * time.Second}

// settledAt: a read this long or longer after the naming that finds the file
// as the previous read found it (same size, same modification time) ends
// the series: the transcript has settled.
const settledAt = time.Second

// maxPendingTranscripts bounds the rows whose transcripts are being read.
const maxPendingTranscripts = 256

// tokenReader reads context tokens from agents' transcripts in the
// background, never on a hook's path: for each row the newest transcript
// named, read at once and again until the file has settled (settleAfter),
// at most len(settleAfter) times after each naming. A burst of hooks costs
// one series per row, and the reads of all rows come at most every
// tokenPace.
type tokenReader struct {
	mu      sync.Mutex
	pending map[string]*tokenWant // row → its series
	gen     uint64
	wake    chan struct{}
	stat    func(path string) (size int64, mod time.Time, ok bool)
}

// tokenWant is one row's series of reads.
type tokenWant struct {
	tr    hookjson.Transcript
	read  func(hookjson.Transcript) (int64, bool) // the agent's (agent.Spec.Tokens)
	gen   uint64                                  // which naming started the series
	since time.Time                               // when it was named
	round int                                     // reads done
	size  int64                                   // the file as the last read found it
	mod   time.Time
	seen  bool
}

func newTokenReader() *tokenReader {
	return &tokenReader{pending: map[string]*tokenWant{}, wake: make(chan struct{}, 1), stat: statFile}
}

func statFile(path string) (int64, time.Time, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, time.Time{}, false
	}
	return fi.Size(), fi.ModTime(), true
}

// want starts (or restarts) a row's series of reads of tr with read at now.
func (t *tokenReader) want(tr hookjson.Transcript, read func(hookjson.Transcript) (int64, bool), now time.Time) {
	t.mu.Lock()
	w, ok := t.pending[tr.Session]
	if !ok && len(t.pending) >= maxPendingTranscripts {
		t.mu.Unlock()
		return
	}
	if !ok || w.tr != tr {
		w = &tokenWant{tr: tr}
		t.pending[tr.Session] = w
	}
	w.read = read
	t.gen++
	w.gen, w.since, w.round = t.gen, now, 0
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// due returns copies of the series with a read due at now, and when the
// next one falls due after them (zero: none pending).
func (t *tokenReader) due(now time.Time) (batch []tokenWant, next time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, w := range t.pending {
		at := w.since.Add(settleAfter[w.round])
		if !at.After(now) {
			batch = append(batch, *w)
		} else if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return batch, next
}

// done records a read of w's series that found the file at size and mod,
// and ends the series when it has settled or had all its reads. A series a
// newer naming restarted meanwhile is left to that one.
func (t *tokenReader) done(w tokenWant, size int64, mod time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur := t.pending[w.tr.Session]
	if cur == nil || cur.gen != w.gen {
		return
	}
	unchanged := cur.seen && cur.size == size && cur.mod.Equal(mod)
	cur.size, cur.mod, cur.seen = size, mod, true
	cur.round++
	if cur.round >= len(settleAfter) || (unchanged && settleAfter[cur.round-1] >= settledAt) {
		delete(t.pending, w.tr.Session)
	}
}

// readDue reads every series due at now and applies what it finds, and
// returns when the next read falls due (zero: none pending).
func (t *tokenReader) readDue(now time.Time, apply func(session string, tokens int64)) time.Time {
	batch, next := t.due(now)
	for _, w := range batch {
		size, mod, _ := t.stat(w.tr.Path)
		if tokens, ok := w.read(w.tr); ok {
			apply(w.tr.Session, tokens)
		}
		t.done(w, size, mod)
	}
	if len(batch) > 0 {
		_, next = t.due(now)
	}
	return next
}

// run reads the transcripts named, as they fall due, until ctx ends.
func (t *tokenReader) run(ctx context.Context, apply func(session string, tokens int64)) {
	p := pace.Pace{Gap: tokenPace}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		if !p.Wait(ctx) {
			return
		}
		next := t.readDue(time.Now(), apply)
		p.Mark(time.Now())
		wait := time.Hour
		if !next.IsZero() {
			wait = max(0, time.Until(next))
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-t.wake:
		case <-timer.C:
		}
	}
}
