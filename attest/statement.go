package attest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	testresult "github.com/in-toto/attestation/go/predicates/test_result/v0"
	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hangar-dev/testresults/testrun"
)

// The statement's types and the names this package adds to it.
const (
	// PredicateType is the test-result predicate's type URI.
	PredicateType = "https://in-toto.io/attestation/test-result/v0.1"
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// ExtensionKey is the predicate's extension field holding the run's
	// own facts (Extension). Other verifiers may ignore it.
	ExtensionKey = "testresultsRun"
	// TreeDigestKey is the subject's digest of the working tree the check
	// ran on (the run's tree: SHA-256 over the sorted mode, git blob id and
	// path of every file, uncommitted changes included), beside its
	// gitCommit. It is not a git tree id, so it has a name of its own.
	TreeDigestKey = "testresultsTree"
	// RoleAnnotation is the annotation of each configuration entry that
	// says what it is: RoleReport (a report file, with its sha256) or
	// RoleCommand (the check's command line).
	RoleAnnotation = "role"
	RoleReport     = "report"
	RoleCommand    = "command"
)

// Extension is the run's own facts, in the predicate's ExtensionKey field.
// Unknown values are null, as in the run's JSON form.
type Extension struct {
	RunID             *string         `json:"run_id"`
	Kind              *string         `json:"kind"`
	Grade             *string         `json:"grade"`
	Command           *string         `json:"command"`
	Status            *string         `json:"status"`
	ExitCode          *int            `json:"exit_code"`
	Commit            string          `json:"commit"`
	Tree              *string         `json:"tree"`
	AgentRunID        *string         `json:"agent_run_id"`
	StartedAt         *string         `json:"started_at"`
	EndedAt           *string         `json:"ended_at"`
	Counts            *testrun.Counts `json:"counts"`
	Trusted           bool            `json:"trusted"`
	Counted           bool            `json:"counted"`
	Complete          bool            `json:"complete"`
	IncompleteReasons []string        `json:"incomplete_reasons"`
	// ResultReasons says why the result is not PASSED (empty when it is).
	ResultReasons []string `json:"result_reasons"`
}

// extensionKeys are the keys of Extension's JSON form, exactly as spelled.
var extensionKeys = []string{"run_id", "kind", "grade", "command", "status", "exit_code", "commit", "tree",
	"agent_run_id", "started_at", "ended_at", "counts", "trusted", "counted", "complete", "incomplete_reasons",
	"result_reasons"}

// Facts are the facts the extension states, for Decide.
//
// Counted is recomputed from the extension's kind, grade, counts and
// completeness by the run's own rule, never read from its counted flag:
// a statement whose flag says more than its facts decides nothing by it.
func (e *Extension) Facts() Facts {
	f := Facts{Counted: e.countedByRule(), Counts: e.Counts, ExitCode: e.ExitCode}
	if e.Status != nil {
		f.Status = testrun.Status(*e.Status)
	}
	return f
}

// trustedByRule and countedByRule are the run's trusted and counted flags
// as testrun's rules give them from the extension's facts; a run that says
// it is complete and gives reasons it is not is not complete.
func (e *Extension) trustedByRule() bool {
	return testrun.IsTrusted(testrun.Kind(deref(e.Kind)), deref(e.Grade))
}

