// Package testresultsprocessor is the Collector traces and logs processor
// of type testresults. On the spans that carry runs (job.verify, job.provision), it
// recomputes hangar.test.run.trusted and hangar.test.run.counted of every
// test.run event with the rules of package testrun, overwriting what the
// sender wrote, and forces both to false for senders that match no trusted
// source and for runs whose counts are not valid. Only it may say a run is
// trusted: every other copy of the flags, under any spelling that differs
// only in case or surrounding white space, is removed, from resources,
// scopes, spans, events and links alike. On logs it does the same for
// test.run log records (log-based events) and strips the flags from every
// other record. Behind a forwarding tier (tier: gateway) it keeps the
// verdicts of the edges named in trusted_edges and judges no sender itself.
// It fails closed, drops nothing, and passes every other attribute, event
// and span untouched.
package testresultsprocessor

// The component type, stability and metrics are declared in metadata.yaml;
// internal/metadata, documentation.md and the generated tests come from it.
//
//go:generate go tool mdatagen metadata.yaml
