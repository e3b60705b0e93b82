package testrun

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeriveID(t *testing.T) {
	a := []ReportInfo{{Path: "a.xml", SHA256: strings.Repeat("a", 64)}, {Path: "b.xml", Error: "refused"}}
	b := []ReportInfo{a[1], a[0]}
	id := DeriveID(a)
	assert.Len(t, id, 32)
	assert.Equal(t, id, DeriveID(b), "the order of the reports does not matter")
	assert.NotEqual(t, id, DeriveID(a[:1]))
	assert.True(t, ValidID(id))
}

func TestNewID(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	id, err := NewID(start, bytes.NewReader([]byte{1, 2, 3, 4, 5, 6}))
	require.NoError(t, err)
	assert.Equal(t, "20260102T020405Z-010203040506", id)
	assert.True(t, ValidID(id))
	_, err = NewID(start, bytes.NewReader([]byte{1}))
	assert.Error(t, err, "a short random source is an error, not a weak id")
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"r1": true, "20260102T020405Z-010203040506": true, "a.b_c-d": true,
		"": false, ".": false, "..": false, ".hidden": false, "-x": false, "a/b": false, "a b": false,
		"a\x00": false, strings.Repeat("x", MaxIDLength): true, strings.Repeat("x", MaxIDLength+1): false,
	} {
		assert.Equal(t, want, ValidID(id), "%q", id)
	}
}

func TestStatusRules(t *testing.T) {
	assert.Equal(t, StatusSuccess, StatusForExitCode(0))
	assert.Equal(t, StatusFailure, StatusForExitCode(1))
	assert.Equal(t, StatusFailure, StatusForExitCode(137))
	for code, ok := range map[int]bool{0: true, 255: true, -1: false, 256: false} {
		err := CheckExitCode(code)
		assert.Equal(t, ok, err == nil, "%d", code)
		if err != nil {
			assert.ErrorIs(t, err, ErrInvalidMetadata)
		}
	}
	assert.NoError(t, CheckGrade(KindBase, ""))
	assert.NoError(t, CheckGrade(KindGrader, GradeIsolated))
	assert.NoError(t, CheckGrade(KindGrader, "shared"))
	assert.ErrorIs(t, CheckGrade(KindBase, GradeIsolated), ErrInvalidMetadata)
	assert.ErrorIs(t, CheckGrade(KindGrader, "  "), ErrInvalidMetadata)
}
