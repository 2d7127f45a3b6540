//go:build unix

package main

import (
	"bytes"
	"errors"
	"strconv"
)

// chunkReader splits an HTTP/1.1 chunked response, fed as it arrives, into
// its chunks. notch-web and the floor both write each frame and flush it,
// which net/http sends as one chunk, so each chunk is one whole frame and
// its length is what that frame cost on the wire (less the chunk's own
// framing, which both servers pay alike).
type chunkReader struct {
	buf  []byte
	body bool // the response headers are behind
	end  bool // the last chunk came
}

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
