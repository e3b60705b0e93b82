package junit

import (
	"iter"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// execStore gathers a report's executions as compact records holding no
// pointer: the collector has nothing to scan in them however many there
// are, and they become testrun.Executions once, in a slice of the exact
// size, when the report has been read whole.
type execStore struct {
	ids    slab
	scopes []string
	msgs   []string // failure messages; a record's msg is an index + 1
	// files interns the source files cases name (a report names few,
	// each for many cases); a record's file is an index in it + 1.
	files   []string
	fileIdx map[string]int32
	full    [][]record
	cur     []record
	n       int
	// batches, when set, is handed each block of records once it is
	// full, and the last one by flush (see parseopt.Config.Batches). The
	// store then keeps no block it has handed over: a full one comes back
	// through spare once its batch has been ranged over, to be filled
	// again, so that a report of any size takes a few blocks.
	batches func(iter.Seq[*testrun.Execution])
	spare   chan []record
}

// spareBlocks is how many handed-over blocks may wait to be filled again.
const spareBlocks = 4

// record is one execution; its strings are in the store.
type record struct {
	id      idRef
	dur     time.Duration // valid when timed
	scope   int32
	msg     int32
	file    int32 // index in the store's files + 1; 0 when none
	line    int32 // the line the case is written at, 0 when unknown
	outcome uint8 // index in outcomes
	flaky   bool
	timed   bool
}

// outcomes are the outcomes a record stores, by index; the parser decides
// a case's outcome as an index, without comparing strings.
var outcomes = [...]testrun.Outcome{oPassed: testrun.OutcomePassed, oFailed: testrun.OutcomeFailed, oError: testrun.OutcomeError, oSkipped: testrun.OutcomeSkipped}

const (
	oPassed uint8 = iota
	oFailed
	oError
	oSkipped
)

// recordsPerBlock is the size of the store's blocks, past its first few.
const recordsPerBlock = 2048

// scope adds a scope name and returns its index.
func (s *execStore) scope(name string) int32 {
	s.scopes = append(s.scopes, name)
	return int32(len(s.scopes) - 1)
}

// file interns name, a case's file attribute, and returns its index + 1;
// 0 for an empty name. Only a name new to the report is copied.
func (s *execStore) file(name []byte) int32 {
	if len(name) == 0 {
		return 0
	}
	if i, ok := s.fileIdx[string(name)]; ok {
		return i
	}
	if s.fileIdx == nil {
		s.fileIdx = make(map[string]int32)
	}
	f := string(name)
	s.files = append(s.files, f)
	i := int32(len(s.files))
	s.fileIdx[f] = i
	return i
}

func (s *execStore) add(id idRef, scope int32, out uint8, msg string, flaky bool, dur time.Duration, timed bool, file, line int32) {
	r := record{id: id, dur: dur, scope: scope, outcome: out, flaky: flaky, timed: timed, file: file, line: line}
	if msg != "" {
		s.msgs = append(s.msgs, msg)
		r.msg = int32(len(s.msgs))
	}
	if len(s.cur) == cap(s.cur) {
		next := min(recordsPerBlock, max(64, 2*cap(s.cur)))
		switch {
		case s.cur == nil:
		case s.batches == nil:
			s.full = append(s.full, s.cur)
		default:
			s.publish(s.cur)
		}
		var b []record
		if next == recordsPerBlock {
			select {
			case b = <-s.spare: // nil until a block is handed over
			default:
			}
		}
		if b == nil {
			b = make([]record, 0, next)
		}
		s.cur = b
	}
	s.cur = append(s.cur, r)
	s.n++
}

// all returns the executions in the order they were added.
func (s *execStore) all() []testrun.Execution {
	if s.n == 0 {
		return nil
	}
	out := make([]testrun.Execution, 0, s.n)
	s.each(func(e *testrun.Execution) bool {
		out = append(out, *e)
		return true
	})
	return out
}

// each calls yield with the executions in the order they were added, in
// one Execution it reuses, until yield returns false.
func (s *execStore) each(yield func(*testrun.Execution) bool) {
	v := s.view()
	var e testrun.Execution
	for k := 0; k <= len(s.full); k++ {
		// The full blocks, then the one being filled; the store is not
		// changed, so that readers may range over it at once.
		b := s.cur
		if k < len(s.full) {
			b = s.full[k]
		}
		if !v.each(b, &e, yield) {
			return
		}
	}
}

// publish hands recs, records already added that will not change, to
// s.batches.
func (s *execStore) publish(recs []record) {
	if s.batches == nil || len(recs) == 0 {
		return
	}
	v := s.view()
	if s.spare == nil {
		s.spare = make(chan []record, spareBlocks)
	}
	spare := s.spare
	s.batches(func(yield func(*testrun.Execution) bool) {
		var e testrun.Execution
		v.each(recs, &e, yield)
		if cap(recs) == recordsPerBlock {
			select {
			case spare <- recs[:0]:
			default:
			}
		}
	})
}

// flush publishes the last records, once the report has been read whole.
func (s *execStore) flush() {
	s.publish(s.cur)
}

// view is what the records added so far refer to. It stays valid, and
// unchanged, while more are added: the store only ever appends to the
// slices and strings it holds, and a view holds their lengths as they
// were, so that another goroutine may read the records it covers while
// the parser adds more.
type view struct {
	blocks []string // the slab's full blocks
	last   string   // the slab's block being filled, as far as it is
	scopes []string
	msgs   []string
	files  []string
}

func (s *execStore) view() view {
	return view{blocks: s.ids.blocks, last: s.ids.b.String(), scopes: s.scopes, msgs: s.msgs, files: s.files}
}

// each calls yield with the executions recs hold, in e, and returns false
// when yield does.
func (v *view) each(recs []record, e *testrun.Execution, yield func(*testrun.Execution) bool) bool {
	for i := range recs {
		r := &recs[i]
		*e = testrun.Execution{
			ID:          locate(v.blocks, v.last, r.id),
			Scope:       v.scopes[r.scope],
			Outcome:     outcomes[r.outcome],
			RunnerFlaky: r.flaky,
			Duration:    r.dur,
			Timed:       r.timed,
			Line:        int(r.line),
		}
		if r.file > 0 {
			e.File = v.files[r.file-1]
		}
		if r.msg > 0 {
			e.Message = v.msgs[r.msg-1]
		}
		if !yield(e) {
			return false
		}
	}
	return true
}

// slab holds the ids of a report's cases back to back in a few large
// blocks instead of one small allocation each: a report holds tens of
// thousands of them. A strings.Builder only ever appends, so the strings
// it has handed out never change, and a full block stays with the ids that
// point into it while the next one fills.
type slab struct {
	b      strings.Builder
	size   int      // size of the next block
	blocks []string // the blocks filled before b
	start  int      // where in b the id begun (see begin) starts
}

// idRef locates an id in a slab. A block is at most slabMax bytes, or
// holds a single longer id, so an offset fits 32 bits.
type idRef struct {
	block uint32
	off   uint32
	n     int
}

const (
	slabMin = 1 << 10
	slabMax = 64 << 10
)

// add copies b into the slab.
func (s *slab) add(b []byte) idRef {
	s.begin(len(b))
	s.b.Write(b)
	return s.end()
}

// begin makes room for an id of at most n bytes in the block being
// filled, to be written with write and ended with end: an id built in
// parts is copied once, into the slab.
func (s *slab) begin(n int) {
	if s.b.Cap()-s.b.Len() < n {
		if s.b.Cap() > 0 {
			s.blocks = append(s.blocks, s.b.String())
		}
		s.size = min(slabMax, max(slabMin, 2*s.size))
		s.b = strings.Builder{}
		s.b.Grow(max(s.size, n))
	}
	s.start = s.b.Len()
}

// write adds b to the id begun, within the room begin made.
func (s *slab) write(b []byte) { s.b.Write(b) }

// written is how many bytes the id begun holds so far.
func (s *slab) written() int { return s.b.Len() - s.start }

// end ends the id begun and returns where it is.
func (s *slab) end() idRef {
	return idRef{block: uint32(len(s.blocks)), off: uint32(s.start), n: s.b.Len() - s.start}
}

// locate returns the id r locates in a slab whose full blocks are blocks
// and whose block being filled holds last.
func locate(blocks []string, last string, r idRef) string {
	block := last
	if int(r.block) < len(blocks) {
		block = blocks[r.block]
	}
	return block[r.off : int(r.off)+r.n]
}
