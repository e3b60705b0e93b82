package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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

// DefaultPath is the default SQLite file under home: ~/.hangar/store.db.
func DefaultPath(home string) string {
	return filepath.Join(home, ".hangar", "store.db")
}

// IsPostgres reports whether location is a PostgreSQL URL.
func IsPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// Open opens the store at location: a PostgreSQL URL (postgres://... or
// postgresql://...), or a SQLite file path (optionally prefixed with
// "sqlite:"), created with its folder when missing. It applies the
// migrations the database lacks.
func Open(ctx context.Context, location string, opts ...Option) (Store, error) {
	cfg := config{now: time.Now, schema: SchemaVersion}
	for _, o := range opts {
		cfg = o.apply(cfg)
	}
	switch {
	case location == "":
		return nil, fmt.Errorf("%w: empty location", ErrUnsupported)
	case IsPostgres(location):
		return openPostgres(ctx, location, cfg)
	case strings.Contains(location, "://"):
		return nil, fmt.Errorf("%w: %q (want a file path or a postgres:// URL)", ErrUnsupported, redactURL(location))
	}
	path := strings.TrimPrefix(location, "sqlite:")
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("%w: a SQLite path must not hold ? or #: %q", ErrUnsupported, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return openSQLite(ctx, path, cfg)
}

// redactURL drops the user information of a URL for messages.
func redactURL(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			return s[:i+3] + "…@" + rest[at+1:]
		}
	}
	return s
}
