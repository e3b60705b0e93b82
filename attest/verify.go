package attest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	testresult "github.com/in-toto/attestation/go/predicates/test_result/v0"
	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hangar-dev/testresults/internal/regular"
	"github.com/hangar-dev/testresults/testrun"
)

// ReadEnvelope reads a DSSE envelope's JSON form from r, at most
// MaxEnvelopeBytes: one object with payloadType, payload and signatures
// (each keyid and sig), no other field and nothing after it. Every refusal
// wraps ErrEnvelope.
func ReadEnvelope(r io.Reader) (*dsse.Envelope, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxEnvelopeBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEnvelope, err)
	}
	if len(data) > MaxEnvelopeBytes {
		return nil, fmt.Errorf("%w: larger than %d MiB", ErrEnvelope, MaxEnvelopeBytes>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var env dsse.Envelope
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("%w: not a DSSE envelope's JSON form: %w", ErrEnvelope, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the envelope's object", ErrEnvelope)
	}
	if env.PayloadType == "" || env.Payload == "" {
		return nil, fmt.Errorf("%w: payloadType or payload is missing or empty", ErrEnvelope)
	}
	return &env, nil
}

// Want is what Verify checks an attestation against.
type Want struct {
	// Commit is the commit the tests must have passed on (40 hex digits).
	Commit string
	// Tree is the working-tree digest the tests must have run on: the
	// commit's own (check.CommitTreeDigest), so that a run on the commit
	// with changes not in it is not taken for a run on the commit. It is
	// required unless AnyTree is set.
	Tree string
	// AnyTree accepts a run on any tree of the commit: uncommitted
	// changes and untracked files included.
	AnyTree bool
	// Reports are the report files to re-hash. When nil, each report the
	// configuration names is found relative to Dir (a name that is an
	// absolute path is used as it is).
	Reports []string
	// Dir is the folder the attestation lies in.
	Dir string
	// AllowWarned accepts WARNED (passed, with flaky tests) as well as
	// PASSED.
	AllowWarned bool
}

// Verification is what Verify found: the statement, predicate and
// extension it read (nil when they could not be read), how many reports it
// re-hashed and found equal, and one line per rule broken.
type Verification struct {
	Statement *intoto.Statement
	Predicate *testresult.TestResult
	Extension *Extension
	Reports   int
	Problems  []string
}

// OK reports whether no rule was broken.
func (v *Verification) OK() bool { return len(v.Problems) == 0 }

func (v *Verification) problem(format string, a ...any) {
	v.Problems = append(v.Problems, fmt.Sprintf(format, a...))
}

// Verify checks an attestation, failing closed: the envelope carries at
// most MaxSignatures signatures and one of them is the key's over the
// payload (DSSE); the payload type is in-toto's; the payload is an in-toto
// Statement v1 that validates, with the test-result predicate type; its one
// subject is want.Commit (gitCommit), and its working-tree digest is
// want.Tree unless want.AnyTree; the predicate parses, validates and
// its result is PASSED (or WARNED with want.AllowWarned), and a result
// other than FAILED lists no failed tests; the extension is
// there, says the run is counted, and gives by Decide the result the
// predicate states; and every report the configuration names is re-hashed
// (see Want.Reports) and has the sha256 it names. Every rule broken is one
// line of Problems; the reports are re-hashed only under a valid signature.
func Verify(ctx context.Context, env *dsse.Envelope, key dsse.Verifier, want Want) *Verification {
	v := &Verification{}
	if env == nil || key == nil {
		v.problem("no envelope or no key to verify it with")
		return v
	}
	defer v.failClosed()
	signed := v.checkSignature(ctx, env, key)
	if env.PayloadType != PayloadType {
		v.problem("payload type is %q, not %q", brief(env.PayloadType), PayloadType)
	}
	st := v.readStatement(env)
	if st == nil {
		return v
	}
	v.checkSubject(st, want.Commit)
	v.checkTree(st, want)
	tr, ext := v.readPredicate(st)
	if tr == nil {
		return v
	}
	reports := v.reportEntries(tr)
	v.checkResult(tr, ext, len(reports), want.AllowWarned)
	switch {
	case len(reports) == 0 && len(want.Reports) == 0:
	case !signed:
		v.problem("reports not re-hashed: the statement is not signed by the key given")
	default:
		v.checkReports(reports, want)
	}
	return v
}

// failClosed makes sure a verification that could not read the predicate
// and its extension is never OK, whatever path it took.
func (v *Verification) failClosed() {
	if v.OK() && (v.Statement == nil || v.Predicate == nil || v.Extension == nil) {
		v.problem("the statement, its test result or its extension could not be read")
	}
}

func (v *Verification) checkSignature(ctx context.Context, env *dsse.Envelope, key dsse.Verifier) bool {
	switch n := len(env.Signatures); {
	case n == 0:
		v.problem("signature: the envelope is not signed")
		return false
	case n > MaxSignatures:
		v.problem("signature: the envelope carries %d signatures, more than %d", n, MaxSignatures)
		return false
	}
	ev, err := dsse.NewEnvelopeVerifier(key)
	if err == nil {
		_, err = ev.Verify(ctx, env)
	}
	if err != nil {
		id, _ := key.KeyID()
		var by []string
		for _, s := range env.Signatures {
			by = append(by, brief(orNull(s.KeyID)))
		}
		v.problem("signature: not signed by the key given (key id %s; the envelope is signed by key id %s)", id, brief(strings.Join(by, ", ")))
		return false
	}
	return true
}

// statementRead parses the payload; in-toto's parsing rules ignore
// unknown fields.
var statementRead = protojson.UnmarshalOptions{DiscardUnknown: true}

func (v *Verification) readStatement(env *dsse.Envelope) *intoto.Statement {
	payload, err := env.DecodeB64Payload()
	if err != nil {
		v.problem("payload: %s", brief(err.Error()))
		return nil
	}
	st := &intoto.Statement{}
	if err := statementRead.Unmarshal(payload, st); err != nil {
		v.problem("payload: not an in-toto Statement: %s", brief(err.Error()))
		return nil
	}
	v.Statement = st
	if st.GetType() != intoto.StatementTypeUri {
		v.problem("statement: _type is %q, not %q", brief(st.GetType()), intoto.StatementTypeUri)
	}
	if err := st.Validate(); err != nil {
		v.problem("statement: not valid: %s", brief(err.Error()))
	}
	if st.GetPredicateType() != PredicateType {
		v.problem("predicate type is %q, not %q", brief(st.GetPredicateType()), PredicateType)
	}
	return st
}

func (v *Verification) checkSubject(st *intoto.Statement, commit string) {
	want := lowerHex(commit)
	if !IsCommitID(want) {
		v.problem("subject: the commit asked for, %q, is not a full commit id (40 hex digits)", commit)
		return
	}
	subjects := st.GetSubject()
	if len(subjects) != 1 {
		v.problem("subject: the statement has %d subjects, not one commit", len(subjects))
		return
	}
	got, ok := subjects[0].GetDigest()["gitCommit"]
	switch {
	case !ok:
		v.problem("subject: it names no gitCommit")
	case lowerHex(got) != want:
		v.problem("subject: the tests ran on commit %s, not on %s", brief(got), want)
	}
}

// checkTree checks the subject's working-tree digest against want.Tree.
func (v *Verification) checkTree(st *intoto.Statement, want Want) {
	if want.AnyTree {
		return
	}
	if want.Tree == "" {
		v.problem("tree: no working-tree digest to check the run's against (the commit's own, or any tree allowed)")
		return
	}
	if !IsTreeDigest(want.Tree) {
		v.problem("tree: the digest asked for, %q, is not 64 hex digits", brief(want.Tree))
		return
	}
	subjects := st.GetSubject()
	if len(subjects) != 1 {
		return // said by checkSubject
	}
	got, ok := subjects[0].GetDigest()[TreeDigestKey]
	switch {
	case !ok:
		v.problem("tree: the subject names no %s: the tests may have run with changes not in the commit", TreeDigestKey)
	case lowerHex(got) != lowerHex(want.Tree):
		v.problem("tree: the tests ran on working tree %s, not on the commit's own %s: uncommitted changes, untracked files or files not checked out", brief(got), brief(want.Tree))
	}
}

func (v *Verification) readPredicate(st *intoto.Statement) (*testresult.TestResult, *Extension) {
	pred := st.GetPredicate()
	if pred == nil {
		return nil, nil
	}
	b, err := protojson.Marshal(pred)
	if err != nil {
		v.problem("predicate: %v", err)
		return nil, nil
	}
	tr := &testresult.TestResult{}
	if err := statementRead.Unmarshal(b, tr); err != nil {
		v.problem("predicate: not a test result: %s", brief(err.Error()))
		return nil, nil
	}
	v.Predicate = tr
	if !Result(tr.GetResult()).Valid() {
		v.problem("predicate: result %q is not PASSED, WARNED or FAILED", brief(tr.GetResult()))
	}
	if u := tr.GetUrl(); u != "" && !IsResourceURI(u) {
		v.problem("predicate: url %q is not an absolute URI (a ResourceURI)", brief(u))
	}
	switch n := len(tr.GetConfiguration()); {
	case n == 0:
		v.problem("predicate: configuration is empty (it is required)")
	case n > MaxConfiguration:
		v.problem("predicate: configuration has %d entries, more than %d", n, MaxConfiguration)
		return tr, nil
	}
	for i, d := range tr.GetConfiguration() {
		if err := d.Validate(); err != nil {
			v.problem("predicate: configuration entry %d (%q): %s", i, brief(d.GetName()), brief(err.Error()))
		}
	}
	field, ok := pred.GetFields()[ExtensionKey]
	if !ok {
		v.problem("predicate: no %s extension: whether the run is counted is unknown", ExtensionKey)
		return tr, nil
	}
	// encoding/json matches keys regardless of case: a key that is not
	// one of the extension's, spelled exactly, is refused first.
	for k := range field.GetStructValue().GetFields() {
		if !slices.Contains(extensionKeys, k) {
			v.problem("predicate: the %s extension has an unknown key %q", ExtensionKey, brief(k))
			return tr, nil
		}
	}
	eb, err := protojson.Marshal(field)
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(eb))
		dec.DisallowUnknownFields()
		ext := &Extension{}
		if err = dec.Decode(ext); err == nil {
			v.Extension = ext
			return tr, ext
		}
	}
	v.problem("predicate: the %s extension is not readable: %s", ExtensionKey, brief(fmt.Sprint(err)))
	return tr, nil
}

