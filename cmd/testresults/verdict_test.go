package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func TestVerdictCommand(t *testing.T) {
	dir := t.TempDir()
	ok := map[string]testrun.Outcome{"a": passed, "b": failed, "c": passed}
	broken := map[string]testrun.Outcome{"a": failed, "b": failed, "c": passed}
	repaired := map[string]testrun.Outcome{"a": passed, "b": passed, "c": passed}
	p1 := writeRun(t, dir, "p1", testrun.KindBase, "P", ok)
	p2 := writeRun(t, dir, "p2", testrun.KindBase, "P", ok)
	b1 := writeRun(t, dir, "b1", testrun.KindAttempt, "Q", broken)
	b2 := writeRun(t, dir, "b2", testrun.KindAttempt, "Q", broken)
	r1 := writeRun(t, dir, "r1", testrun.KindAttempt, "Q", repaired)
	r2 := writeRun(t, dir, "r2", testrun.KindAttempt, "Q", repaired)
	flip := writeRun(t, dir, "flip", testrun.KindBase, "P", map[string]testrun.Outcome{"a": failed, "b": failed, "c": passed})

	t.Run("broken exits 1", func(t *testing.T) {
		code, out, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2)
		assert.Equal(t, exitFailed, code, errs)
		assert.Contains(t, out, "decision: reject")
		assert.Contains(t, out, "a  parent passed,passed  patch failed,failed")
	})
	t.Run("repaired exits 0, --json", func(t *testing.T) {
		code, out, errs := runCmd(t, "verdict", "--json", "--parent", p1, "--parent", p2, "--patch", r1, "--patch", r2)
		assert.Equal(t, exitOK, code, errs)
		var p testrun.Paired
		require.NoError(t, json.Unmarshal([]byte(out), &p))
		assert.Equal(t, testrun.DecisionAllow, p.Decision)
		require.Len(t, p.Repaired, 1)
		assert.Equal(t, "b", p.Repaired[0].ID)
		assert.Equal(t, 2, p.Unchanged)
	})
	t.Run("frozen is logged and excluded", func(t *testing.T) {
		code, _, errs := runCmd(t, "verdict", "--parent", p1, "--parent", flip, "--patch", b1, "--patch", b2)
		assert.Equal(t, exitOK, code)
		assert.Contains(t, errs, "frozen (excluded): a: parent passed,failed")
	})

	pins := func(name string, m map[string]string) string {
		data, err := json.Marshal(m)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	const sumA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	const sumB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	t.Run("a changed pin makes the comparison invalid (exit 3)", func(t *testing.T) {
		code, out, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2,
			"--parent-pins", pins("pa.json", map[string]string{"fx/a.json": sumA}),
			"--patch-pins", pins("pb.json", map[string]string{"fx/a.json": sumB}))
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, out, "decision: invalid")
		assert.Contains(t, errs, "a fixture pin changed between parent and patch: fx/a.json")
	})
	t.Run("pins recomputed in each tree", func(t *testing.T) {
		parentTree, patchTree := t.TempDir(), t.TempDir()
		for tree, body := range map[string]string{parentTree: "v1", patchTree: "v2"} {
			require.NoError(t, os.MkdirAll(filepath.Join(tree, "fx"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(tree, "fx", "a.json"), []byte(body), 0o644))
		}
		pf := pins("pins.json", map[string]string{"fx/a.json": sumA})
		code, _, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2,
			"--pins", pf, "--parent-tree", parentTree, "--patch-tree", patchTree)
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, errs, "fx/a.json:")
		code, _, errs = runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2,
			"--pins", pf, "--parent-tree", parentTree, "--patch-tree", parentTree)
		assert.Equal(t, exitFailed, code, "same fixtures: the broken verdict stands: %s", errs)
	})
	for name, args := range map[string][]string{
		"one parent":        {"verdict", "--parent", p1, "--patch", b1, "--patch", b2},
		"positional run":    {"verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2, "x.json"},
		"tree without pins": {"verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2, "--patch-tree", dir},
		"pins for one side": {"verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2, "--parent-pins", pins("x.json", map[string]string{})},
	} {
		t.Run("usage: "+name, func(t *testing.T) {
			code, _, errs := runCmd(t, args...)
			assert.Equal(t, exitUsage, code, errs)
		})
	}
	t.Run("bad pins file exits 3", func(t *testing.T) {
		bad := filepath.Join(dir, "bad-pins.json")
		require.NoError(t, os.WriteFile(bad, []byte(`{"a": "x", "a": "y"}`), 0o644))
		code, _, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2, "--parent-pins", bad, "--patch-pins", bad)
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, errs, "given twice")
	})
}
