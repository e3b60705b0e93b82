// Package testresultsreceiver is the Collector receiver of type
// testresults. It reads test reports where CI leaves them, in a watched
// folder or uploaded over HTTP, builds each run with packages report and
// testrun, and emits it through package translate: the same spans, events,
// attributes and ids that testresults export writes for the same reports.
// The folder, or the authenticated uploader, is the sender: the kind, grade,
// job and resource of a run come from the receiver's configuration, never
// from the files. Checkpoints in a storage extension, keyed by the SHA-256
// of whole files, deliver each run once across restarts.
package testresultsreceiver

// The component type, stability and metrics are declared in metadata.yaml;
// internal/metadata, documentation.md and the generated tests come from it.
//
//go:generate go tool mdatagen metadata.yaml
