// Package semconv spells every event name, attribute key and enum value that
// testresults writes into traces, once. Upstream keys (test.*, vcs.*) are
// re-exported from the pinned OpenTelemetry semantic conventions package; the
// hangar.* keys of the hangar.trace/v1 taxonomy are defined here and are
// experimental.
package semconv
