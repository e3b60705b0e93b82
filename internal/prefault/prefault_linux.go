package prefault

import (
	"syscall"
	"unsafe"
)

// What the syscall package does not name (the same on every Linux
// architecture); the number of preadv2 is in the files named for each
// architecture. x/sys/unix names them all, but the package must not import
// it: Go initialises packages in import path order among those ready, and
// golang.org/x/sys/unix sorts after most of the binary's packages, so this
// one would be initialised after most of the faults it is there to save.
const (
	madvPopulateRead  = 22
	madvPopulateWrite = 23
	rwfNowait         = 8
)

// samples is how many pages of a mapping are read with RWF_NOWAIT to tell
// that its part of the file is in the page cache.
const samples = 16

// marker is initialised data: the linker places it in the binary's data,
// which is mapped from the binary's file.
var marker = [8]byte{'p', 'r', 'e', 'f', 'a', 'u', 'l', 't'}

// mapsBufSize bounds what is read of /proc/self/maps. The binary's own
// mappings come first in a position-dependent binary and early in any
// other, so a longer file loses nothing that matters here.
const mapsBufSize = 16 << 10

func init() {
	if v, _ := syscall.Getenv("TESTRESULTS_PREFAULT"); v == "0" {
		return
	}
	var buf [mapsBufSize]byte
	maps := readMaps(buf[:])
	// The binary is the file mapped where this package's data is.
	own := ownMappings(maps, uintptr(unsafe.Pointer(&marker)))
	if len(own) == 0 {
		return
	}
	exe, err := syscall.Open("/proc/self/exe", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer func() { _ = syscall.Close(exe) }()
	page := uintptr(syscall.Getpagesize())
	for _, m := range own {
		if !cached(exe, m, page) {
			continue
		}
		switch m.perm {
		case "r-xp", "r--p":
			madvise(m.lo, m.hi-m.lo, madvPopulateRead)
		case "rw-p":
			// Initialised data: every page written would be copied on
			// its first write; copy them all at once.
			madvise(m.lo, m.hi-m.lo, madvPopulateWrite)
		}
	}
}

// readMaps reads /proc/self/maps into buf and returns its whole lines.
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
	return wholeLines(buf[:n], n == len(buf))
}

// cached tells whether samples pages spread over m's part of the file are
// all in the page cache. Unlike mincore(2), which reports every page of a
// file the caller may not write as resident, a read with RWF_NOWAIT fails
// for a page that is not.
func cached(exe int, m mapping, page uintptr) bool {
	if sysPreadv2 == 0 {
		return false
	}
	size := m.hi - m.lo
	step := size / samples
	if step < page {
		step = page
	}
	var b [1]byte
	iov := syscall.Iovec{Base: &b[0]}
	iov.SetLen(1)
	for off := uintptr(0); off < size; off += step {
		// preadv2(fd, iov, iovcnt, pos_l, pos_h, flags): a 64-bit
		// architecture's offset is pos_l whole.
		n, _, errno := syscall.Syscall6(sysPreadv2, uintptr(exe), uintptr(unsafe.Pointer(&iov)), 1,
			m.offset+off, 0, rwfNowait)
		if errno != 0 || n != 1 {
			return false
		}
	}
	return true
}

// madvise gives advice for [addr, addr+n). Its errors are ignored: an older
// kernel refuses the advice (EINVAL), and then the pages fault in as usual.
func madvise(addr, n uintptr, advice int) {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, n, uintptr(advice))
}
