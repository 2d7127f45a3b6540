package fanout

import (
	"bytes"
	"net"
	"net/http"
	"syscall"
	"time"
)

// responseHead is the head of a stream's response, written by the hub on
// the hijacked connection: 200, the headers set so far (the stream's own
// and the locks'), and Connection: close with neither a length nor chunked
// encoding, so the body is the frames themselves and runs until the
// connection closes. Any HTTP/1.1 client reads such a body as it arrives;
// Datastar's fetch does.
func responseHead(hdr http.Header, now time.Time) []byte {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\n")
	h := hdr.Clone()
	h.Set("Connection", "close")
	h.Set("Date", now.UTC().Format(http.TimeFormat))
	h.Del("Content-Length")
	h.Del("Transfer-Encoding")
	_ = h.Write(&b) // a bytes.Buffer never fails
	b.WriteString("\r\n")
	return b.Bytes()
}

// open starts a hijacked stream: the response head and the page as of now
// go out in one write, then the stream is the writers'.
func (h *Fanout) open(s *stream, conn net.Conn, head, first []byte) {
	var raw syscall.RawConn
	if sc, ok := conn.(syscall.Conn); ok {
		raw, _ = sc.SyscallConn()
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		// A small kernel send buffer: a reader that stops reading fills it
		// within a few frames, its write then stalls past WriteTimeout and
		// the stream is dropped, instead of megabytes queueing for it.
		_ = tc.SetWriteBuffer(streamSendBuffer)
	}
	if !s.attach(conn, raw) {
		_ = conn.Close() // the hub closed meanwhile
		return
	}
	// Whatever deadlines the server set for the request must not cut the
	// stream; the first write gets one of its own.
	start := time.Now()
	_ = conn.SetDeadline(start.Add(h.WriteTimeout))
	bufs := net.Buffers{head, first}
	if _, err := bufs.WriteTo(conn); err != nil {
		h.endStream(s, err)
		return
	}
	s.wrote(start)
	_ = conn.SetDeadline(time.Time{})
	if s.release() {
		h.pool.push(s)
	}
}

// serveDedicated serves a stream whose connection cannot be taken over
// (HTTP/2) the way every stream was served before the pool: this handler
// writes its frames itself, woken by the hub, until the client leaves, the
// hub closes or a write stalls past WriteTimeout.
func (h *Fanout) serveDedicated(w http.ResponseWriter, r *http.Request, s *stream, first []byte) {
	s.mu.Lock()
	s.kick = make(chan struct{}, 1)
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a server WriteTimeout must not cut the stream
	if tc, ok := r.Context().Value(connKey{}).(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(streamSendBuffer)
	}
	write := func(frame []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(h.WriteTimeout))
		if _, err := w.Write(frame); err != nil {
			return err
		}
		return rc.Flush()
	}
	// The head at once (and the page as of now, when there is one), so
	// the client sees the stream open.
	start := time.Now()
	if err := write(first); err != nil {
		h.endStream(s, err)
		return
	}
	s.wrote(start)
	owned := s.release() // a frame came meanwhile: no kick will say so
	for {
		if !owned {
			select {
			case <-r.Context().Done():
				h.endStream(s, r.Context().Err())
				return
			case <-h.done:
				return
			case <-s.kick:
			}
		}
		owned = false
		for f := s.take(); f != nil; f = s.take() {
			start := time.Now()
			if err := write(f); err != nil {
				h.endStream(s, err)
				return
			}
			s.wrote(start)
		}
	}
}
