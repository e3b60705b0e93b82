package attest

import (
	"context"
	"encoding/json"
	"fmt"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// Sign signs the statement's JSON form (MarshalStatement) as a DSSE
// envelope of PayloadType with signer, and returns the envelope's JSON
// form, one line. An envelope over MaxEnvelopeBytes is refused, so that
// nothing is written that Verify would refuse to read.
func Sign(ctx context.Context, st *intoto.Statement, signer dsse.Signer) ([]byte, error) {
	payload, err := MarshalStatement(st)
	if err != nil {
		return nil, err
	}
	es, err := dsse.NewEnvelopeSigner(signer)
	if err != nil {
		return nil, fmt.Errorf("attest: sign: %w", err)
	}
	env, err := es.SignPayload(ctx, PayloadType, payload)
	if err != nil {
		return nil, fmt.Errorf("attest: sign: %w", err)
	}
	b, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("attest: sign: %w", err)
	}
	if len(b)+1 > MaxEnvelopeBytes {
		return nil, fmt.Errorf("attest: the envelope would be %d bytes, more than %d MiB", len(b)+1, MaxEnvelopeBytes>>20)
	}
	return append(b, '\n'), nil
}
