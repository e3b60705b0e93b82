package testrun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// Verdict is what the paired runs say of one test.
type Verdict string

// Verdicts of a paired comparison.
const (
	// VerdictBroken: passed in every parent run, fails in every patch run.
	// It rejects the patch.
	VerdictBroken Verdict = "broken"
	// VerdictRepaired: failed in every parent run, passes in every patch run.
	VerdictRepaired Verdict = "repaired"
	// VerdictFrozen: the parent runs disagreed with each other; the test is
	// excluded from the vote and listed.
	VerdictFrozen Verdict = "frozen"
	// VerdictUnchanged: the same outcome in every run.
	VerdictUnchanged Verdict = "unchanged"
	// VerdictInconclusive: missing from a run, not run in one (skipped
	// beside runs that ran it), a run incomplete, or patch runs that
	// disagree with each other. It blocks until collection is fixed.
	VerdictInconclusive Verdict = "inconclusive"
)

// Decision sums up a paired comparison.
type Decision string

// Decisions, from worst to best.
const (
	// DecisionInvalid: the comparison itself is invalid (a fixture pin
	// changed between parent and patch).
	DecisionInvalid Decision = "invalid"
	// DecisionReject: at least one test is broken.
	DecisionReject Decision = "reject"
	// DecisionBlock: no test is broken but at least one is inconclusive.
	DecisionBlock Decision = "block"
	// DecisionAllow: nothing broken, nothing inconclusive.
	DecisionAllow Decision = "allow"
)

// MinPairedRuns is the fewest runs a side of a paired comparison needs.
const MinPairedRuns = 2

// ErrVerdictInput is returned (wrapped) by PairedVerdict for input it
// cannot judge: fewer than MinPairedRuns runs on a side, a nil run, or one
// run given twice on one side (a *SameRunError).
var ErrVerdictInput = errors.New("testrun: invalid paired input")

// SameRunError is PairedVerdict's error for one run given twice on one
// side: two runs with the same id, or (WithCopiesRefused) two runs whose
// reports have the same sha256 digests. Two copies of a run can never
// disagree, so they would pass for agreement and a flaky test would never
// be frozen. It wraps ErrVerdictInput.
type SameRunError struct {
	// Side is "parent" or "patch"; First and Second are the positions of
	// the two runs on it, from 1. Side is SidesBoth for a run given on
	// both sides: First is its position among the parent's runs, Second
	// among the patch's.
	Side          string
	First, Second int
	// ID is the id both runs carry; "" when their report digests matched.
	ID string
	// IDs are the two runs' ids when their report digests matched.
	IDs [2]string
	// Report is the sha256 digest of a report of tests that both runs
	// read ("" when all their digests matched).
	Report string
}

func (e *SameRunError) Error() string {
	why := fmt.Sprintf("id %q", e.ID)
	switch {
	case e.ID != "":
	case e.Side == SidesBoth:
		why = "one run given twice"
	case e.Report != "":
		why = fmt.Sprintf("runs %q and %q read the same report of tests, sha256 %s", e.IDs[0], e.IDs[1], e.Report)
	default:
		why = fmt.Sprintf("runs %q and %q read reports with the same sha256 digests", e.IDs[0], e.IDs[1])
	}
	if e.Side == SidesBoth {
		return fmt.Sprintf("%v: parent run %d and patch run %d are the same run (%s): a run of the parent says nothing of the patch",
			ErrVerdictInput, e.First, e.Second, why)
	}
	return fmt.Sprintf("%v: %s runs %d and %d are the same run (%s): two copies of a run can never disagree",
		ErrVerdictInput, e.Side, e.First, e.Second, why)
}

// SidesBoth is the Side of a SameRunError for a run given on both sides.
const SidesBoth = "both"

func (e *SameRunError) Unwrap() error { return ErrVerdictInput }

// TestVerdict is the verdict on one test with the outcomes it had, in the
// order of the runs ("" where a run did not list it).
type TestVerdict struct {
	ID      string    `json:"id"`
	Verdict Verdict   `json:"verdict"`
	Parent  []Outcome `json:"parent"`
	Patch   []Outcome `json:"patch"`
	// Reason says why a test is inconclusive or frozen.
	Reason string `json:"reason,omitempty"`
}

// Paired is the result of a paired comparison.
type Paired struct {
	ParentRuns []string `json:"parent_runs"`
	PatchRuns  []string `json:"patch_runs"`
	Decision   Decision `json:"decision"`
	// Invalid says why the comparison is invalid ("" when valid). An
	// invalid comparison lists no test.
	Invalid string `json:"invalid_reason,omitempty"`
	// Unusable says, run by run, why runs cannot speak for any test
	// (incomplete, not trusted, ran no test, cases not listed): every test
	// is then inconclusive, and the decision is at best block, even when
	// the runs list no test at all.
	Unusable []string `json:"unusable_runs,omitempty"`
	// Broken, Repaired, Frozen and Inconclusive list their tests, sorted
	// by id; Unchanged counts the rest.
	Broken       []TestVerdict `json:"broken"`
	Repaired     []TestVerdict `json:"repaired"`
	Frozen       []TestVerdict `json:"frozen"`
	Inconclusive []TestVerdict `json:"inconclusive"`
	Unchanged    int           `json:"unchanged"`
}

