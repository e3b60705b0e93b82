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
	target, fi, err := resolveLinks(name)
	if err != nil {
		return fmt.Errorf("exporter: write %s: %w", name, err)
	}
	switch {
	case fi != nil && fi.IsDir():
		return fmt.Errorf("exporter: write %s: is a directory", name)
	case fi != nil && !fi.Mode().IsRegular():
		err = writeInPlace(target, write)
	default:
		perm := fs.FileMode(0o644)
		if fi != nil {
			perm = fi.Mode().Perm()
		}
		err = writeAtomic(target, perm, write)
	}
	if err != nil {
		return fmt.Errorf("exporter: write %s: %w", name, err)
	}
	return nil
}

// resolveLinks follows the symbolic links of name and returns where they
// lead and what is there (nil when nothing is).
func resolveLinks(name string) (string, fs.FileInfo, error) {
	for range maxLinks {
		fi, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return name, fi, nil
		}
		dest, err := os.Readlink(name)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(name), dest)
		}
		name = dest
	}
	return "", nil, fmt.Errorf("more than %d symbolic links", maxLinks)
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
			tmp.Close()
			os.Remove(tmp.Name())
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
		d.Sync()
		d.Close()
	}
	return nil
}
