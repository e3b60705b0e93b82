package attest

import "errors"

// ErrKey is wrapped by every refusal of a key file: not PEM, not one of
// the key forms and types the package signs with, a private key where a
// public one is needed or the other way round, or a file over MaxKeyBytes.
var ErrKey = errors.New("attest: key")

// ErrEnvelope is wrapped by every refusal of an attestation file before
// its rules are checked: over MaxEnvelopeBytes, not JSON, not a DSSE
// envelope. Verify reports every later problem as a broken rule instead.
var ErrEnvelope = errors.New("attest: envelope")

// ErrRun is wrapped when a run cannot be attested: it names no commit, its
// commit is not a full git commit id, or it is not a valid run
// (testrun.Run.Validate).
var ErrRun = errors.New("attest: run")