// VerdictOption configures PairedVerdict.
type VerdictOption interface {
	applyVerdict(verdictConfig) verdictConfig
}

type verdictConfig struct {
	parentPins, patchPins Pins
	pinsGiven             bool
	refuseCopies          bool
}

type verdictOptionFunc func(verdictConfig) verdictConfig

func (f verdictOptionFunc) applyVerdict(c verdictConfig) verdictConfig { return f(c) }

// WithPins gives the fixture pins in force on the parent and on the patch
// (from pins files, or computed with HashPins in each tree). Any difference
// makes the comparison invalid.
func WithPins(parent, patch Pins) VerdictOption {
	return verdictOptionFunc(func(c verdictConfig) verdictConfig {
		c.parentPins, c.patchPins, c.pinsGiven = parent, patch, true
		return c
	})
}

// WithCopiesRefused also refuses, as the same run, two runs on one side
// whose reports have the same set of sha256 digests (non-empty): one
// report read twice, or a run's file copied under another id. Pass it for
// runs read back from files or a store, which may be copies of one
// another. A caller that executed each run itself (testresults pair)
// leaves it out: a deterministic check can write byte-identical reports on
// two honest executions, and those are two runs that agreed.
func WithCopiesRefused() VerdictOption {
	return verdictOptionFunc(func(c verdictConfig) verdictConfig {
		c.refuseCopies = true
		return c
	})
}

// PairedVerdict judges every test of N >= 2 runs of the parent and N >= 2
// runs of the patch. Only a broken test rejects; a test the runs cannot
// judge is inconclusive, never unchanged. The same run given twice on one
// side (the same non-empty id; with WithCopiesRefused, the same report
// digests or one report of tests in common), or on both sides (the same
// non-empty id), is refused with a *SameRunError.
func PairedVerdict(parent, patch []*Run, opts ...VerdictOption) (*Paired, error) {
	var cfg verdictConfig
	for _, o := range opts {
		cfg = o.applyVerdict(cfg)
	}
	if len(parent) < MinPairedRuns || len(patch) < MinPairedRuns {
		return nil, fmt.Errorf("%w: %d parent and %d patch runs; each side needs at least %d",
			ErrVerdictInput, len(parent), len(patch), MinPairedRuns)
	}
	p := &Paired{
		Broken: []TestVerdict{}, Repaired: []TestVerdict{}, Frozen: []TestVerdict{}, Inconclusive: []TestVerdict{},
	}
	for _, side := range []struct {
		name string
		runs []*Run
		ids  *[]string
	}{{"parent", parent, &p.ParentRuns}, {"patch", patch, &p.PatchRuns}} {
		for i, r := range side.runs {
			if r == nil {
				return nil, fmt.Errorf("%w: run %d is missing", ErrVerdictInput, i+1)
			}
			*side.ids = append(*side.ids, r.ID)
		}
		if err := sameRun(side.name, side.runs, cfg.refuseCopies); err != nil {
			return nil, err
		}
	}
	if err := onBothSides(parent, patch); err != nil {
		return nil, err
	}
	if cfg.pinsGiven {
		if changes := PinChanges(cfg.parentPins, cfg.patchPins); len(changes) > 0 {
			p.Decision = DecisionInvalid
			p.Invalid = "a fixture pin changed between parent and patch: " + strings.Join(changes, "; ")
			return p, nil
		}
	}

	// A run that is not counted (incomplete, not trusted, or ran no test)
	// or does not list its cases cannot speak for any test: a verdict
	// read from runs the agent could forge, or from runs that ran
	// nothing, is never an allow.
	var unusable []string
	for _, r := range append(append([]*Run{}, parent...), patch...) {
		switch {
		case r.Counts == nil:
			unusable = append(unusable, fmt.Sprintf("run %q has no counts", r.ID))
		case !r.Complete:
			unusable = append(unusable, fmt.Sprintf("run %q is incomplete", r.ID))
		case !r.Trusted():
			unusable = append(unusable, fmt.Sprintf("run %q is not trusted (kind %q)", r.ID, r.Kind))
		case r.Counts.Total == 0:
			unusable = append(unusable, fmt.Sprintf("run %q ran no test", r.ID))
		case len(r.Cases) < r.Counts.Total:
			unusable = append(unusable, fmt.Sprintf("run %q lists %d of its %d cases", r.ID, len(r.Cases), r.Counts.Total))
		}
	}
	ids := map[string]bool{}
	for _, r := range append(append([]*Run{}, parent...), patch...) {
		for id := range r.Cases {
			ids[id] = true
		}
		for _, f := range r.Failures {
			ids[f.ID] = true
		}
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		tv := judge(id, parent, patch, unusable)
		switch tv.Verdict {
		case VerdictBroken:
			p.Broken = append(p.Broken, tv)
		case VerdictRepaired:
			p.Repaired = append(p.Repaired, tv)
		case VerdictFrozen:
			p.Frozen = append(p.Frozen, tv)
		case VerdictInconclusive:
			p.Inconclusive = append(p.Inconclusive, tv)
		default:
			p.Unchanged++
		}
	}
	p.Unusable = unusable
	switch {
	case len(p.Broken) > 0:
		p.Decision = DecisionReject
	case len(p.Inconclusive) > 0 || len(unusable) > 0:
		p.Decision = DecisionBlock
	default:
		p.Decision = DecisionAllow
	}
	return p, nil
}

