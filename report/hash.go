package report

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"sync"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// Hashing a report costs about a fifth of reading it, and needs no order
// with the parse: a hashReader reads the source in blocks, queues each
// block to be checked for the XML reader (see xmlsafe.Precheck) and
// hashed, and serves the parser from the same block. A helper goroutine
// runs the queued work beside the parser, one job at a time. The jobs are
// in two queues, each run in order and one job at a time: the blocks, and
// the calls the parser hands over (see do), which need no order with the
// blocks; so the parser, when it needs a block, never waits for a call to
// end. It
// reads up to hashBlocks blocks ahead of the one it serves, so that the
// helper has checked a block before the parser reaches it. A block is
// filled again only once it is served and hashed, so the memory held is
// bounded whatever the report's size, and slow hashing slows the reader
// rather than queueing data.
//
// The parser never sleeps waiting for the helper to get to work: when it
// needs a job done (a block's slot to fill again, every job at stop) and
// the helper is not running one, it runs the queued jobs itself. On a busy
// machine the helper's thread may wait long for a core, and a parser
// waiting on it would wait as long; with two goroutines that can each do
// the work, the one that runs does it.
//
// A regular file (see newHashReader) is read by jobs too: the read of each
// block, its checks and its hash are one job, queued up to hashBlocks
// blocks ahead of the one served, so that on a quiet machine the parser
// finds each block read and checked and makes no system call for it. A
// source that may block (a pipe) is read by the parser only, as it needs
// it: no job then waits on the source, and stop never does.
const (
	hashBlockSize = 128 << 10
	hashBlocks    = 8
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
	sent   int      // blocks queued to be hashed (read by the parser) or read (by jobs)
	served int      // blocks served whole
	asked  int      // read jobs queued whose block has not been taken (see take)
	// ahead is set when jobs read the source (a regular file): the
	// parser only takes the blocks they have read.
	ahead  bool
	closed bool

	// mu guards the fields below it; wake is signalled when a job is
	// queued, when one ends and when the helper is to return.
	mu   sync.Mutex
	wake sync.Cond
	jobs []hashJob // block jobs queued, jobs[head:] not yet started
	head int
	// busy is set while a block job runs, on either goroutine: they run
	// one at a time, in the order they were queued.
	busy bool
	// pending are the calls queued (see do), pending[chead:] not yet
	// started; callBusy is set while one runs. They run one at a time, in
	// order, beside the block jobs.
	pending  []func()
	chead    int
	callBusy bool
	hashed   int  // blocks hashed
	calls    int  // calls queued and not yet run
	closing  bool // every job has run: the helper returns
	// ready holds the blocks read jobs have read, in order, until the
	// parser takes them (an empty one carries only the source's error).
	ready []readBlock
	// stopping is set by stop: a read job queued before reads nothing.
	stopping bool

	// srcErr is the source's error as a read job got it: the jobs after
	// it read nothing. Only jobs use it, one at a time.
	srcErr error

	// d and pre are used by the job running.
	d hash.Hash
	// pre checks each block for the XML reader before it is hashed.
	pre xmlsafe.Precheck
}

// newHashReader starts the helper goroutine; the caller must call stop,
// on every path, to end it. ahead tells that r never blocks for long (a
// regular file): jobs may then read it ahead, on either goroutine.
func newHashReader(r io.Reader, ahead bool) *hashReader {
	h := &hashReader{
		r:       r,
		ahead:   ahead,
		queue:   make([][]byte, 0, hashBlocks),
		jobs:    make([]hashJob, 0, hashBlocks),
		pending: make([]func(), 0, hashCalls),
		d:       sha256.New(),
	}
	if ahead {
		h.ready = make([]readBlock, 0, hashBlocks)
	}
	h.wake.L = &h.mu
	go h.help()
	return h
}

// hashJob is a block to check and hash, or a block to read from the
// source, check and hash (read, the block's slot + 1).
type hashJob struct {
	block []byte
	read  int
}

// readBlock is what a read job read: a block of the source, and the
// error the source returned with it.
type readBlock struct {
	b   []byte
	err error
}

// hashCalls is how many calls (see do) may wait to be run beside the
// blocks before do runs queued jobs itself.
const hashCalls = 8

// help runs queued jobs, blocks first (the parser may be waiting for
// one), until stop has run them all.
func (h *hashReader) help() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for !h.closing {
		if !h.runOne(true) {
			h.wake.Wait()
		}
	}
}

// runOne runs the next block job, or else, when calls is set, the next
// call, if one is queued and no other job of its queue runs; it tells
// whether it ran one. h.mu is held, and released while the job runs.
func (h *hashReader) runOne(calls bool) bool {
	switch {
	case !h.busy && h.head < len(h.jobs):
		h.runBlock()
	case calls && !h.callBusy && h.chead < len(h.pending):
		h.runCall()
	default:
		return false
	}
	return true
}

// runBlock runs the next block job.
func (h *hashReader) runBlock() {
	j := h.jobs[h.head]
	h.jobs[h.head] = hashJob{}
	h.head++
	if h.head == len(h.jobs) {
		h.jobs, h.head = h.jobs[:0], 0
	}
	h.busy = true
	stopping := h.stopping
	h.mu.Unlock()
	var rb readBlock
	if j.read > 0 {
		rb = h.readBlock(j.read-1, stopping)
	} else {
		h.pre.Write(j.block)
		h.d.Write(j.block)
	}
	h.mu.Lock()
	h.busy = false
	if j.read > 0 {
		h.ready = append(h.ready, rb)
	} else {
		h.hashed++
	}
	h.wake.Broadcast()
}

