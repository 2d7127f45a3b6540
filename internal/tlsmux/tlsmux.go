// Package tlsmux serves TLS and plain TCP on one port: each connection's
// first byte says which (a TLS handshake record starts with 0x16; an HTTP
// request with a method's letter). So a phone reaches the board over https
// while the agents' hooks and the command line on this machine keep
// posting plain http to the same address.
package tlsmux

import (
	"bufio"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
)

// handshake is the first byte of a TLS record carrying a handshake.
const handshake = 0x16

// sniffTimeout bounds the wait for a connection's first byte: a client
// that connects and says nothing is closed, and holds up no other.
const sniffTimeout = 10 * time.Second

// Listener hands out each accepted connection as a *tls.Conn when it opens
// with a TLS handshake, else as itself (its first byte unread). The sniff
// runs off the accept loop, so a silent client delays nobody.
type Listener struct {
	net.Listener
	config *tls.Config
	log    *slog.Logger
	conns  chan net.Conn
	errs   chan error
	done   chan struct{}
	once   sync.Once
}

// New wraps ln. config is the TLS configuration of the connections that
// open with a handshake. log takes the fatal record of a panic on the
// listener's own goroutines (the accept loop, a connection's sniff), which
// then ends the process with exit 2 (logx.Guard): never a raw trace.
func New(ln net.Listener, config *tls.Config, log *slog.Logger) *Listener {
	l := &Listener{Listener: ln, config: config, log: log, conns: make(chan net.Conn), errs: make(chan error, 1), done: make(chan struct{})}
	go l.loop()
	return l
}

func (l *Listener) loop() {
	defer logx.Guard(l.log)()
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			select {
			case l.errs <- err:
			case <-l.done:
			}
			return
		}
		go l.sniff(c)
	}
}

func (l *Listener) sniff(c net.Conn) {
	defer logx.Guard(l.log)()
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout))
	first, out, err := peek(c)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		_ = c.Close()
		return
	}
	if first == handshake {
		out = tls.Server(out, l.config)
	}
	select {
	case l.conns <- out:
	case <-l.done:
		_ = c.Close()
	}
}

// Accept returns the next connection, TLS or plain.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// peekBuffered reads c's first byte into a buffer: the connection handed
// on reads it from there.
func peekBuffered(c net.Conn) (byte, net.Conn, error) {
	br := bufio.NewReaderSize(c, 16)
	first, err := br.Peek(1)
	if err != nil {
		return 0, nil, err
	}
	return first[0], &peeked{Conn: c, r: br}, nil
}

// peeked is a connection whose first bytes were read into r.
type peeked struct {
	net.Conn
	r *bufio.Reader
}

func (p *peeked) Read(b []byte) (int, error) { return p.r.Read(b) }

// NetConn is the TCP connection beneath (for its socket options).
func (p *peeked) NetConn() net.Conn { return p.Conn }