// sameRun returns a *SameRunError for the first run of a side that is an
// earlier one again: the same id (an empty id names no run), or, with
// digests, the same non-empty set of report digests, or one report of
// tests (a report that held at least one) read by both: one execution of
// those tests standing for two, whatever else either run read beside it.
// A report without tests (coverage) may be shared.
func sameRun(side string, runs []*Run, digests bool) error {
	byID := make(map[string]int, len(runs))
	byDigests := make(map[string]int, len(runs))
	byReport := map[string]int{}
	for i, r := range runs {
		if r.ID != "" {
			if j, ok := byID[r.ID]; ok {
				return &SameRunError{Side: side, First: j + 1, Second: i + 1, ID: r.ID}
			}
			byID[r.ID] = i
		}
		if !digests {
			continue
		}
		if key := reportDigests(r); key != "" {
			if j, ok := byDigests[key]; ok {
				return &SameRunError{Side: side, First: j + 1, Second: i + 1, IDs: [2]string{runs[j].ID, r.ID}}
			}
			byDigests[key] = i
		}
		for _, info := range r.Reports {
			if info.SHA256 == "" || info.Tests == nil || *info.Tests == 0 {
				continue
			}
			sum := strings.ToLower(info.SHA256)
			if j, ok := byReport[sum]; ok && j != i {
				return &SameRunError{Side: side, First: j + 1, Second: i + 1, IDs: [2]string{runs[j].ID, r.ID}, Report: sum}
			}
			byReport[sum] = i
		}
	}
	return nil
}

// onBothSides returns a *SameRunError for a run given on both sides: it
// would stand for the patch with the parent's evidence. The same run, or
// the same non-empty id; the same report digests across the sides may be
// two honest runs (a check whose outcomes the patch did not change can
// write the same bytes).
func onBothSides(parent, patch []*Run) error {
	for i, a := range parent {
		for j, b := range patch {
			if a == b || (a.ID != "" && a.ID == b.ID) {
				return &SameRunError{Side: SidesBoth, First: i + 1, Second: j + 1, ID: a.ID}
			}
		}
	}
	return nil
}

// reportDigests is the set of a run's report digests (lower case, sorted,
// each once) as one string; "" when no report has one.
func reportDigests(r *Run) string {
	sums := make([]string, 0, len(r.Reports))
	for _, info := range r.Reports {
		if info.SHA256 != "" {
			sums = append(sums, strings.ToLower(info.SHA256))
		}
	}
	sort.Strings(sums)
	return strings.Join(slices.Compact(sums), ",")
}

// OutcomeOf is the run's outcome for id: its case outcome, or its
// failure's when the case map does not hold it (capped cases); "" when the
// run does not list it.
func (r *Run) OutcomeOf(id string) Outcome {
	if o, ok := r.Cases[id]; ok {
		return o
	}
	for _, f := range r.Failures {
		if f.ID == id {
			return f.Outcome
		}
	}
	return ""
}

// class folds failed and error together: both fail.
func class(o Outcome) Outcome {
	if o.Failing() {
		return OutcomeFailed
	}
	return o
}

