package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sync"
)

// Hashing a report costs about a fifth of reading it, and needs no order
// with the parse: a hashReader reads the source in blocks, hands each block
// to a goroutine that hashes it, and serves the parser from the same block.
// At most hashBlocks blocks are in flight; the reader waits for the hasher
// to free one, so the memory it holds is bounded whatever the report's
// size, and a slow hasher slows the reader rather than queueing data.
const (
	hashBlockSize = 64 << 10
	hashBlocks    = 4
)

// hashBlockPool recycles blocks across reports: a run reads many small
// ones.
var hashBlockPool = sync.Pool{New: func() any {
	b := make([]byte, hashBlockSize)
	return &b
}}

type hashReader struct {
	r      io.Reader
	n      int64  // bytes served
	err    error  // the source's error, returned once cur is served
	cur    []byte // the block being served
	off    int    // bytes of cur served
	blocks int    // blocks taken from the pool
	full   chan []byte
	free   chan []byte
	sum    chan []byte
	closed bool
}

// newHashReader starts the hasher goroutine; the caller must call stop, on
// every path, to end it.
func newHashReader(r io.Reader) *hashReader {
	h := &hashReader{
		r:    r,
		full: make(chan []byte, hashBlocks),
		free: make(chan []byte, hashBlocks),
		sum:  make(chan []byte, 1),
	}
	go h.hash()
	return h
}

func (h *hashReader) hash() {
	d := sha256.New()
	for b := range h.full {
		d.Write(b)
		h.free <- b[:cap(b)]
	}
	h.sum <- d.Sum(nil)
}

func (h *hashReader) Read(p []byte) (int, error) {
	if h.off == len(h.cur) {
		if h.err != nil {
			return 0, h.err
		}
		h.next()
		if h.off == len(h.cur) {
			return 0, h.err
		}
	}
	n := copy(p, h.cur[h.off:])
	h.off += n
	h.n += int64(n)
	return n, nil
}

// next fills a block from the source and sends it to the hasher. A new
// block is taken only while fewer than hashBlocks are in flight; else the
// reader waits for the hasher to free one.
func (h *hashReader) next() {
	var b []byte
	select {
	case b = <-h.free:
	default:
		if h.blocks < hashBlocks {
			h.blocks++
			b = *hashBlockPool.Get().(*[]byte)
		} else {
			b = <-h.free
		}
	}
	n, err := h.r.Read(b)
	h.cur, h.off, h.err = b[:n], 0, err
	if n > 0 {
		h.full <- h.cur
	} else {
		h.free <- b
	}
}

// stop ends the hasher, once all blocks sent are hashed, and returns the
// blocks to the pool. It returns the hex SHA-256 of the bytes read from the
// source; it may be called again, and then returns "".
func (h *hashReader) stop() string {
	if h.closed {
		return ""
	}
	h.closed = true
	close(h.full)
	sum := <-h.sum
	h.cur = nil
	for range h.blocks {
		b := <-h.free
		hashBlockPool.Put(&b)
	}
	return hex.EncodeToString(sum)
}
