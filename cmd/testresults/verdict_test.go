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
	t.Run("the same run file twice on one side exits 3", func(t *testing.T) {
		for side, args := range map[string][]string{
			"parent": {"--parent", p1, "--parent", p1, "--patch", b1, "--patch", b2},
			"patch":  {"--parent", p1, "--parent", p2, "--patch", b1, "--patch", b1},
		} {
			code, out, errs := runCmd(t, append([]string{"verdict"}, args...)...)
			assert.Equal(t, exitRejected, code, "%s: %s%s", side, out, errs)
			assert.Empty(t, out, side)
			assert.Contains(t, errs, side+" runs 1 and 2 are the same run (id ", side)
			assert.Contains(t, errs, "two copies of a run can never disagree", side)
		}
	})
	t.Run("two runs of one report on one side exit 3", func(t *testing.T) {
		// parse gives a report's run an id derived from its sha256: parsing
		// one report twice is the same id; with --id, the same digests.
		parse := func(report string, extra ...string) string {
			code, out, errs := runCmd(t, append([]string{"parse", "-q", "--kind", "base"}, append(extra, report)...)...)
			require.Equal(t, exitOK, code, errs)
			f, err := os.CreateTemp(dir, "parsed-*.json")
			require.NoError(t, err)
			_, err = f.WriteString(out)
			require.NoError(t, err)
			require.NoError(t, f.Close())
			return f.Name()
		}
		rep := writeReport(t, dir, "once.xml", junitPass)
		other := writeReport(t, dir, "other.xml", junitPass+"\n")
		third := writeReport(t, dir, "third.xml", junitPass+"\n\n")
		for name, tc := range map[string]struct {
			args []string
			want string
		}{
			"parent, derived ids": {[]string{"--parent", parse(rep), "--parent", parse(rep), "--patch", parse(other), "--patch", parse(third)},
				"parent runs 1 and 2 are the same run (id "},
			"parent, ids given": {[]string{"--parent", parse(rep, "--id", "p-a"), "--parent", parse(rep, "--id", "p-b"), "--patch", parse(other), "--patch", parse(third)},
				`parent runs 1 and 2 are the same run (runs "p-a" and "p-b" read reports with the same sha256 digests)`},
			"patch, ids given": {[]string{"--parent", parse(other), "--parent", parse(third), "--patch", parse(rep, "--id", "q-a"), "--patch", parse(rep, "--id", "q-b")},
				`patch runs 1 and 2 are the same run (runs "q-a" and "q-b" read reports with the same sha256 digests)`},
		} {
			code, out, errs := runCmd(t, append([]string{"verdict"}, tc.args...)...)
			assert.Equal(t, exitRejected, code, "%s: %s%s", name, out, errs)
			assert.Contains(t, errs, tc.want, name)
		}
		code, out, errs := runCmd(t, "verdict", "--parent", parse(rep), "--parent", parse(other), "--patch", parse(rep, "--id", "q-a"), "--patch", parse(other, "--id", "q-b"))
		assert.Equal(t, exitOK, code, "distinct reports on each side: %s%s", out, errs)
	})
	t.Run("bad pins file exits 3", func(t *testing.T) {
		bad := filepath.Join(dir, "bad-pins.json")
		require.NoError(t, os.WriteFile(bad, []byte(`{"a": "x", "a": "y"}`), 0o644))
		code, _, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2, "--parent-pins", bad, "--patch-pins", bad)
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, errs, "given twice")
	})
}