func (e *Extension) countedByRule() bool {
	if e.Counts == nil || !e.Counts.Valid() {
		return false
	}
	complete := e.Complete && len(e.IncompleteReasons) == 0
	return testrun.IsCounted(testrun.Kind(deref(e.Kind)), deref(e.Grade), int64(e.Counts.Total), complete)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// NewStatement returns the in-toto Statement v1 about run: its subject is
// the run's commit (gitCommit, and TreeDigestKey when the run knows its
// tree), its predicate the test result (Decide) with configuration (every
// report read whole, with its sha256, and the command), url, the passed,
// warned (flaky) and failed test ids the run keeps, and the Extension. A
// run without a full commit id is refused (ErrRun): a statement must be
// about something, and so is a run that is not valid (testrun.Run.Validate:
// counts that do not add up, cases or failures with more failing tests than
// the counts, any other contradiction), whose counts could hide a failure.
func NewStatement(run *testrun.Run, opts ...Option) (*intoto.Statement, error) {
	var cfg config
	for _, o := range opts {
		o.apply(&cfg)
	}
	if !IsCommitID(run.Commit) {
		if run.Commit == "" {
			return nil, fmt.Errorf("%w: the run names no commit (parse --commit, or run inside a git work tree)", ErrRun)
		}
		return nil, fmt.Errorf("%w: commit %q is not a full git commit id (40 hex digits)", ErrRun, run.Commit)
	}
	// The result is decided from the counts: a run whose cases or
	// failures say more than its counts is not attested at all.
	if err := run.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRun, err)
	}
	subject := &intoto.ResourceDescriptor{Digest: map[string]string{"gitCommit": lowerHex(run.Commit)}}
	if run.Tree != "" {
		subject.Digest[TreeDigestKey] = run.Tree
	}
	if cfg.url != "" && !IsResourceURI(cfg.url) {
		return nil, fmt.Errorf("attest: url %q is not an absolute URI (the predicate's url is a ResourceURI)", brief(cfg.url))
	}
	pred, err := predicateOf(run, &cfg)
	if err != nil {
		return nil, err
	}
	st := &intoto.Statement{
		Type:          intoto.StatementTypeUri,
		Subject:       []*intoto.ResourceDescriptor{subject},
		PredicateType: PredicateType,
		Predicate:     pred,
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("attest: the statement is not valid: %w", err)
	}
	return st, nil
}

// predicateOf is the test-result predicate of run with its extension.
func predicateOf(run *testrun.Run, cfg *config) (*structpb.Struct, error) {
	result, reasons := Decide(FactsOf(run))
	tr := &testresult.TestResult{
		Result:        string(result),
		Configuration: configuration(run, cfg.baseDir),
		Url:           cfg.url,
	}
	tr.PassedTests, tr.WarnedTests, tr.FailedTests = testIDs(run)
	for _, d := range tr.Configuration {
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("attest: configuration %q: %w", d.GetName(), err)
		}
	}
	b, err := protojson.Marshal(tr)
	if err != nil {
		return nil, fmt.Errorf("attest: predicate: %w", err)
	}
	pred := &structpb.Struct{}
	if err := protojson.Unmarshal(b, pred); err != nil {
		return nil, fmt.Errorf("attest: predicate: %w", err)
	}
	ext, err := toStruct(extensionOf(run, reasons))
	if err != nil {
		return nil, fmt.Errorf("attest: extension: %w", err)
	}
	pred.Fields[ExtensionKey] = structpb.NewStructValue(ext)
	return pred, nil
}

// configuration lists every report the run read whole, by name (see
// WithReportsRelativeTo) with its sha256, dialect, size and test count,
// then the command.
func configuration(run *testrun.Run, baseDir string) []*intoto.ResourceDescriptor {
	var out []*intoto.ResourceDescriptor
	for _, rep := range run.Reports {
		if rep.SHA256 == "" || rep.Error != "" || rep.Skipped {
			continue
		}
		ann := map[string]any{RoleAnnotation: RoleReport, "bytes": float64(rep.Bytes)}
		if rep.Dialect != "" {
			ann["dialect"] = rep.Dialect
		}
		if rep.Tests != nil {
			ann["tests"] = float64(*rep.Tests)
		}
		a, _ := structpb.NewStruct(ann) // strings and numbers only: cannot fail
		out = append(out, &intoto.ResourceDescriptor{
			Name:        reportName(rep.Path, baseDir),
			Digest:      map[string]string{"sha256": rep.SHA256},
			Annotations: a,
		})
	}
	cmd := &intoto.ResourceDescriptor{Name: RoleCommand}
	ann := map[string]any{RoleAnnotation: RoleCommand}
	if run.Command != "" {
		sum := sha256.Sum256([]byte(run.Command))
		cmd.Digest = map[string]string{"sha256": hex.EncodeToString(sum[:])}
		ann["command"] = run.Command
	}
	cmd.Annotations, _ = structpb.NewStruct(ann)
	return append(out, cmd)
}

