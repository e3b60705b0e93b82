// Package store keeps the flaky list and the recorded runs behind one
// interface, Store, in a real database: an embedded SQLite file (pure Go,
// modernc.org/sqlite; the default, ~/.hangar/store.db) or a PostgreSQL
// server shared by many CI machines (github.com/jackc/pgx/v5). Both run
// the same versioned migrations (table schema_migrations) and write each
// run in one transaction, so concurrent writers, threads or processes,
// lose nothing.
//
// A location is a postgres:// (or postgresql://) URL, or a SQLite file
// path, optionally behind "sqlite:". A path is taken as written: it is
// never URL-decoded (p%41q.db is the file p%41q.db), and what a driver
// would read as more than a path is refused rather than guessed at: a
// file: URI, '?', '#' or a NUL byte in the path, :memory:, a key=value
// connection string, a relative path that starts like a URL scheme
// (write ./name:x.db for such a file). No error shows a credential of the
// location: the password of a URL, its password, sslpassword or passfile
// parameters, or the password of a key=value string are masked.
//
// A run id names one run. Recorded again for another job or session, the
// run is tagged with it too, and each lists it; recorded with other
// content under the same id, it is refused (ErrRunConflict) and the
// stored run stays as it was.
//
// Each job and session has a version (JobVersion) that every write
// changing what its runs answer sets anew, in the writer's transaction;
// readers keep what they rendered for as long as it stays. A run's
// failing cases are kept apart when it is recorded; RunPage reads a page
// of its cases, and RunOutcomes the cases a comparison looks up, out of
// the stored map's bytes, and neither decodes any other case.
//
// The store decides nothing: what counts as flaky, when an entry expires
// and what it excuses are the rules of package testrun, which the store
// calls. A same-tree sighting is a new flip: a run whose pass and fail on
// a tree were both there before adds none.
package store
