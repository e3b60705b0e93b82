package attest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// VerificationReport is a verification's JSON form: whether it verified,
// the commit asked for, the predicate's result (null when there is none),
// how many reports were re-hashed and every broken rule ([] when none).
type VerificationReport struct {
	Verified bool     `json:"verified"`
	Commit   string   `json:"commit"`
	Result   *string  `json:"result"`
	Reports  int      `json:"reports_rehashed"`
	Problems []string `json:"problems"`
}

// Report is v's JSON form for the commit that was asked for.
func (v *Verification) Report(commit string) VerificationReport {
	r := VerificationReport{Verified: v.OK(), Commit: commit, Reports: v.Reports, Problems: v.Problems}
	if r.Problems == nil {
		r.Problems = []string{}
	}
	if res := v.Predicate.GetResult(); res != "" {
		r.Result = &res
	}
	return r
}

// ReadEnvelopeFile reads the attestation at path ("-": stdin, ReadEnvelope)
// and returns it with the folder it lies in (the current folder for
// stdin), where the reports it names are found. An error reading the
// envelope names the path.
func ReadEnvelopeFile(path string, stdin io.Reader) (*dsse.Envelope, string, error) {
	r, dir := stdin, "."
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", err
		}
		defer func() { _ = f.Close() }() // read only: a failed read is reported
		r, dir = f, filepath.Dir(path)
	}
	e, err := ReadEnvelope(r)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return e, dir, nil
}