func (v *Verification) checkResult(tr *testresult.TestResult, ext *Extension, reports int, allowWarned bool) {
	result := Result(tr.GetResult())
	if ext != nil {
		if ext.Counts != nil && !ext.Counts.Valid() {
			v.problem("the run's counts in the extension are not valid counts: %s", countsText(ext.Counts))
		}
		if !ext.Counted {
			v.problem("the run is not counted (trusted %t, complete %t, counts %s)", ext.Trusted, ext.Complete, countsText(ext.Counts))
		}
		// The flags are never believed: they are what the rules give from
		// the extension's own facts, or the statement contradicts itself.
		trusted, counted := ext.trustedByRule(), ext.countedByRule()
		if ext.Trusted != trusted {
			v.problem("the extension says trusted %t, but kind %s%s gives %t",
				ext.Trusted, orNull(deref(ext.Kind)), gradeNote(testrun.Kind(deref(ext.Kind)), deref(ext.Grade)), trusted)
		}
		if ext.Counted != counted {
			v.problem("the extension says counted %t, but its facts give %t (trusted %t, complete %t with %d incomplete reasons, counts %s)",
				ext.Counted, counted, trusted, ext.Complete, len(ext.IncompleteReasons), countsText(ext.Counts))
		}
		if ext.Complete && len(ext.IncompleteReasons) > 0 {
			v.problem("the extension says complete, yet gives %d incomplete reasons", len(ext.IncompleteReasons))
		}
		if counted && reports == 0 {
			v.problem("the run is counted, yet the statement names no report it read")
		}
		if derived, _ := Decide(ext.Facts()); derived != result {
			v.problem("result %s contradicts the run's facts in the extension, which give %s", result, derived)
		}
		if st := v.Statement; st != nil && len(st.GetSubject()) == 1 && lowerHex(st.GetSubject()[0].GetDigest()["gitCommit"]) != ext.Commit {
			v.problem("the extension's commit %s differs from the subject's", brief(ext.Commit))
		}
	}
	if failed := tr.GetFailedTests(); len(failed) > 0 && result != ResultFailed {
		v.problem("result %s, yet the predicate lists %d failed tests (%s)", result, len(failed), listSome(failed))
	}
	switch {
	case result == ResultPassed, result == ResultWarned && allowWarned:
	default:
		why := ""
		if ext != nil && len(ext.ResultReasons) > 0 {
			why = ": " + brief(strings.Join(ext.ResultReasons, "; "))
		}
		v.problem("result is %s, not PASSED%s", result, why)
	}
}

