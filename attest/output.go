package attest

import (
	"os"
	"path/filepath"
)

// ReportsBase is the folder the reports of an attestation written to the
// file output ("-": stdout, so the current folder) are named relative to
// (WithReportsRelativeTo), so that a verifier finds them beside it.
func ReportsBase(output string) (string, error) {
	if output == "-" {
		return os.Getwd()
	}
	return filepath.Dir(output), nil
}
