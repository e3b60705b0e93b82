package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedactLocation: every credential a PostgreSQL URL or key=value
// connection string can carry is masked, well-formed or not; the rest
// stays readable.
func TestRedactLocation(t *testing.T) {
	const R = masked
	for _, tc := range []struct {
		in, want string
		secrets  []string
	}{
		{"postgres://u:secret@h:5432/db", "postgres://u:" + R + "@h:5432/db", []string{"secret"}},
		{"postgresql://u:secret@h/db", "postgresql://u:" + R + "@h/db", []string{"secret"}},
		{"postgres://u:se%40cret@h/db", "postgres://u:" + R + "@h/db", []string{"se%40cret", "se@cret"}},
		{"postgres://u:sec:ret@h/db", "postgres://u:" + R + "@h/db", []string{"sec", "ret"}},
		{"postgres://h/db?password=secret&sslmode=disable", "postgres://h/db?password=" + R + "&sslmode=disable", []string{"secret"}},
		{"postgres://h/db?sslmode=require&sslpassword=keypass", "postgres://h/db?sslmode=require&sslpassword=" + R, []string{"keypass"}},
		{"postgres://h/db?passfile=/home/u/.pgpass", "postgres://h/db?passfile=" + R, []string{".pgpass"}},
		{"postgres://h/db?PASSWORD=secret", "postgres://h/db?PASSWORD=" + R, []string{"secret"}},
		{"postgres://h/db?pass%77ord=secret", "postgres://h/db?pass%77ord=" + R, []string{"secret"}},
		{"postgres://h/db?password=se%26cret", "postgres://h/db?password=" + R, []string{"se%26cret"}},
		{"postgres://u@h/db?application_name=a@b&password=secret", "postgres://u@h/db?application_name=a@b&password=" + R, []string{"secret"}},
		{"postgres://u:one@h/db?password=two", "postgres://u:" + R + "@h/db?password=" + R, []string{"one", "two"}},
		// Malformed: an unencoded '/', '?' or '#' in the password.
		{"postgres://u:pa/ss@h/db", "postgres://u:" + R + "@h/db", []string{"pa/ss", "ss"}},
		{"postgres://u:pa?ss@h/db", "postgres://u:" + R + "@h/db", []string{"pa?ss", "ss"}},
		{"postgres://u:pa#ss@h/db", "postgres://u:" + R + "@h/db", []string{"pa#ss", "ss"}},
		{"postgres://u:pa/ss@h/db?password=two", "postgres://u:" + R + "@h/db?password=" + R, []string{"pa/ss", "two"}},
		// Other URLs and URL-like locations.
		{"mysql://u:secret@h/db", "mysql://u:" + R + "@h/db", []string{"secret"}},
		{"mysql:u:secret@h", "mysql:u:" + R + "@h", []string{"secret"}},
		// The key=value form, quoted or not, spaces around '='.
		{"host=h user=u password=secret dbname=d", "host=h user=u password=" + R + " dbname=d", []string{"secret"}},
		{"host=h password = secret", "host=h password = " + R, []string{"secret"}},
		{`host=h password='se cr\'et' dbname=d`, "host=h password=" + R + " dbname=d", []string{"se cr", "et"}},
		{`password=se\ cret sslpassword=two`, "password=" + R + " sslpassword=" + R, []string{"se", "cret", "two"}},
		{"host=h passfile=/p/.pgpass", "host=h passfile=" + R, []string{".pgpass"}},
		// Nothing to hide.
		{"postgres://u@h:5432/db?sslmode=disable", "postgres://u@h:5432/db?sslmode=disable", nil},
		{"/var/lib/x/store.db", "/var/lib/x/store.db", nil},
		{"host=h dbname=d", "host=h dbname=d", nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := redactLocation(tc.in)
			assert.Equal(t, tc.want, got)
			for _, s := range tc.secrets {
				assert.NotContains(t, got, s)
			}
		})
	}
}

// TestRedactorHidesCredentialsInErrors: a driver's message that repeats a
// credential, as written or decoded, shows none; the error still wraps
// what it wrapped.
func TestRedactorHidesCredentialsInErrors(t *testing.T) {
	loc := "postgres://u:p%40ssw0rd@h/db?sslpassword=keypass1&password='x'"
	r := newRedactor(loc)
	cause := errors.New("driver")
	for _, msg := range []string{"auth p%40ssw0rd failed", "auth p@ssw0rd failed", "decrypt with keypass1"} {
		err := r.error(errors.Join(errors.New(msg), cause))
		assert.NotContains(t, err.Error(), "ssw0rd")
		assert.NotContains(t, err.Error(), "keypass1")
		assert.ErrorIs(t, err, cause)
	}
	plain := errors.New("connection refused")
	assert.Same(t, plain, r.error(plain), "nothing to hide: the error as it was")
	assert.NoError(t, r.error(nil))
}

