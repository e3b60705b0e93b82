package testrun

// caseList holds a run's case states in chunks of a fixed size: past the
// first chunk it grows without copying a state. Appending to one slice
// copied every state at each doubling (ids included, so with write
// barriers while the collector ran), which made a fifth of adding the
// cases of a large report whose size was not known in advance.
type caseList struct {
	chunks [][]caseState
	n      int
}

const (
	caseChunkBits = 10
	caseChunk     = 1 << caseChunkBits
)

// len returns how many states the list holds.
func (l *caseList) len() int { return l.n }

// at returns the state at index i (0 <= i < len).
func (l *caseList) at(i int32) *caseState {
	return &l.chunks[i>>caseChunkBits][i&(caseChunk-1)]
}

// add appends c and returns its index.
func (l *caseList) add(c caseState) int32 {
	if l.n&(caseChunk-1) == 0 {
		// A run of a few cases takes a chunk its size; a larger one, full
		// chunks.
		size := caseChunk
		if l.n == 0 {
			size = 16
		}
		l.chunks = append(l.chunks, make([]caseState, 0, size))
	}
	last := &l.chunks[len(l.chunks)-1]
	*last = append(*last, c)
	l.n++
	return int32(l.n - 1)
}
