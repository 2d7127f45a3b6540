//go:build unix

package tlsmux

import (
	"errors"
	"net"

	"golang.org/x/sys/unix"
)

// peek reads c's first byte without taking it (MSG_PEEK), so a plain
// connection is handed on as the *net.TCPConn it is: the board's streams
// write to its descriptor directly (web/fanout).
func peek(c net.Conn) (byte, net.Conn, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return peekBuffered(c)
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return peekBuffered(c)
	}
	var b [1]byte
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr = unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK)
		return !errors.Is(rerr, unix.EAGAIN)
	})
	switch {
	case err != nil:
		return 0, nil, err
	case rerr != nil:
		return 0, nil, rerr
	case n == 0:
		return 0, nil, errors.New("closed before its first byte")
	}
	return b[0], c, nil
}