// TestOpenErrorsShowNoCredential: opening a PostgreSQL store that is not
// there (a closed port on 127.0.0.1), or a location refused, fails with
// messages that show no credential of the location.
func TestOpenErrorsShowNoCredential(t *testing.T) {
	t.Chdir(t.TempDir()) // were one taken for a path, the file lands there
	ctx := context.Background()
	for _, loc := range []string{
		"postgres://u:topsecret1@127.0.0.1:1/db?connect_timeout=5",
		"postgres://u@127.0.0.1:1/db?password=topsecret1&connect_timeout=5",
		"postgres://u@127.0.0.1:1/db?sslmode=require&sslpassword=topsecret1&connect_timeout=5",
		"postgres://u@127.0.0.1:1/db?passfile=/nonexistent/topsecret1&connect_timeout=5",
		"postgres://u:topsecret1@127.0.0.1:1/db?sslmode=bogus",
		"postgres://u:top/secret1@127.0.0.1:1/db",
		"postgres://u:top?secret1@127.0.0.1:1/db",
		"postgresql://u@127.0.0.1:1/db?pass%77ord=topsecret1&connect_timeout=bogus",
		"host=127.0.0.1 port=1 password=topsecret1",
		"sqlite:host=127.0.0.1 password = 'top secret1'",
		"mysql://u:topsecret1@127.0.0.1/db",
		"mysql:u:topsecret1@127.0.0.1",
	} {
		t.Run(loc, func(t *testing.T) {
			_, err := Open(ctx, loc)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "secret1")
			assert.NotContains(t, err.Error(), "topsecret")
		})
	}
}

// TestStorePathsArePaths: a SQLite path is a path, never URL-decoded, and
// a location a driver would read as something else is refused without
// creating anything.
func TestStorePathsArePaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ctx := context.Background()
	for _, loc := range []string{
		"p%41q.db",              // stays p%41q.db, never pAq.db
		"sqlite:sp%2Fce %20.db", // the sqlite: prefix, then the path as written
		"./data:x.db",           // a colon, behind ./
		filepath.Join(dir, "a&b=c;d,e@f+g$h.db"),
		"nested/%zz/x.db", // not valid percent-encoding either
	} {
		s, err := Open(ctx, loc)
		require.NoError(t, err, loc)
		require.NoError(t, s.Close())
	}
	for _, tc := range []struct{ loc, why string }{
		{"file:/x/u.db", "a SQLite URI"},
		{"file:u.db", "a SQLite URI"},
		{"FILE:u.db", "a SQLite URI"},
		{"sqlite:file:u.db", "a SQLite URI"},
		{"file:///x/u.db", "want a file path or a postgres:// URL"},
		{"sqlite://u.db", "want a file path or a postgres:// URL"},
		{"a?b.db", "must not hold ?, # or a NUL byte"},
		{"a#b.db", "must not hold ?, # or a NUL byte"},
		{"a\x00b.db", "must not hold ?, # or a NUL byte"},
		{":memory:", "in-memory"},
		{"sqlite::memory:", "in-memory"},
		{"host=localhost dbname=d", "key=value connection string"},
		{"data:x.db", "starts like a URL scheme"},
		{"postgres:/x.db", "starts like a URL scheme"},
		{"", "empty location"},
		{"sqlite:", "empty location"},
	} {
		_, err := Open(ctx, tc.loc)
		require.ErrorIs(t, err, ErrUnsupported, "%q", tc.loc)
		assert.ErrorContains(t, err, tc.why, "%q", tc.loc)
	}
	var got []string
	require.NoError(t, filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, filepath.ToSlash(p))
		}
		return err
	}))
	var dbs []string
	for _, p := range got {
		if filepath.Ext(p) == ".db" {
			dbs = append(dbs, p)
		}
	}
	sort.Strings(dbs)
	assert.Equal(t, []string{"a&b=c;d,e@f+g$h.db", "data:x.db", "nested/%zz/x.db", "p%41q.db", "sp%2Fce %20.db"}, dbs,
		"each store where its path says, nothing where a refused location points (no ./file:)")
	assert.NoDirExists(t, "file:")
}

// TestLocation: the named store wins, then $HANGAR_STORE, then the file
// under $HOME; an optional store has no default file, and a store nothing
// names without a HOME is ErrNoLocation.
func TestLocation(t *testing.T) {
	for _, tc := range []struct {
		name, named, envStore, home string
		optional                    bool
		want                        string
		err                         error
	}{
		{"named", "/s/a.db", "/s/env.db", "/h", false, "/s/a.db", nil},
		{"named postgres", "postgres://h/db", "", "", false, "postgres://h/db", nil},
		{"env", "", "/s/env.db", "/h", false, "/s/env.db", nil},
		{"home", "", "", "/h", false, filepath.Join("/h", ".hangar", "store.db"), nil},
		{"nothing", "", "", "", false, "", ErrNoLocation},
		{"optional env", "", "/s/env.db", "/h", true, "/s/env.db", nil},
		{"optional nothing", "", "", "/h", true, "", nil},
		{"optional named", "/s/a.db", "", "", true, "/s/a.db", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{EnvStore: tc.envStore, "HOME": tc.home}
			got, err := Location(tc.named, tc.optional, func(k string) string { return env[k] })
			assert.ErrorIs(t, err, tc.err)
			assert.Equal(t, tc.want, got)
		})
	}
}
