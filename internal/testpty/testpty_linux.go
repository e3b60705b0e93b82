package testpty

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// Open opens a new pseudo-terminal and returns its controlling side
// (master: what the terminal shows is read from it) and its terminal side
// (slave: a program writes to it as to a terminal). The caller closes both.
func Open() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("testpty: %w", err)
	}
	fail := func(err error) (*os.File, *os.File, error) {
		master.Close()
		return nil, nil, fmt.Errorf("testpty: %w", err)
	}
	var unlock int32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		return fail(fmt.Errorf("unlock: %w", err))
	}
	var n uint32
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		return fail(fmt.Errorf("number: %w", err))
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	return master, slave, nil
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// ReadAll reads master until every terminal side is closed (the kernel
// then answers EIO, which is the end here, not an error).
func ReadAll(master *os.File) (string, error) {
	var b []byte
	buf := make([]byte, 4096)
	for {
		n, err := master.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			if errors.Is(err, syscall.EIO) || errors.Is(err, io.EOF) {
				return string(b), nil
			}
			return string(b), err
		}
	}
}