// listSome is the first few of ids, comma-separated.
func listSome(ids []string) string {
	const some = 5
	if len(ids) <= some {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:some], ", ") + fmt.Sprintf(", and %d more", len(ids)-some)
}

func countsText(c *testrun.Counts) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// reportEntry is a report the configuration names.
type reportEntry struct {
	name, sha256 string
}

func (v *Verification) reportEntries(tr *testresult.TestResult) []reportEntry {
	var out []reportEntry
	for i, d := range tr.GetConfiguration() {
		role := d.GetAnnotations().GetFields()[RoleAnnotation].GetStringValue()
		switch role {
		case RoleCommand:
			continue
		case RoleReport:
		default:
			v.problem("configuration entry %d (%q): role %q is neither %s nor %s", i, brief(d.GetName()), brief(role), RoleReport, RoleCommand)
			continue
		}
		sum := d.GetDigest()["sha256"]
		if d.GetName() == "" || len(sum) != 64 {
			v.problem("configuration entry %d (%q): a report needs a name and a sha256", i, brief(d.GetName()))
			continue
		}
		out = append(out, reportEntry{name: d.GetName(), sha256: lowerHex(sum)})
	}
	return out
}

// checkReports re-hashes each report entry: the file given for it in
// want.Reports (see pairReports), or its name relative to want.Dir.
func (v *Verification) checkReports(entries []reportEntry, want Want) {
	files := make([]string, len(entries))
	if want.Reports != nil {
		var problems []string
		files, problems = pairReports(entries, want.Reports)
		v.Problems = append(v.Problems, problems...)
	} else {
		for i, e := range entries {
			p := filepath.FromSlash(e.name)
			if !filepath.IsAbs(p) {
				p = filepath.Join(want.Dir, p)
			}
			files[i] = p
		}
	}
	for i, e := range entries {
		if files[i] == "" {
			continue
		}
		got, err := hashFile(files[i])
		switch {
		case err != nil:
			v.problem("report %s: %v", e.name, err)
		case got != e.sha256:
			v.problem("report %s (%s): sha256 %s, the attestation says %s: the file changed", e.name, files[i], got, e.sha256)
		default:
			v.Reports++
		}
	}
}

