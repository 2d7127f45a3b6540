package state

import (
	"errors"

	"github.com/notch-web/notch-web/internal/fsx"
)

// Sentinel errors. Every error this package returns wraps one of them with
// context, so callers branch with errors.Is and log the full message.
var (
	// ErrInvalidEvent: an event is malformed (bad JSON, a missing or
	// out-of-range field, a field its type does not take).
	ErrInvalidEvent = errors.New("invalid event")
	// ErrUnknownType: an event's type is not in the vocabulary.
	ErrUnknownType = errors.New("unknown event type")
	// ErrVersion: an event speaks a vocabulary version this host does not.
	ErrVersion = errors.New("unsupported event vocabulary version")
	// ErrUnknownSession: an event names a session that was never opened
	// (or was already finished).
	ErrUnknownSession = errors.New("unknown session")
	// ErrTooManySessions: the fold already tracks MaxTracked sessions.
	ErrTooManySessions = errors.New("too many open sessions")
	// ErrTooLarge: an input breaks a size limit (an events body's line
	// length or event count, a file's size). It is fsx.ErrTooLarge, which
	// the file reads wrap.
	ErrTooLarge = fsx.ErrTooLarge
	// ErrNoEvents: an events body holds no event at all.
	ErrNoEvents = errors.New("no events")

	// ErrSchema: a state.json is well-formed but of a schema this reader
	// does not understand.
	ErrSchema = errors.New("unsupported state.json schema")
	// ErrMalformed: a state.json is not a complete JSON document of the
	// expected shape (empty, truncated, not JSON, a required field missing).
	ErrMalformed = errors.New("malformed state.json")

	// ErrInvalidMark: MergeMark was asked to write a mark without a session
	// id or a state.
	ErrInvalidMark = errors.New("invalid close-out mark")
	// ErrMarksCorrupt: manual.json could not be parsed. From MergeMark it is
	// a warning: the bad bytes were kept beside the file and the new mark
	// WAS written (see *CorruptMarksError).
	ErrMarksCorrupt = errors.New("close-out marks file is corrupt")
)
