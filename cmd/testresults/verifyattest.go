package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/attest"
	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "verify-attestation", synopsis: "verify a signed test-result attestation: signature, commit, reports, PASSED and counted", run: runVerifyAttestation})
}

type verifyAttestationOptions struct {
	key, commit, tree          string
	anyTree, allowWarned, json bool
}

func newVerifyAttestationFlags() (*pflag.FlagSet, *verifyAttestationOptions) {
	fs := newFlagSet("verify-attestation")
	o := &verifyAttestationOptions{}
	fs.StringVar(&o.key, "key", "", "the public key the attestation must be signed by (PEM, PKIX: ECDSA P-256 or Ed25519)")
	fs.StringVar(&o.commit, "commit", "", "the commit the tests must have passed on, 40 hex digits (default: HEAD of the current folder's git work tree)")
	fs.StringVar(&o.tree, "tree", "", "the working-tree digest the tests must have run on (default: the commit's own, read from the current folder's repository)")
	fs.BoolVar(&o.anyTree, "any-tree", false, "accept a run on the commit with uncommitted changes, untracked files or files not checked out")
	fs.BoolVar(&o.allowWarned, "allow-warned", false, "accept WARNED (passed with flaky tests) as well as PASSED")
	fs.BoolVar(&o.json, "json", false, "print the verification as JSON on stdout (verified, commit, result, reports_rehashed, problems)")
	return fs, o
}

func runVerifyAttestation(ctx context.Context, args []string, env Env) error {
	fs, o := newVerifyAttestationFlags()
	cf := flagsFor("verify-attestation", clidoc.Help("verify-attestation"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return cf.usageErr("want ATTESTATION.json and optionally the REPORT files")
	}
	if o.key == "" {
		return cf.usageErr("--key is required: the public key the attestation must be signed by")
	}
	if o.commit != "" && !attest.IsCommitID(o.commit) {
		return cf.usageErr("--commit %q: want a full commit id (40 hex digits)", o.commit)
	}
	if o.tree != "" && !attest.IsTreeDigest(o.tree) {
		return cf.usageErr("--tree %q: want a working-tree digest (64 hex digits)", o.tree)
	}
	want := attest.Want{Commit: o.commit, Tree: o.tree, AnyTree: o.anyTree, AllowWarned: o.allowWarned}
	if fs.NArg() > 1 {
		want.Reports = fs.Args()[1:]
	}
	var err error
	if want.Commit == "" {
		if want.Commit, err = attest.HeadCommit(ctx, ""); err != nil {
			return cf.usageErr("no --commit: %v", err)
		}
	}
	key, err := loadKey(o.key, attest.LoadVerifier)
	if err != nil {
		return err
	}
	envelope, dir, err := attest.ReadEnvelopeFile(fs.Arg(0), env.Stdin)
	if err != nil {
		return rejected(err)
	}
	want.Dir = dir
	if want.Tree == "" && !want.AnyTree {
		if want.Tree, err = check.CommitTreeDigest(ctx, "", want.Commit); err != nil {
			return cf.usageErr("no --tree: the commit's own tree could not be read here (%v); give --tree DIGEST or --any-tree", err)
		}
	}
	v := attest.Verify(ctx, envelope, key, want)
	if o.json {
		err = writeJSON(env.Stdout, v.Report(want.Commit))
	} else {
		err = textout.Verification(term.NewWriter(env.Stdout), want.Commit, v.Predicate.GetResult(), v.Reports, v.Problems)
	}
	if err != nil {
		return err
	}
	return failedIf(!v.OK())
}
