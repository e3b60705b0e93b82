package testrun

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPinSources: each combination of pin sources the verdict command
// takes gives each side the pins it names (seen through the decision: the
// same pins let the verdict stand, a changed pin makes it invalid), and a
// combination that names no pins for a side is a *PinSourcesError.
func TestPinSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	write("old/fx/a.json", `{"n":1}`)
	write("new/fx/a.json", `{"n":2}`)
	oldTree, newTree := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	pinsA := write("a.json", `{"fx/a.json": "`+sum(`{"n":1}`)+`"}`)
	pinsB := write("b.json", `{"fx/a.json": "`+sum(`{"n":2}`)+`"}`)
	bad := write("bad.json", `{"fx/a.json": "abc"}`)

	parent := []*Run{outcomeRun(t, "p1", map[string]Outcome{"a": OutcomePassed}), outcomeRun(t, "p2", map[string]Outcome{"a": OutcomePassed})}
	patch := []*Run{outcomeRun(t, "q1", map[string]Outcome{"a": OutcomePassed}), outcomeRun(t, "q2", map[string]Outcome{"a": OutcomePassed})}
	decide := func(t *testing.T, s PinSources) Decision {
		t.Helper()
		opt, err := s.Option()
		require.NoError(t, err)
		require.NotNil(t, opt)
		p, err := PairedVerdict(parent, patch, opt)
		require.NoError(t, err)
		return p.Decision
	}
	for _, tc := range []struct {
		name string
		s    PinSources
		want Decision
	}{
		{"recorded on each side, the same", PinSources{Parent: pinsA, Patch: pinsA}, DecisionAllow},
		{"recorded on each side, changed", PinSources{Parent: pinsA, Patch: pinsB}, DecisionInvalid},
		{"the file is the parent's", PinSources{File: pinsA, Patch: pinsB}, DecisionInvalid},
		{"recomputed in each tree, the same", PinSources{File: pinsB, ParentTree: oldTree, PatchTree: oldTree}, DecisionAllow},
		{"recomputed in each tree, changed", PinSources{File: pinsA, ParentTree: oldTree, PatchTree: newTree}, DecisionInvalid},
		{"the file for the parent, the patch's tree", PinSources{File: pinsB, PatchTree: newTree}, DecisionAllow},
		{"the parent's recorded pins name the paths", PinSources{Parent: pinsA, PatchTree: newTree}, DecisionInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, decide(t, tc.s)) })
	}

	t.Run("no source: no option", func(t *testing.T) {
		opt, err := PinSources{}.Option()
		require.NoError(t, err)
		assert.Nil(t, opt)
	})
	for _, tc := range []struct {
		name string
		s    PinSources
		msg  string
	}{
		{"a tree without pins", PinSources{PatchTree: newTree}, "--parent-tree and --patch-tree need --pins"},
		{"recorded parent pins win over the parent's tree", PinSources{Parent: pinsA, ParentTree: oldTree, PatchTree: newTree}, ""},
		{"the parent's tree, recorded patch pins", PinSources{Patch: pinsA, ParentTree: oldTree}, "--parent-tree needs --pins"},
		{"no pins for the patch", PinSources{File: pinsA}, "the patch's pins are missing: give --patch-pins or --patch-tree"},
		{"no pins for the parent", PinSources{Patch: pinsA}, "the parent's pins are missing: give --pins or --parent-pins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.s.Option()
			if tc.msg == "" {
				// --parent-pins wins over --parent-tree: no error.
				require.NoError(t, err)
				return
			}
			var perr *PinSourcesError
			require.True(t, errors.As(err, &perr), "%v", err)
			assert.Equal(t, tc.msg, perr.Error())
		})
	}
	t.Run("an unreadable or invalid file is its own error", func(t *testing.T) {
		_, err := PinSources{File: filepath.Join(dir, "none.json"), Patch: pinsA}.Option()
		assert.True(t, errors.Is(err, os.ErrNotExist), "%v", err)
		_, err = PinSources{Parent: pinsA, Patch: bad}.Option()
		assert.True(t, errors.Is(err, ErrInvalidPins), "%v", err)
		assert.ErrorContains(t, err, bad+": ")
		var perr *PinSourcesError
		assert.False(t, errors.As(err, &perr))
	})
}
