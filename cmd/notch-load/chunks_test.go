//go:build unix

package main

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const chunkedHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"

func chunk(s string) string { return strconv.FormatInt(int64(len(s)), 16) + "\r\n" + s + "\r\n" }

func TestChunkReader(t *testing.T) {
	frames := []string{
		"event: datastar-patch-elements\ndata: elements <div id=\"a\"></div>\n\n\n",
		"event: datastar-patch-signals\ndata: signals {\"_hb\":true}\n\n\n",
		strings.Repeat("z", 5000) + "\r\n\r\n", // chunk bodies may hold CRLFs
	}
	stream := chunkedHead
	for _, f := range frames {
		stream += chunk(f)
	}
	stream += "0\r\n\r\n" + chunk("after the end")
	// Every way of splitting the stream in two, and byte by byte.
	feedEveryWay(t, stream, frames)
}

func TestChunkReaderMalformed(t *testing.T) {
	for _, s := range []string{
		chunkedHead + "zz\r\nabc\r\n",
		chunkedHead + "3\r\nabcd\r\n",
		chunkedHead + strings.Repeat("1", 40),
	} {
		var c chunkReader
		if err := c.feed([]byte(s), func([]byte) {}); !errors.Is(err, errChunked) {
			t.Errorf("feed(%q) = %v, want errChunked", s, err)
		}
	}
}

// notch-web's body is not chunked: it runs to the end of the connection,
// and each frame ends with datastar-go's blank line and one more.
func TestChunkReaderIdentity(t *testing.T) {
	frames := []string{
		"event: datastar-patch-elements\ndata: elements <div id=\"a\">\ndata: elements </div>\n\n\n",
		"event: datastar-patch-signals\ndata: signals {\"_hb\":true}\n\n\n",
		"event: datastar-patch-elements\ndata: elements " + strings.Repeat("z", 5000) + "\n\n\n",
	}
	stream := "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\n\r\n" + strings.Join(frames, "")
	// Every split, and byte by byte: a frame split after its first blank
	// line is not emitted early.
	feedEveryWay(t, stream, frames)
}

// feedEveryWay feeds stream to a fresh chunkReader split in two at every
// 7th byte, then byte by byte, and checks it emits want each time.
func feedEveryWay(t *testing.T, stream string, want []string) {
	t.Helper()
	for cut := 0; cut <= len(stream); cut += 7 {
		var got []string
		var c chunkReader
		emit := func(b []byte) { got = append(got, string(b)) }
		for _, part := range []string{stream[:cut], stream[cut:]} {
			if err := c.feed([]byte(part), emit); err != nil {
				t.Fatalf("cut %d: %v", cut, err)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("cut %d: frames %q, want %q", cut, got, want)
		}
	}
	var got []string
	var c chunkReader
	for i := range len(stream) {
		if err := c.feed([]byte{stream[i]}, func(b []byte) { got = append(got, string(b)) }); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("byte by byte: frames %q, want %q", got, want)
	}
}
