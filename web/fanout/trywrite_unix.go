//go:build unix

package fanout

import (
	"errors"
	"syscall"
)

// errWouldBlock: the socket's send buffer is full; the rest of the frame
// must wait for the reader.
var errWouldBlock = errors.New("the socket would block")

// rawWriter writes to sockets without waiting. Each writer keeps one, so
// a write allocates nothing (a closure made per write would, three times).
type rawWriter struct {
	p   []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

func newRawWriter() *rawWriter {
	w := &rawWriter{}
	w.fn = w.write
	return w
}

// tryWrite writes p to the socket without waiting: it returns how much the
// kernel took, and errWouldBlock when that was not all of it. A descriptor
// that is closed or past its write deadline fails as a net.Conn write
// would.
func (w *rawWriter) tryWrite(rc syscall.RawConn, p []byte) (int, error) {
	w.p, w.n, w.err = p, 0, nil
	err := rc.Write(w.fn)
	n, werr := w.n, w.err
	w.p, w.err = nil, nil
	if err != nil {
		return n, err
	}
	return n, werr
}

// write is the body of tryWrite's raw write. It returns true always: the
// writer never waits for the socket; the slow lane does.
func (w *rawWriter) write(fd uintptr) bool {
	for w.n < len(w.p) {
		k, e := syscall.Write(int(fd), w.p[w.n:])
		if k > 0 {
			w.n += k
		}
		switch {
		case e == syscall.EINTR:
		case e == syscall.EAGAIN:
			w.err = errWouldBlock
			return true
		case e != nil:
			w.err = e
			return true
		case k <= 0: // took nothing and said nothing
			w.err = errWouldBlock
			return true
		}
	}
	return true
}
