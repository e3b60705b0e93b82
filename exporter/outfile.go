package exporter

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds the symbolic links WriteFile follows.
const maxLinks = 40

// WriteFile writes what write produces to the file name, so that a reader
// never sees half of it. A regular file, or a name that does not exist yet,
// is written through a temporary file in the same folder that is synced and
// then renamed over it: a failed write or a crash leaves the previous file
// (or none) and no temporary file. Anything else, a device such as
// /dev/null, a FIFO or a terminal, is opened and written in place, never
// replaced. A symbolic link is followed (as far as it resolves) and the same
// rule applies to its target; the link itself stays.
func WriteFile(name string, write func(io.Writer) error) error {
	var err error
	// Stat follows links as the kernel does, /proc/self/fd/N and
	// /dev/stdout to a pipe included.
	fi, serr := os.Stat(name)
	switch {
	case serr == nil && fi.IsDir():
		err = errors.New("is a directory")
	case serr == nil && !fi.Mode().IsRegular():
		err = writeInPlace(name, write)
	case serr == nil:
		var target string
		if target, err = filepath.EvalSymlinks(name); err == nil {
			err = writeAtomic(target, fi.Mode().Perm(), write)
		}
	case errors.Is(serr, fs.ErrNotExist):
		// Nothing there, or a link to nothing: create its target.
		var target string
		if target, err = resolveLinks(name); err == nil {
			err = writeAtomic(target, 0o644, write)
		}
	default:
		err = serr
	}
	if err != nil {
		return fmt.Errorf("exporter: write %s: %w", name, err)
	}
	return nil
}

// resolveLinks follows the symbolic links of name to where they lead.
func resolveLinks(name string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		dest, err := os.Readlink(name)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(name), dest)
		}
		name = dest
	}
	return "", fmt.Errorf("more than %d symbolic links", maxLinks)
}

func writeInPlace(name string, write func(io.Writer) error) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	werr := write(f)
	return errors.Join(werr, f.Close())
}

func writeAtomic(name string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			// The write already failed; what is left is a temporary file
			// that nothing else names.
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	// The rename is durable once the folder is synced; a folder that
	// cannot be synced (some file systems refuse) keeps the file written.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
