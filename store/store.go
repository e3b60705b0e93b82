package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/internal/lazyre"
	"github.com/hangar-dev/testresults/testrun"
)

// Store is the flaky list of every repository and environment.
type Store interface {
	// Record adds what run r (of repository repo in environment env)
	// shows: its runner-retried tests, and the tests it made flip (pass
	// and fail on its tree across the recorded runs, for the first time).
	// It returns the tests it saw flaky. A run testrun.CheckRecordable
	// refuses (a gate run, an untrusted grader) adds nothing and the
	// error wraps testrun.ErrNotRecordable. A run recorded before adds
	// nothing again; one recorded before under the same id with another
	// kind or tree is refused with an error wrapping ErrRunConflict.
	Record(ctx context.Context, repo, env string, r *testrun.Run) (Recorded, error)
	// List returns the live entries (not expired at the store's clock),
	// sorted by repository, environment and test id; empty fields of f
	// match everything.
	List(ctx context.Context, f Filter) ([]testrun.FlakyEntry, error)
	// Lookup returns the entries of repo and env for the given test ids,
	// keyed by test id, expired ones included (testrun.FlakyEntry.Excused
	// judges them against a job's start).
	Lookup(ctx context.Context, repo, env string, testIDs []string) (map[string]testrun.FlakyEntry, error)
	// Prune removes entries and tree history last seen more than
	// testrun.FlakyTTL before the store's clock, and says how many entries
	// went.
	Prune(ctx context.Context) (int64, error)
	// Summary lists up to limit repositories with the most live flaky
	// tests (ties by name), each with its worst test (testrun.Worse).
	Summary(ctx context.Context, limit int) ([]testrun.FlakyRepoSummary, error)
	// RunStore holds whole runs for the query API (see runs.go).
	RunStore
	// Close releases the database.
	Close() error
}

// Recorded is what one Record call saw.
type Recorded struct {
	// Flaky maps each test seen flaky to how.
	Flaky map[string][]testrun.FlakyHow
	// Observed is how many test outcomes were added to the tree history.
	Observed int
}

// Filter selects entries.
type Filter struct {
	Repository, Environment string
}

// Option configures Open.
type Option interface {
	apply(config) config
}

type config struct {
	now func() time.Time
	// schema is the version migrations stop at (tests only).
	schema int
	// maxConns bounds the connections the store opens (0: the default of
	// its kind, PostgresMaxConns or SQLiteMaxConns).
	maxConns int
	// watch: listen for writes of runs (WithWatch).
	watch bool
}

type optionFunc func(config) config

func (f optionFunc) apply(c config) config { return f(c) }

// WithClock sets the clock that stamps sightings and decides expiry (the
// default is time.Now).
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c config) config {
		c.now = now
		return c
	})
}

// WithMaxConns bounds the connections the store opens to its database
// (n <= 0 keeps the default: PostgresMaxConns or SQLiteMaxConns). A
// short-lived command that records one run needs one or two; a server
// answering many readers needs more, within what PostgreSQL's
// max_connections leaves for every other client.
func WithMaxConns(n int) Option {
	return optionFunc(func(c config) config {
		c.maxConns = n
		return c
	})
}

// maxConnsOr returns the bound the options set, or def.
func (c config) maxConnsOr(def int) int {
	if c.maxConns > 0 {
		return c.maxConns
	}
	return def
}

// DefaultPath is the default SQLite file under home: ~/.hangar/store.db.
func DefaultPath(home string) string {
	return filepath.Join(home, ".hangar", "store.db")
}

// EnvStore is the environment variable that names the store when a
// command is given none.
const EnvStore = "HANGAR_STORE"

// ErrNoLocation is Location's answer when nothing names the store and
// there is no home folder for the default file.
var ErrNoLocation = errors.New("no store: set --store, HANGAR_STORE or HOME")

// Location is the store a command works on: named (its --store flag),
// else $HANGAR_STORE, else DefaultPath under $HOME, as getenv reads them.
// An optional store has no default file: without a name and
// $HANGAR_STORE it is "", no store. Without a name, $HANGAR_STORE and
// $HOME a store that is not optional is ErrNoLocation.
func Location(named string, optional bool, getenv func(string) string) (string, error) {
	if named != "" {
		return named, nil
	}
	if v := getenv(EnvStore); v != "" || optional {
		return v, nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", ErrNoLocation
	}
	return DefaultPath(home), nil
}

// IsPostgres reports whether location is a PostgreSQL URL.
func IsPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// Open opens the store at location, which is one of:
//   - a PostgreSQL URL, postgres://... or postgresql://... (pgx reads
//     it, query parameters included);
//   - a SQLite file path, optionally prefixed with "sqlite:", taken as
//     written: never URL-decoded (p%41q.db is the file p%41q.db), and
//     created with its folder when missing.
//
// A location that a reader could take for something else is refused
// with an error wrapping ErrUnsupported, rather than guessed at: another
// URL (mysql://...), a SQLite URI (file:...), a path holding '?', '#' or
// a NUL byte, SQLite's :memory:, a PostgreSQL key=value connection
// string (host=... dbname=...: give a postgres:// URL), and a relative
// path that starts like a URL scheme (name:...; write ./name:... for a
// file of that name). No error shows a credential of location (see
// redactLocation). Open applies the migrations the database lacks.
func Open(ctx context.Context, location string, opts ...Option) (Store, error) {
	cfg := config{now: time.Now, schema: SchemaVersion}
	for _, o := range opts {
		cfg = o.apply(cfg)
	}
	var st Store
	var err error
	if IsPostgres(location) {
		st, err = openPostgres(ctx, location, cfg)
	} else {
		var path string
		if path, err = sqlitePath(location); err == nil {
			st, err = openSQLite(ctx, path, cfg)
		}
	}
	return st, newRedactor(location).error(err)
}

// urlScheme matches the start of a URL or URI: a scheme of two or more
// characters and a colon (one letter and a colon is a Windows drive).
var urlScheme = lazyre.New(`^[A-Za-z][A-Za-z0-9+.-]+:`)

// pgKeyword matches a setting of a PostgreSQL key=value connection
// string.
var pgKeyword = lazyre.New(`(?i)(^|\s)(host|hostaddr|port|dbname|user|password|passfile|sslmode|sslpassword|service|connect_timeout|application_name|options|target_session_attrs)\s*=`)

// sqlitePath returns the SQLite file path that location names (see Open),
// or why it names none.
func sqlitePath(location string) (string, error) {
	refuse := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %q: %s", ErrUnsupported, redactLocation(location), why)
	}
	path := strings.TrimPrefix(location, "sqlite:")
	switch {
	case location == "" || path == "":
		return "", fmt.Errorf("%w: empty location", ErrUnsupported)
	case strings.Contains(location, "://"):
		return refuse("want a file path or a postgres:// URL")
	case pgKeyword.Regexp().MatchString(location):
		return refuse("a PostgreSQL key=value connection string: give a postgres:// URL")
	case len(path) >= 5 && strings.EqualFold(path[:5], "file:"):
		return refuse("a SQLite URI, not a path: give the file's path")
	case strings.ContainsAny(path, "?#\x00"):
		return refuse("a SQLite path must not hold ?, # or a NUL byte")
	case path == ":memory:":
		return refuse("an in-memory database keeps nothing: give a file path")
	case urlScheme.Regexp().MatchString(path):
		return refuse("it starts like a URL scheme: write ./ before a file name of that form")
	}
	return path, nil
}