// runCall runs the next call.
func (h *hashReader) runCall() {
	f := h.pending[h.chead]
	h.pending[h.chead] = nil
	h.chead++
	if h.chead == len(h.pending) {
		h.pending, h.chead = h.pending[:0], 0
	}
	h.callBusy = true
	h.mu.Unlock()
	f()
	h.mu.Lock()
	h.callBusy = false
	h.calls--
	h.wake.Broadcast()
}

// readBlock is a read job: it reads the source's next block into the
// slot, and checks and hashes it. It reads nothing once stop has begun or
// the source has returned an error.
func (h *hashReader) readBlock(slot int, stopping bool) readBlock {
	if stopping || h.srcErr != nil {
		return readBlock{err: h.srcErr}
	}
	b := h.slots[slot]
	if b == nil {
		b = *hashBlockPool.Get().(*[]byte)
		h.slots[slot] = b
		h.blocks++
	}
	var n int
	var err error
	for n == 0 && err == nil {
		n, err = h.r.Read(b)
	}
	h.srcErr = err
	if n > 0 {
		h.pre.Write(b[:n])
		h.d.Write(b[:n])
	}
	return readBlock{b: b[:n], err: err}
}

// until runs queued jobs (block jobs only unless calls is set), or waits
// for one running to end, until done holds; h.mu is held.
func (h *hashReader) until(done func() bool, calls bool) {
	for !done() {
		if !h.runOne(calls) {
			h.wake.Wait()
		}
	}
}

// push queues j; h.mu is held.
func (h *hashReader) push(j hashJob) {
	h.jobs = append(h.jobs, j)
	h.wake.Signal()
}

// do has f called after the calls handed over before it, by the helper
// or, at stop at the latest, by the caller; stop returns once it has. The
// parser hands it work that needs no answer (merging the cases it has
// read into the run), to be done on the second core while it goes on.
func (h *hashReader) do(f func()) {
	h.mu.Lock()
	h.until(func() bool { return h.calls < hashCalls }, true)
	h.pending = append(h.pending, f)
	h.calls++
	h.wake.Signal()
	h.mu.Unlock()
}

func (h *hashReader) Read(p []byte) (int, error) {
	if len(h.queue) > 0 && h.off == len(h.queue[0]) {
		h.queue = h.queue[:copy(h.queue, h.queue[1:])]
		h.off = 0
		h.served++
	}
	if h.ahead {
		h.take()
	} else {
		h.readAhead()
	}
	if len(h.queue) == 0 {
		return 0, h.err
	}
	n := copy(p, h.queue[0][h.off:])
	h.off += n
	h.n += int64(n)
	return n, nil
}

// readAhead reads blocks from the source and queues them to be hashed
// while fewer than hashBlocks are queued to serve. Block k reuses the slot
// of block k-hashBlocks, which is served (it left the queue); when that
// block is not hashed yet, it waits for it (running jobs itself) only when
// nothing is queued to serve.
func (h *hashReader) readAhead() {
	for h.err == nil && len(h.queue) < hashBlocks {
		if h.sent >= hashBlocks {
			h.mu.Lock()
			reused := func() bool { return h.hashed > h.sent-hashBlocks }
			free := reused()
			if !free && len(h.queue) == 0 {
				h.until(reused, false)
				free = true
			}
			h.mu.Unlock()
			if !free {
				return
			}
		}
		slot := &h.slots[h.sent%hashBlocks]
		if *slot == nil {
			*slot = *hashBlockPool.Get().(*[]byte)
			h.blocks++
		}
		n, err := h.r.Read(*slot)
		h.err = err
		if n > 0 {
			h.mu.Lock()
			h.push(hashJob{block: (*slot)[:n]})
			h.mu.Unlock()
			h.sent++
			h.queue = append(h.queue, (*slot)[:n])
		} else if err == nil {
			return
		}
	}
}

// take queues the blocks read jobs have read, asks for the next blocks
// while fewer than hashBlocks are asked for and not served (block k is
// read into the slot of block k-hashBlocks, served by then), and, when
// nothing is left to serve, runs the read jobs or waits for them until
// the next block is read.
func (h *hashReader) take() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for {
		for _, rb := range h.ready {
			h.asked--
			if len(rb.b) > 0 {
				h.queue = append(h.queue, rb.b)
			}
			if rb.err != nil && h.err == nil {
				h.err = rb.err
			}
		}
		clear(h.ready)
		h.ready = h.ready[:0]
		for h.err == nil && h.sent < h.served+hashBlocks {
			h.push(hashJob{read: h.sent%hashBlocks + 1})
			h.sent++
			h.asked++
		}
		if len(h.queue) > 0 || h.asked == 0 {
			return
		}
		h.until(func() bool { return len(h.ready) > 0 }, false)
	}
}

// stop runs the jobs not run yet, ends the helper and returns the blocks
// to the pool. It returns the hex SHA-256 of the bytes read from the
// source; it may be called again, and then returns "".
func (h *hashReader) stop() string {
	if h.closed {
		return ""
	}
	h.closed = true
	h.mu.Lock()
	h.stopping = true
	h.until(func() bool {
		return h.head == len(h.jobs) && !h.busy && h.chead == len(h.pending) && !h.callBusy
	}, true)
	h.closing = true
	h.wake.Broadcast()
	h.mu.Unlock()
	sum := h.d.Sum(nil)
	h.queue = nil
	for i, b := range h.slots {
		if b != nil {
			hashBlockPool.Put(&b)
			h.slots[i] = nil
		}
	}
	return hex.EncodeToString(sum)
}
