//go:build unix

package main

import (
	"bytes"
	"errors"
	"strconv"
)

// chunkReader splits a stream's HTTP/1.1 response, fed as it arrives, into
// its frames, whichever way the body is framed. The floor writes each frame
// and flushes it, which net/http sends as one chunk, so each chunk is one
// whole frame. notch-web writes its frames on the connection itself, with
// no chunked encoding (the body runs to the end of the connection): there a
// frame ends where datastar-go ends every event, at a blank line and one
// more ("\n\n\n"), which no frame holds inside (sse.Check refuses a blank
// line within one). Either way a frame's length is what it cost on the wire,
// less the chunk's own framing, which only the floor pays.
type chunkReader struct {
	buf      []byte
	body     bool // the response headers are behind
	identity bool // the body is not chunked: frames end at "\n\n\n"
	end      bool // the last chunk came
}

// frameEnd ends every frame datastar-go writes.
var frameEnd = []byte("\n\n\n")

var errChunked = errors.New("malformed chunked stream")

// feed adds data and calls emit with each chunk completed by it. The slice
// passed to emit is valid only during the call.
func (c *chunkReader) feed(data []byte, emit func(chunk []byte)) error {
	if c.end {
		return nil
	}
	c.buf = append(c.buf, data...)
	off := 0
	defer func() { c.buf = append(c.buf[:0], c.buf[off:]...) }()
	if !c.body {
		k := bytes.Index(c.buf, []byte("\r\n\r\n"))
		if k < 0 {
			if len(c.buf) > 64<<10 {
				return errChunked
			}
			return nil
		}
		off, c.body = k+4, true
		c.identity = !isChunked(c.buf[:k])
	}
	if c.identity {
		for {
			k := bytes.Index(c.buf[off:], frameEnd)
			if k < 0 {
				return nil
			}
			stop := off + k + len(frameEnd)
			emit(c.buf[off:stop])
			off = stop
		}
	}
	for {
		line := bytes.Index(c.buf[off:], []byte("\r\n"))
		if line < 0 {
			if len(c.buf)-off > 32 {
				return errChunked
			}
			return nil
		}
		size, err := strconv.ParseUint(string(bytes.TrimSpace(bytes.SplitN(c.buf[off:off+line], []byte(";"), 2)[0])), 16, 31)
		if err != nil {
			return errChunked
		}
		start := off + line + 2
		if size == 0 {
			off, c.end = len(c.buf), true
			return nil
		}
		stop := start + int(size)
		if stop+2 > len(c.buf) {
			return nil
		}
		if c.buf[stop] != '\r' || c.buf[stop+1] != '\n' {
			return errChunked
		}
		emit(c.buf[start:stop])
		off = stop + 2
	}
}

// isChunked reports whether a response head says Transfer-Encoding:
// chunked.
func isChunked(head []byte) bool {
	for line := range bytes.SplitSeq(head, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Transfer-Encoding")) &&
			bytes.Contains(bytes.ToLower(value), []byte("chunked")) {
			return true
		}
	}
	return false
}
