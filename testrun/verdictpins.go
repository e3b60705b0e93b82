package testrun

import (
	"fmt"
	"maps"
	"os"
	"slices"
)

// PinSources says where each side's fixture pins come from. The fields
// are named by the verdict command's flags, and so are the messages of a
// *PinSourcesError:
//
//	File, Patch            --pins F --patch-pins F: the file is the parent's
//	Parent, Patch          --parent-pins F --patch-pins F: recorded on each side
//	File, ParentTree, PatchTree
//	                       --pins F --parent-tree D --patch-tree D: the
//	                       file's paths recomputed in each tree
//	File, PatchTree        --pins F --patch-tree D: the file is the parent's,
//	                       the patch's recomputed
type PinSources struct {
	File                  string
	Parent, Patch         string
	ParentTree, PatchTree string
}

// PinSourcesError is a combination of PinSources that cannot work; its
// message names the verdict command's flags.
type PinSourcesError struct{ msg string }

func (e *PinSourcesError) Error() string { return e.msg }

// Option reads and computes the pins s names and returns them as
// WithPins; nil when s names none. A pins file that cannot be read or is
// not valid (ErrInvalidPins), or a tree that cannot be hashed, is returned
// as its error; a combination that names no pins for one side, or a tree
// without a file of paths, as a *PinSourcesError.
func (s PinSources) Option() (VerdictOption, error) {
	if s.File == "" && s.Parent == "" && s.Patch == "" {
		if s.ParentTree != "" || s.PatchTree != "" {
			return nil, &PinSourcesError{"--parent-tree and --patch-tree need --pins"}
		}
		return nil, nil
	}
	var file, parent, patch Pins
	var err error
	if s.File != "" {
		if file, err = ReadPinsFile(s.File); err != nil {
			return nil, err
		}
	}
	// The paths to recompute are the file's, else the parent's.
	paths := func() []string {
		src := file
		if src == nil {
			src = parent
		}
		return slices.Sorted(maps.Keys(src))
	}
	switch {
	case s.Parent != "":
		if parent, err = ReadPinsFile(s.Parent); err != nil {
			return nil, err
		}
	case s.ParentTree != "":
		if file == nil {
			return nil, &PinSourcesError{"--parent-tree needs --pins"}
		}
		if parent, err = HashPins(os.DirFS(s.ParentTree), paths()); err != nil {
			return nil, err
		}
	default:
		parent = file
	}
	switch {
	case s.Patch != "":
		if patch, err = ReadPinsFile(s.Patch); err != nil {
			return nil, err
		}
	case s.PatchTree != "":
		if patch, err = HashPins(os.DirFS(s.PatchTree), paths()); err != nil {
			return nil, err
		}
	default:
		return nil, &PinSourcesError{"the patch's pins are missing: give --patch-pins or --patch-tree"}
	}
	if parent == nil {
		return nil, &PinSourcesError{"the parent's pins are missing: give --pins or --parent-pins"}
	}
	return WithPins(parent, patch), nil
}

// ReadPinsFile reads the pins file at path (ReadPins); an invalid file's
// error names the path.
func ReadPinsFile(path string) (Pins, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: a failed read is reported
	p, err := ReadPins(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
