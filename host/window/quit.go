package window

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"

	"github.com/notch-web/notch-web/internal/fsx"
)

// QuitFile and CrashFile are the window's two reports, beside the state
// file. window.log is there too and is never read.
const (
	QuitFile  = "quit.json"
	CrashFile = "window-crash.log"
)

// quitLimit bounds the read of quit.json: {"wallMs": 1790000000000} is 25
// bytes, and room for a few more fields is plenty.
const quitLimit = 4 << 10

// maxWallMs is the largest wallMs taken as a time: JavaScript's and JSON
// numbers' exact-integer range, far beyond any real clock.
const maxWallMs = 1<<53 - 1

// errQuitMalformed: quit.json is not {"wallMs": <ms>}.
var errQuitMalformed = errors.New("not {\"wallMs\": <ms since 1970>}")

// parseQuit reads the window's quit report: a JSON object whose wallMs is a
// whole, positive number of milliseconds. Other fields are allowed (the
// contract may add some); anything else is an error wrapping
// errQuitMalformed.
func parseQuit(data []byte) (int64, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return 0, fmt.Errorf("%w: %s", errQuitMalformed, describe(err, "not a JSON object"))
	}
	raw, ok := fields["wallMs"]
	if !ok {
		return 0, fmt.Errorf("%w: no wallMs", errQuitMalformed)
	}
	// json.Number would take "123" (a string) too: a number starts with a
	// digit or a minus.
	var n json.Number
	if c := raw[0]; !(c == '-' || c >= '0' && c <= '9') || json.Unmarshal(raw, &n) != nil {
		return 0, fmt.Errorf("%w: wallMs %s is not a number", errQuitMalformed, clip(raw))
	}
	ms, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		// 1.79e12 is a whole number too, as some serialisers write it.
		f, ferr := strconv.ParseFloat(n.String(), 64)
		if ferr != nil || f != math.Trunc(f) || f > maxWallMs || f < math.MinInt64 {
			return 0, fmt.Errorf("%w: wallMs %s is not a whole number of ms", errQuitMalformed, clip(raw))
		}
		ms = int64(f)
	}
	if ms <= 0 || ms > maxWallMs {
		return 0, fmt.Errorf("%w: wallMs %d is out of range", errQuitMalformed, ms)
	}
	return ms, nil
}

func describe(err error, fallback string) string {
	if err != nil {
		return err.Error()
	}
	return fallback
}

// clip keeps a quoted value short in an error.
func clip(b []byte) string { return clean(b, 40) }

// readQuit returns quit.json's wallMs; ok is false when there is no file.
// A file that is not a regular one (a FIFO would block the read) or does
// not parse is an error.
func readQuit(path string) (ms int64, ok bool, err error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if !info.Mode().IsRegular() {
		return 0, false, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := fsx.ReadFileLimit(path, quitLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	ms, err = parseQuit(data)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", path, err)
	}
	return ms, true, nil
}
