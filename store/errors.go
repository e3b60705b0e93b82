package store

import "errors"

// ErrUnsupported is returned (wrapped) by Open for a location that names
// neither a SQLite file nor a PostgreSQL URL.
var ErrUnsupported = errors.New("store: unsupported location")
