package testrun

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommonRepository(t *testing.T) {
	stored := map[string]string{"a": "hangar-dev/app", "b": "hangar-dev/app", "c": "hangar-dev/other"}
	repoOf := func(id string) (string, error) { return stored[id], nil }
	runs := func(ids ...string) []*Run {
		out := make([]*Run, len(ids))
		for i, id := range ids {
			out[i] = &Run{ID: id}
		}
		return out
	}
	for name, tc := range map[string]struct {
		ids  []string
		want string
	}{
		"one repository":                  {[]string{"a", "b"}, "hangar-dev/app"},
		"a run not stored is passed over": {[]string{"unknown", "a"}, "hangar-dev/app"},
		"two repositories: none":          {[]string{"a", "c", "b"}, ""},
		"no run stored":                   {[]string{"unknown"}, ""},
		"no run":                          {nil, ""},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := CommonRepository(runs(tc.ids...), repoOf)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	boom := errors.New("boom")
	_, err := CommonRepository(runs("a"), func(string) (string, error) { return "", boom })
	require.ErrorIs(t, err, boom)
}
