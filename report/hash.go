package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sync"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// Hashing a report costs about a fifth of reading it, and needs no order
// with the parse: a hashReader reads the source in blocks, hands each block
// to a goroutine that checks its bytes for the XML reader (see
// xmlsafe.Precheck) and hashes it, and serves the parser from the same
// block. It reads up to hashBlocks blocks ahead of the one it serves, so
// that the goroutine has checked a block before the parser reaches it. A
// block is filled again only once it is served and hashed, so the memory
// held is bounded whatever the report's size, and a slow hasher slows the
// reader rather than queueing data.
const (
	hashBlockSize = 64 << 10
	hashBlocks    = 16
)

// hashBlockPool recycles blocks across reports: a run reads many small
// ones.
var hashBlockPool = sync.Pool{New: func() any {
	b := make([]byte, hashBlockSize)
	return &b
}}

type hashReader struct {
	r   io.Reader
	n   int64 // bytes served
	err error // the source's error, returned once the blocks before it are served
	// slots hold the blocks: block k of the source is read into slot
	// k % hashBlocks; nil until taken from the pool.
	slots  [hashBlocks][]byte
	blocks int      // slots taken from the pool
	queue  [][]byte // blocks read and not yet served, in order; queue[0] is being served
	off    int      // bytes of queue[0] served
	sent   int      // blocks sent to the hasher
	hashed int      // blocks the hasher is known to be done with
	jobs   chan hashJob
	done   chan struct{} // one per block hashed
	sum    chan []byte
	closed bool
	// pre checks each block for the XML reader before it is hashed, on
	// the hasher's goroutine.
	pre xmlsafe.Precheck
}

// newHashReader starts the hasher goroutine; the caller must call stop, on
// every path, to end it.
func newHashReader(r io.Reader) *hashReader {
	h := &hashReader{
		r:     r,
		queue: make([][]byte, 0, hashBlocks),
		jobs:  make(chan hashJob, hashBlocks+hashCalls),
		done:  make(chan struct{}, hashBlocks),
		sum:   make(chan []byte, 1),
	}
	go h.hash()
	return h
}

// hashJob is a block to check and hash, or a call to make (see do).
type hashJob struct {
	block []byte
	call  func()
}

// hashCalls is how many calls (see do) may wait for the hasher beside the
// blocks before do waits too.
const hashCalls = 8

func (h *hashReader) hash() {
	d := sha256.New()
	for j := range h.jobs {
		if j.call != nil {
			j.call()
			continue
		}
		h.pre.Write(j.block)
		d.Write(j.block)
		h.done <- struct{}{}
	}
	h.sum <- d.Sum(nil)
}

// do has the hasher's goroutine call f, after it has hashed the blocks
// read so far; stop returns once it has. The parser hands it work that
// needs no answer (merging the cases it has read into the run): the
// hasher's goroutine is the one that runs beside the parser, on the second
// core, and a goroutine of its own would take turns with the parser and
// the hasher instead.
func (h *hashReader) do(f func()) {
	h.jobs <- hashJob{call: f}
}

func (h *hashReader) Read(p []byte) (int, error) {
	if len(h.queue) > 0 && h.off == len(h.queue[0]) {
		h.queue = h.queue[:copy(h.queue, h.queue[1:])]
		h.off = 0
	}
	h.readAhead()
	if len(h.queue) == 0 {
		return 0, h.err
	}
	n := copy(p, h.queue[0][h.off:])
	h.off += n
	h.n += int64(n)
	return n, nil
}

// readAhead reads blocks from the source and sends them to the hasher
// while fewer than hashBlocks are queued. Block k reuses the slot of block
// k-hashBlocks, which is served (it left the queue); it waits for the
// hasher to be done with it only when nothing is queued to serve.
func (h *hashReader) readAhead() {
	for h.err == nil && len(h.queue) < hashBlocks {
		if h.sent >= hashBlocks && h.hashed <= h.sent-hashBlocks {
			select {
			case <-h.done:
				h.hashed++
				continue
			default:
			}
			if len(h.queue) > 0 {
				return
			}
			<-h.done
			h.hashed++
			continue
		}
		slot := &h.slots[h.sent%hashBlocks]
		if *slot == nil {
			*slot = *hashBlockPool.Get().(*[]byte)
			h.blocks++
		}
		n, err := h.r.Read(*slot)
		h.err = err
		if n > 0 {
			h.jobs <- hashJob{block: (*slot)[:n]}
			h.sent++
			h.queue = append(h.queue, (*slot)[:n])
		} else if err == nil {
			return
		}
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
	close(h.jobs)
	sum := <-h.sum
	h.queue = nil
	for i, b := range h.slots {
		if b != nil {
			hashBlockPool.Put(&b)
			h.slots[i] = nil
		}
	}
	return hex.EncodeToString(sum)
}
