package store

import "errors"

// ErrUnsupported is returned (wrapped) by Open for a location that names
// neither a SQLite file nor a PostgreSQL URL, or that is ambiguous.
var ErrUnsupported = errors.New("store: unsupported location")

// ErrRunConflict is returned (wrapped) by RecordRun and Record for a run
// whose id is already stored with different content (another kind,
// tree, counts, report digests, ...): one id names one run, and the
// stored one is kept as it was. The message names the first difference.
var ErrRunConflict = errors.New("store: run ID is already stored with different content")
