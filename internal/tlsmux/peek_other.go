//go:build !unix

package tlsmux

import "net"

func peek(c net.Conn) (byte, net.Conn, error) { return peekBuffered(c) }