// pairReports pairs each entry with the given file whose path ends with
// the most of the entry's name (its base name at least: "results/junit.xml"
// pairs with "/tmp/dl/results/junit.xml" before "/tmp/dl/junit.xml"). An
// entry no file pairs with, or two files pair with equally, a file that
// pairs with no entry or with several: each is a problem. files[i] is ""
// for an entry left unpaired.
func pairReports(entries []reportEntry, given []string) (files []string, problems []string) {
	files = make([]string, len(entries))
	users := make([][]int, len(given))
	for i, e := range entries {
		best, score, ties := -1, 0, 0
		for j, g := range given {
			switch s := trailingMatch(e.name, g); {
			case s > score:
				best, score, ties = j, s, 1
			case s == score && s > 0:
				ties++
			}
		}
		switch {
		case best < 0:
			problems = append(problems, fmt.Sprintf("report %s: not among the reports given", e.name))
		case ties > 1:
			problems = append(problems, fmt.Sprintf("report %s: %d of the reports given match its name equally: cannot tell which", e.name, ties))
		default:
			users[best] = append(users[best], i)
		}
	}
	for j, g := range given {
		switch len(users[j]) {
		case 0:
			problems = append(problems, fmt.Sprintf("report %s was given but the attestation names no such report", g))
		case 1:
			files[users[j][0]] = g
		default:
			var names []string
			for _, i := range users[j] {
				names = append(names, entries[i].name)
			}
			problems = append(problems, fmt.Sprintf("report %s stands for %d attested reports (%s): give each", g, len(names), strings.Join(names, ", ")))
		}
	}
	return files, problems
}

// trailingMatch counts the trailing path elements name and path share (0
// when their base names differ); ".", ".." and empty elements of name are
// passed over.
func trailingMatch(name, path string) int {
	var a []string
	for _, p := range strings.Split(name, "/") {
		if p != "" && p != "." && p != ".." {
			a = append(a, p)
		}
	}
	b := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// errNotRegular refuses a report that is not a regular file.
var errNotRegular = regular.ErrNotRegular

// hashFile is the hex SHA-256 of the regular file at path, at most
// MaxReportBytes.
func hashFile(path string) (string, error) {
	f, err := openReport(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if fi.Size() > MaxReportBytes {
		return "", fmt.Errorf("%s: larger than %d MiB", path, MaxReportBytes>>20)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxReportBytes+1))
	if err != nil {
		return "", err
	}
	if n > MaxReportBytes {
		return "", fmt.Errorf("%s: larger than %d MiB", path, MaxReportBytes>>20)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openReport opens the file at path for reading once it is a regular
// file. It opens first and then looks at what it opened (never a look at
// the path and then an open, between which the file could be swapped),
// and opens without waiting (a named pipe would wait for a writer).
func openReport(path string) (*os.File, error) {
	return regular.File(os.OpenFile(path, os.O_RDONLY|openNonBlock, 0))
}
