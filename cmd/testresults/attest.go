package main

import (
	"cmp"
	"context"
	"os"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/attest"
	"github.com/hangar-dev/testresults/internal/clidoc"
)

func init() {
	register(command{name: "attest", synopsis: "a signed in-toto test-result attestation of a run (DSSE)", run: runAttest})
}

type attestOptions struct {
	key, output, url string
	predicateOnly    bool
}

func newAttestFlags() (*pflag.FlagSet, *attestOptions) {
	fs := newFlagSet("attest")
	o := &attestOptions{}
	fs.StringVar(&o.key, "key", "", "the private key that signs (PEM, PKCS #8: ECDSA P-256 or Ed25519)")
	fs.StringVarP(&o.output, "output", "o", "-", "the file to write (- is stdout)")
	fs.StringVar(&o.url, "url", "", "the CI run's URL (default: from $GITHUB_SERVER_URL, $GITHUB_REPOSITORY, $GITHUB_RUN_ID, or $CI_JOB_URL)")
	fs.BoolVar(&o.predicateOnly, "predicate-only", false, "write the bare predicate, unsigned (for actions/attest)")
	return fs, o
}

func runAttest(ctx context.Context, args []string, env Env) error {
	fs, o := newAttestFlags()
	cf := flagsFor("attest", clidoc.Help("attest"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cf.usageErr("want one RUN.json, got %d arguments", fs.NArg())
	}
	if o.key == "" && !o.predicateOnly {
		return cf.usageErr("--key is required (or --predicate-only)")
	}
	if o.key != "" && o.predicateOnly {
		return cf.usageErr("--predicate-only writes an unsigned predicate: no --key")
	}
	run, err := readRunFile(fs.Arg(0), env.Stdin)
	if err != nil {
		return err
	}
	base, err := attest.ReportsBase(o.output)
	if err != nil {
		return rejected(err)
	}
	st, err := attest.NewStatement(run, attest.WithURL(cmp.Or(o.url, attest.CIRunURL(env.Getenv))), attest.WithReportsRelativeTo(base))
	if err != nil {
		return rejectedf("%s: %w", fs.Arg(0), err)
	}
	var out []byte
	if o.predicateOnly {
		out, err = attest.MarshalPredicate(st)
	} else {
		var signer dsse.SignerVerifier
		if signer, err = loadKey(o.key, attest.LoadSigner); err == nil {
			out, err = attest.Sign(ctx, st, signer)
		}
	}
	if err != nil {
		return err
	}
	if o.output == "-" {
		_, err = env.Stdout.Write(out)
		return err
	}
	return os.WriteFile(o.output, out, 0o644)
}

// loadKey reads the key file of --key at path and loads its key.
func loadKey[K any](path string, load func([]byte) (K, error)) (K, error) {
	pemBytes, err := attest.ReadKeyFile(path)
	if err != nil {
		var none K
		return none, rejectedf("--key: %w", err)
	}
	key, err := load(pemBytes)
	if err != nil {
		return key, rejectedf("--key %s: %w", path, err)
	}
	return key, nil
}