// reportName is path relative to baseDir, slash-separated; the path as it
// is when there is no baseDir or no relative path to it.
func reportName(path, baseDir string) string {
	if baseDir == "" {
		return filepath.ToSlash(path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	base, err := filepath.Abs(baseDir)
	if err != nil {
		return filepath.ToSlash(path)
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// testIDs returns, sorted, the ids the run keeps that passed (not flaky),
// that passed flaky, and that failed or errored.
func testIDs(run *testrun.Run) (passed, warned, failed []string) {
	flaky := make(map[string]bool, len(run.Flaky))
	for _, id := range run.Flaky {
		flaky[id] = true
	}
	failing := map[string]bool{}
	for id, o := range run.Cases {
		switch {
		case o.Failing():
			failing[id] = true
		case o == testrun.OutcomePassed && flaky[id]:
			warned = append(warned, id)
		case o == testrun.OutcomePassed:
			passed = append(passed, id)
		}
	}
	for _, f := range run.Failures {
		failing[f.ID] = true
	}
	for id := range failing {
		failed = append(failed, id)
	}
	// A flaky test the cases do not keep is still a warning.
	for _, id := range run.Flaky {
		if _, kept := run.Cases[id]; !kept && !failing[id] {
			warned = append(warned, id)
		}
	}
	slices.Sort(passed)
	slices.Sort(warned)
	slices.Sort(failed)
	return slices.Compact(passed), slices.Compact(warned), failed
}

func extensionOf(run *testrun.Run, reasons []string) *Extension {
	e := &Extension{
		RunID:             strPtr(run.ID),
		Kind:              strPtr(string(run.Kind)),
		Grade:             strPtr(run.Grade),
		Command:           strPtr(run.Command),
		Status:            strPtr(string(run.Status)),
		ExitCode:          run.ExitCode,
		Commit:            lowerHex(run.Commit),
		Tree:              strPtr(run.Tree),
		AgentRunID:        strPtr(run.AgentRunID),
		StartedAt:         timePtr(run.StartedAt),
		EndedAt:           timePtr(run.EndedAt),
		Counts:            run.Counts,
		Trusted:           run.Trusted(),
		Counted:           run.Counted(),
		Complete:          run.Complete,
		IncompleteReasons: nonNil(run.IncompleteReasons),
		ResultReasons:     nonNil(reasons),
	}
	return e
}

// toStruct is v's JSON form as a protobuf Struct.
func toStruct(v any) (*structpb.Struct, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	s := &structpb.Struct{}
	if err := protojson.Unmarshal(b, s); err != nil {
		return nil, err
	}
	return s, nil
}

// MarshalStatement is the statement's JSON form, compact and the same
// bytes for the same statement (protojson varies its white space on
// purpose; the compacted form does not vary).
func MarshalStatement(st *intoto.Statement) ([]byte, error) {
	return marshalProto(st)
}

// MarshalPredicate is the statement's predicate alone, indented, as
// actions/attest takes it (predicate-path).
func MarshalPredicate(st *intoto.Statement) ([]byte, error) {
	b, err := marshalProto(st.GetPredicate())
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, fmt.Errorf("attest: predicate: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func marshalProto(m proto.Message) ([]byte, error) {
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("attest: %w", err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, fmt.Errorf("attest: %w", err)
	}
	return out.Bytes(), nil
}

// IsResourceURI reports whether s is what the predicate's url must be, an
// absolute URI (RFC 3986: a scheme, then no space, control character or
// other byte a URI cannot hold unescaped).
func IsResourceURI(s string) bool {
	if len(s) > maxURIBytes || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"<>\^`+"`{|}", r) }) {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Opaque != "" || u.Host != "" || u.Path != "")
}

// maxURIBytes bounds the url (8 KiB, more than any CI run's URL).
const maxURIBytes = 8 << 10

// brief is s cut to about 200 bytes, for a message that quotes it.
func brief(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// IsCommitID reports whether s is a full git commit id: 40 hex digits,
// either case (a SHA-1 repository's; the in-toto gitCommit digest is one).
func IsCommitID(s string) bool { return len(s) == 40 && IsCommitSHA(s) }

// IsTreeDigest reports whether s is a working-tree digest as runs record
// it (TreeDigestKey): 64 hex digits, either case.
func IsTreeDigest(s string) bool { return len(s) == 64 && IsCommitSHA(s) }

// IsCommitSHA reports whether s is a commit SHA or an abbreviation of one:
// 4 to 64 hex digits, either case. (A loop, not a regular expression: the
// pattern's compilation cost every command about 50 KB at start-up.)
func IsCommitSHA(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

func lowerHex(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'F' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func timePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
