package check

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadBaseOutput(t *testing.T) {
	dir := t.TempDir()
	runFile := filepath.Join(dir, ResultsFile)
	// No output.log beside the run file: no output, no error.
	if b, err := ReadBaseOutput(runFile, ""); b != nil || err != nil {
		t.Fatalf("missing default = %q, %v; want nil, nil", b, err)
	}
	// A run on stdin has no default.
	if b, err := ReadBaseOutput("-", ""); b != nil || err != nil {
		t.Fatalf("stdin = %q, %v; want nil, nil", b, err)
	}
	// A given file that does not exist is an error.
	if _, err := ReadBaseOutput(runFile, filepath.Join(dir, "nope.log")); err == nil {
		t.Fatal("missing given file: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, OutputFile), []byte("base out\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadBaseOutput(runFile, ""); string(b) != "base out\n" || err != nil {
		t.Fatalf("default = %q, %v", b, err)
	}
	// The default that is a folder is refused, not taken as absent.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, OutputFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBaseOutput(filepath.Join(sub, ResultsFile), ""); err == nil {
		t.Fatal("a folder as the default output: no error")
	}
}

func TestResultKeptOutput(t *testing.T) {
	if b := (&Result{}).KeptOutput(); b == nil || len(b) != 0 {
		t.Fatalf("no output file = %v, want empty non-nil", b)
	}
	p := filepath.Join(t.TempDir(), OutputFile)
	if b := (&Result{OutputFile: p}).KeptOutput(); b == nil || len(b) != 0 {
		t.Fatalf("unreadable output file = %v, want empty non-nil", b)
	}
	if err := os.WriteFile(p, []byte("out"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b := (&Result{OutputFile: p}).KeptOutput(); string(b) != "out" {
		t.Fatalf("KeptOutput = %q", b)
	}
}
