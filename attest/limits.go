package attest

// Limits on what the package reads. They bound untrusted input: an
// attestation comes from elsewhere, and the reports it names are files on
// the verifier's disk.
const (
	// MaxEnvelopeBytes is the largest attestation (DSSE envelope) read or
	// written, 64 MiB: a run's JSON form is at most 16 MiB and the
	// statement repeats its test ids, base64 adds a third.
	MaxEnvelopeBytes = 64 << 20
	// MaxSignatures is the most signatures an envelope may carry: each is
	// checked over the whole payload, so their number bounds the work.
	MaxSignatures = 8
	// MaxKeyBytes is the largest key file read (64 KiB).
	MaxKeyBytes = 64 << 10
	// MaxReportBytes is the largest report re-hashed (32 MiB, a run's
	// total: no report read whole into a run is larger).
	MaxReportBytes = 32 << 20
	// MaxConfiguration is the most configuration entries a statement may
	// name (a run reads at most 64 reports, plus its command).
	MaxConfiguration = 256
)
