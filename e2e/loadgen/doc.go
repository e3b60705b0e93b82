// Package loadgen sends a fixed mix of spans to an OTLP/gRPC receiver on a
// loopback address, at a set rate for a set time, and counts which requests
// the receiver accepted. The mix holds foreign spans and spans of the
// hangar.trace/v1 taxonomy with valid, forged and malformed test.run events
// (see Variants). Span number seq is always of the same variant and carries
// ids derived from seq (see IDs and SeqOf), so a reader of the collector's
// output can tell, from each span alone, what was sent.
//
// Every run is bounded: at most MaxRate spans per second for at most
// MaxDuration, and only to loopback addresses.
package loadgen