func judge(id string, parent, patch []*Run, unusable []string) TestVerdict {
	tv := TestVerdict{ID: id, Parent: make([]Outcome, len(parent)), Patch: make([]Outcome, len(patch))}
	for i, r := range parent {
		tv.Parent[i] = r.OutcomeOf(id)
	}
	for i, r := range patch {
		tv.Patch[i] = r.OutcomeOf(id)
	}
	inconclusive := func(reason string) TestVerdict {
		tv.Verdict, tv.Reason = VerdictInconclusive, reason
		return tv
	}
	if len(unusable) > 0 {
		return inconclusive(strings.Join(unusable, "; "))
	}
	all := append(append([]Outcome{}, tv.Parent...), tv.Patch...)
	for i, o := range all {
		if o == "" {
			side, n := "parent", i+1
			if i >= len(parent) {
				side, n = "patch", i-len(parent)+1
			}
			return inconclusive(fmt.Sprintf("missing from %s run %d", side, n))
		}
	}
	if same(all) {
		tv.Verdict = VerdictUnchanged
		return tv
	}
	for _, o := range all {
		if o == OutcomeSkipped {
			return inconclusive("skipped in some runs and run in others")
		}
	}
	if !same(tv.Parent) {
		tv.Verdict, tv.Reason = VerdictFrozen, "the parent runs disagreed"
		return tv
	}
	if !same(tv.Patch) {
		return inconclusive("the patch runs disagreed")
	}
	switch {
	case class(tv.Parent[0]) == OutcomePassed && class(tv.Patch[0]) == OutcomeFailed:
		tv.Verdict = VerdictBroken
	case class(tv.Parent[0]) == OutcomeFailed && class(tv.Patch[0]) == OutcomePassed:
		tv.Verdict = VerdictRepaired
	default:
		tv.Verdict = VerdictUnchanged
	}
	return tv
}

// same reports whether every outcome is in one class (failed and error
// are one).
func same(os []Outcome) bool {
	for _, o := range os[1:] {
		if class(o) != class(os[0]) {
			return false
		}
	}
	return true
}

// Pins maps a fixture file's path (slash-separated, relative to the
// repository) to the sha256 of its content, 64 lower-case hex digits. Its
// file form is one JSON object: {"testdata/a.json": "<sha256>", ...}.
type Pins map[string]string

// ErrInvalidPins is returned (wrapped) for a pins file that is not a JSON
// object of clean relative paths to sha256 digests.
var ErrInvalidPins = errors.New("testrun: invalid pins")

// MaxPins bounds the entries of a pins file, and MaxPinsBytes its size.
const (
	MaxPins      = 10000
	MaxPinsBytes = 4 << 20
)

// ReadPins reads a pins file strictly: a JSON object, no key twice, every
// key a clean relative path, every value 64 hex digits.
func ReadPins(r io.Reader) (Pins, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPinsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPins, err)
	}
	if len(data) > MaxPinsBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrInvalidPins, MaxPinsBytes)
	}
	if err := checkDuplicateKeys(data); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPins, err)
	}
	var pins Pins
	if err := json.Unmarshal(data, &pins); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPins, err)
	}
	if pins == nil {
		return nil, fmt.Errorf("%w: not a JSON object", ErrInvalidPins)
	}
	if len(pins) > MaxPins {
		return nil, fmt.Errorf("%w: more than %d pins", ErrInvalidPins, MaxPins)
	}
	for p, sum := range pins {
		if !fs.ValidPath(p) || p == "." {
			return nil, fmt.Errorf("%w: %q is not a clean relative path", ErrInvalidPins, p)
		}
		if !isSHA256(sum) {
			return nil, fmt.Errorf("%w: %q: %q is not a sha256 (64 lower-case hex digits)", ErrInvalidPins, p, sum)
		}
	}
	return pins, nil
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// HashPins computes the pins of paths in fsys (a tree: os.DirFS of a
// worktree). A path that is not a regular file in fsys is left out, so
// that PinChanges reports it as missing.
func HashPins(fsys fs.FS, paths []string) (Pins, error) {
	pins := make(Pins, len(paths))
	for _, p := range paths {
		p = path.Clean(p)
		if !fs.ValidPath(p) {
			return nil, fmt.Errorf("%w: %q is not a clean relative path", ErrInvalidPins, p)
		}
		info, err := fs.Stat(fsys, p)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		f, err := fsys.Open(p)
		if err != nil {
			return nil, fmt.Errorf("testrun: pins: %w", err)
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		_ = f.Close() // read only: a read that failed is reported just below
		if err != nil {
			return nil, fmt.Errorf("testrun: pins: %s: %w", p, err)
		}
		pins[p] = hex.EncodeToString(h.Sum(nil))
	}
	return pins, nil
}

// PinChanges lists, sorted by path, every pin that differs between parent
// and patch: changed, missing on one side or the other.
func PinChanges(parent, patch Pins) []string {
	paths := map[string]bool{}
	for p := range parent {
		paths[p] = true
	}
	for p := range patch {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	var out []string
	for _, p := range sorted {
		a, inA := parent[p]
		b, inB := patch[p]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("%s: missing on the parent", p))
		case !inB:
			out = append(out, fmt.Sprintf("%s: missing on the patch", p))
		case a != b:
			out = append(out, fmt.Sprintf("%s: %s on the parent, %s on the patch", p, shortSum(a), shortSum(b)))
		}
	}
	return out
}

func shortSum(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
