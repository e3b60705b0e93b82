// Package attest turns a run into signed evidence that another system can
// check without trusting the CI job that made it: an in-toto Statement v1
// with the test-result predicate
// (https://in-toto.io/attestation/test-result/v0.1) about the commit the run
// checked, signed as a DSSE envelope, and the fail-closed verification of
// such an envelope (signature, predicate type, subject, the reports'
// digests, the result and the run's counted flag).
//
// The predicate's result follows one rule (Decide): PASSED only for a run
// that is counted, has no failed or errored test and did not end in
// failure, a timeout or a signal; WARNED for such a run with flaky tests;
// FAILED for every other run. A run that is not counted is never PASSED.
// The run's own facts (counts, trusted, counted, complete, the incomplete
// reasons) travel in the predicate's extension field ExtensionKey, which
// other verifiers may ignore: the result alone already says what they say.
//
// Keys are PEM files in their standard forms: ECDSA P-256 or Ed25519, the
// private key as PKCS #8 ("PRIVATE KEY"), the public key as PKIX ("PUBLIC
// KEY"), as openssl genpkey and openssl pkey -pubout write them.
package attest
