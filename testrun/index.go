package testrun

import "hash/maphash"

// idIndex finds a test id's position in Builder.cases. It is an
// open-addressing table of plain integers: a run's tens of thousands of
// ids cost one hash each and give the garbage collector nothing to scan,
// where a map[string]int32 hashed every new id twice (look-up, then
// insertion) and held a pointer per id.
type idIndex struct {
	seed maphash.Seed
	// slots hold the low 32 bits of an id's hash above its position in
	// cases plus one; 0 is an empty slot.
	slots []uint64
	n     int
}

// find returns the position of id, or -1 and the hash to pass to insert.
func (x *idIndex) find(id string, cases *caseList) (int32, uint32) {
	return x.findHashed(id, x.hash(id), cases)
}

// hash returns the hash of id that find looks it up by.
func (x *idIndex) hash(id string) uint32 {
	if x.slots == nil {
		x.grow(64)
	}
	return uint32(maphash.String(x.seed, id))
}

// touch reads the slot where the look-up of an id of hash h starts, so
// that it is in the cache when find reads it. The slots of a large run
// are far apart in memory: read one by one they cost a cache miss each,
// where the reads of several ids touched together wait for their misses
// at once.
func (x *idIndex) touch(h uint32) uint64 {
	return x.slots[h&uint32(len(x.slots)-1)]
}

// findHashed is find for an id whose hash (see hash) is h.
func (x *idIndex) findHashed(id string, h uint32, cases *caseList) (int32, uint32) {
	mask := uint32(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return -1, h
		}
		if uint32(s>>32) == h {
			if pos := int32(uint32(s) - 1); cases.at(pos).id == id {
				return pos, h
			}
		}
	}
}

// insert records that the id of hash h (from find) is at pos.
func (x *idIndex) insert(h uint32, pos int32) {
	if 2*(x.n+1) > len(x.slots) {
		x.grow(max(64, 2*len(x.slots)))
	}
	x.put(uint64(h)<<32 | uint64(uint32(pos)+1))
	x.n++
}

// reserve makes room for n more ids without growing.
func (x *idIndex) reserve(n int) {
	size := 64
	for size < 2*(x.n+n) {
		size *= 2
	}
	if size > len(x.slots) {
		x.grow(size)
	}
}

func (x *idIndex) grow(size int) {
	old := x.slots
	if old == nil {
		x.seed = maphash.MakeSeed()
	}
	x.slots = make([]uint64, size)
	for _, s := range old {
		if s != 0 {
			x.put(s)
		}
	}
}

func (x *idIndex) put(s uint64) {
	mask := uint32(len(x.slots) - 1)
	i := uint32(s>>32) & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = s
}
