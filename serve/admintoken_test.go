package serve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadAdminToken: the file's first line wins over the environment; a
// file without a token on its first line is refused.
func TestReadAdminToken(t *testing.T) {
	env := func(k string) string {
		if k == "HANGAR_ADMIN_TOKEN" {
			return " from-env \n"
		}
		return ""
	}
	tok, err := ReadAdminToken("", env)
	require.NoError(t, err)
	assert.Equal(t, "from-env", tok)
	tok, err = ReadAdminToken("", func(string) string { return "" })
	require.NoError(t, err)
	assert.Empty(t, tok)

	dir := t.TempDir()
	f := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(f, []byte("  secret \nsecond line\n"), 0o600))
	tok, err = ReadAdminToken(f, env)
	require.NoError(t, err)
	assert.Equal(t, "secret", tok)
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\nsecret\n"), 0o600))
	_, err = ReadAdminToken(empty, env)
	assert.EqualError(t, err, empty+": no token on its first line")
	_, err = ReadAdminToken(filepath.Join(dir, "none"), env)
	assert.True(t, os.IsNotExist(err), "%v", err)
}
