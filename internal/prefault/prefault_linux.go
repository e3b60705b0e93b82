package prefault

import (
	"syscall"
	"unsafe"
)

// madvise advice values that the syscall package does not name.
const (
	madvPopulateRead  = 22
	madvPopulateWrite = 23
)

// minResident is the share of a read-only mapping's pages that must be in
// the page cache for it to be populated: below it, the start is cold and
// populating would read from disk what no fault asked for.
const minResident = 0.9

// mapsBufSize bounds what is read of /proc/self/maps. The binary's own
// mappings come first (lowest addresses), so a longer file loses nothing
// that matters here.
const mapsBufSize = 16 << 10

func init() {
	if v, _ := syscall.Getenv("TESTRESULTS_PREFAULT"); v == "0" {
		return
	}
	var buf [mapsBufSize]byte
	for _, m := range ownMappings(readMaps(buf[:])) {
		switch {
		case m.perm == "r-xp" || m.perm == "r--p":
			if resident(m.lo, m.hi) >= minResident {
				madvise(m.lo, m.hi-m.lo, madvPopulateRead)
			}
		case m.perm == "rw-p":
			// Initialised data: every page written would be copied on
			// its first write; copy them all at once.
			madvise(m.lo, m.hi-m.lo, madvPopulateWrite)
		}
	}
}

// readMaps reads /proc/self/maps into buf and returns what was read.
func readMaps(buf []byte) []byte {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer func() { _ = syscall.Close(fd) }()
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if m <= 0 || err != nil {
			break
		}
		n += m
	}
	return buf[:n]
}

// madvise gives advice for [addr, addr+n). Its errors are ignored: an older
// kernel refuses the advice (EINVAL), and then the pages fault in as usual.
func madvise(addr, n uintptr, advice int) {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, n, uintptr(advice))
}

// resident is the share of the pages of [lo, hi) in memory, by mincore(2);
// 0 when it cannot tell.
func resident(lo, hi uintptr) float64 {
	pages := (hi - lo + pageSize - 1) / pageSize
	if pages == 0 {
		return 0
	}
	vec := make([]byte, pages)
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return 0
	}
	in := 0
	for _, v := range vec {
		in += int(v & 1)
	}
	return float64(in) / float64(pages)
}

const pageSize = 4096
