package testrun

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadTail(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.log")
	require.NoError(t, os.WriteFile(p, []byte("0123456789"), 0o644))

	got, err := ReadTail(p, 4)
	require.NoError(t, err)
	assert.Equal(t, "6789", string(got), "only the last bytes are read")
	got, err = ReadTail(p, 100)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(got), "a short file is read whole")

	_, err = ReadTail(dir, 4)
	assert.ErrorContains(t, err, "not a regular file")
	_, err = ReadTail(filepath.Join(dir, "missing"), 4)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestReadOutputs(t *testing.T) {
	dir := t.TempDir()
	after := filepath.Join(dir, "after.log")
	require.NoError(t, os.WriteFile(after, append(bytes.Repeat([]byte("x\n"), MaxOutputBytes), "--- FAIL: TestTail (0.00s)\n"...), 0o644))
	missing := filepath.Join(dir, "missing")

	opts, err := ReadOutputs("", "")
	require.NoError(t, err)
	assert.Empty(t, opts, "no output, no option")

	_, err = ReadOutputs(after, "")
	assert.ErrorIs(t, err, ErrBaseOutputAlone)

	var rerr *OutputReadError
	_, err = ReadOutputs("", missing)
	require.ErrorAs(t, err, &rerr)
	assert.True(t, rerr.After)
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = ReadOutputs(missing, after)
	require.True(t, errors.As(err, &rerr))
	assert.False(t, rerr.After, "the base output's read is named the base's")

	opts, err = ReadOutputs("", after)
	require.NoError(t, err)
	require.Len(t, opts, 1)
	r := &Run{ID: "a", Status: StatusFailure}
	c := Compare(&Run{ID: "b", Status: StatusSuccess}, r, opts...)
	ids := []string{}
	for _, f := range c.OutputFailures {
		ids = append(ids, f.ID)
	}
	assert.Contains(t, ids, "TestTail", "the failure at the tail of an output longer than the limit is read")
}
