package testrun

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRunFile: a run is read from a file or from stdin ("-"), alike;
// a missing file gives the os error, an invalid run and a run without an
// id are refused with ErrInvalidRun and the path in the message.
func TestReadRunFile(t *testing.T) {
	r := &Run{ID: "run-1", Kind: KindBase, Status: StatusSuccess, Complete: false, IncompleteReasons: []string{"no report found"}}
	data, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile, err := ReadRunFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	fromStdin, err := ReadRunFile("-", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if fromFile.ID != "run-1" || fromStdin.ID != "run-1" {
		t.Errorf("ids %q and %q, want run-1", fromFile.ID, fromStdin.ID)
	}

	if _, err := ReadRunFile(filepath.Join(dir, "missing.json"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	noID := strings.Replace(string(data), `"id":"run-1"`, `"id":null`, 1)
	if noID == string(data) {
		t.Fatal("the JSON form has no id key to blank")
	}
	for name, in := range map[string]string{"no id": noID, "not a run": `{"id": "x"}`} {
		_, err := ReadRunFile("-", strings.NewReader(in))
		if !errors.Is(err, ErrInvalidRun) || !strings.HasPrefix(err.Error(), "-: ") {
			t.Errorf("%s: %v, want ErrInvalidRun naming the path", name, err)
		}
	}
	if _, err := ReadRunFile("-", strings.NewReader(noID)); err == nil || !strings.Contains(err.Error(), "the run has no id") {
		t.Errorf("no id: %v", err)
	}
}

// TestReadRunFiles: the runs come back in the order of their paths, and
// the first that cannot be read stops the read with its error.
func TestReadRunFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, id := range []string{"b", "a"} {
		data, err := (&Run{ID: id, Kind: KindBase, Status: StatusSuccess, IncompleteReasons: []string{"no report found"}}).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, id+".json")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	runs, err := ReadRunFiles(paths, nil)
	if err != nil || len(runs) != 2 || runs[0].ID != "b" || runs[1].ID != "a" {
		t.Fatalf("runs %v, err %v; want b then a", runs, err)
	}
	missing := filepath.Join(dir, "missing.json")
	if runs, err := ReadRunFiles([]string{paths[0], missing, paths[1]}, nil); !errors.Is(err, fs.ErrNotExist) || runs != nil {
		t.Errorf("a missing file: %v, %v; want fs.ErrNotExist and no runs", runs, err)
	}
}
