//go:build !unix

package fanout

import (
	"errors"
	"syscall"
)

// errWouldBlock sends a frame to its stream's slow lane.
var errWouldBlock = errors.New("the socket would block")

// rawWriter cannot write without blocking here: every frame goes through
// the stream's slow lane, a blocking write under WriteTimeout. Fine for a
// desktop's few tabs.
type rawWriter struct{}

func newRawWriter() *rawWriter { return &rawWriter{} }

func (*rawWriter) tryWrite(syscall.RawConn, []byte) (int, error) { return 0, errWouldBlock }
