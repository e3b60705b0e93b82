package check

import (
	"bytes"
	"io"
	"os"
	"sync"
	"unicode/utf8"
)

// tail keeps the last n bytes written to it. It is safe for concurrent use:
// the check's standard output and error write to one tail.
type tail struct {
	mu      sync.Mutex
	buf     []byte
	next    int
	wrapped bool
}

func newTail(n int) *tail { return &tail{buf: make([]byte, n)} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= len(t.buf) {
		copy(t.buf, p[len(p)-len(t.buf):])
		t.next, t.wrapped = 0, true
		return n, nil
	}
	c := copy(t.buf[t.next:], p)
	if c < len(p) {
		copy(t.buf, p[c:])
		t.next = len(p) - c
		t.wrapped = true
	} else {
		t.next += c
		if t.next == len(t.buf) {
			t.next, t.wrapped = 0, true
		}
	}
	return n, nil
}

// Bytes returns what is kept, oldest first. When older output was dropped,
// the first, partial line is dropped too, so that no secret is kept cut in
// half where a redactor would no longer know it.
func (t *tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.wrapped {
		return append([]byte(nil), t.buf[:t.next]...)
	}
	out := make([]byte, 0, len(t.buf))
	out = append(out, t.buf[t.next:]...)
	out = append(out, t.buf[:t.next]...)
	if i := bytes.IndexByte(out, '\n'); i >= 0 {
		return out[i+1:]
	}
	// One line longer than the tail: drop partial UTF-8 at the start.
	for len(out) > 0 && !utf8.RuneStart(out[0]) {
		out = out[1:]
	}
	return out
}

// tee passes what the check writes to its destination unchanged and keeps
// it in the tail (and, for a go test -json check's standard output, in the
// capture). A destination that fails (a closed pipe) is no longer written
// to, but the check is never blocked or failed by it.
type tee struct {
	dst     io.Writer
	tail    *tail
	capture *capture
	err     error
}

func (w *tee) Write(p []byte) (int, error) {
	if w.dst != nil && w.err == nil {
		_, w.err = w.dst.Write(p)
	}
	_, _ = w.tail.Write(p) // a tail never fails
	w.capture.write(p)
	return len(p), nil
}

// capture keeps the first max bytes written to it in a file. Past them it
// writes no more, and a file that fails is written no more: the check is
// never blocked or failed by it. One goroutine writes to it; it is read
// once that one is done.
type capture struct {
	f    *os.File
	left int64
	// n is how many bytes were written to f, over whether more were
	// dropped, err the file's first error.
	n    int64
	over bool
	err  error
}

func newCapture(f *os.File, max int64) *capture { return &capture{f: f, left: max} }

func (c *capture) write(p []byte) {
	if c == nil || c.err != nil {
		return
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
		c.over = true
	}
	if len(p) == 0 {
		return
	}
	n, err := c.f.Write(p)
	c.n += int64(n)
	c.left -= int64(n)
	c.err = err
}
