package testrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadExpectedIDsLines(t *testing.T) {
	in := "b::two\r\n\n   \na::one\n a::spaced \nb::two\nc::three"
	ids, err := ReadExpectedIDs(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, []string{" a::spaced ", "a::one", "b::two", "c::three"}, ids,
		"blank lines passed over, a CR before LF dropped, duplicates once, every other line as it stands, sorted")
}

func TestReadExpectedIDsRunJSON(t *testing.T) {
	ids, err := ReadExpectedIDs(strings.NewReader("\n  " + validRunJSON))
	require.NoError(t, err)
	assert.Equal(t, []string{"t::a", "t::b", "t::c"}, ids, "a run's cases, skipped included")
}

func TestReadExpectedIDsRefuses(t *testing.T) {
	capped := strings.Replace(validRunJSON, `"total":3,"passed":1`, `"total":4,"passed":2`, 1)
	noCases := NewBuilder()
	noCases.AddReport(ReportInfo{Path: "r.xml", Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: ntests(0)}, nil, nil)
	empty, err := json.Marshal(noCases.Build())
	require.NoError(t, err)
	tooMany := strings.Repeat("x\n", 1) + func() string {
		var b strings.Builder
		for i := range MaxExpectedIDs + 1 {
			b.WriteString("t::" + strconv.Itoa(i) + "\n")
		}
		return b.String()
	}()
	for name, tt := range map[string]struct{ in, want string }{
		"empty":              {"", "no test id"},
		"only blank lines":   {"\n  \n\t\n", "no test id"},
		"invalid UTF-8":      {"a::b\n\xff\n", "not valid UTF-8"},
		"CR inside a line":   {"a::b\rc\n", "line 1 holds a CR or NUL byte"},
		"NUL":                {"a::b\nc\x00\n", "line 2 holds a CR or NUL byte"},
		"too many":           {tooMany, "more than 100000"},
		"too large":          {strings.Repeat("a", MaxExpectedBytes+1), "larger than 16 MiB"},
		"run without cases":  {string(empty), "has no cases"},
		"run capped":         {capped, `keeps 3 of its 4 cases`},
		"run not strict":     {strings.Replace(validRunJSON, `"id":"run-1"`, `"id":"run-1","new_failures":[]`, 1), `unknown field "new_failures"`},
		"run forged counted": {strings.Replace(validRunJSON, `"kind":"after_turn"`, `"kind":"gate"`, 1), "forged"},
	} {
		t.Run(name, func(t *testing.T) {
			ids, err := ReadExpectedIDs(strings.NewReader(tt.in))
			require.ErrorIs(t, err, ErrExpectedIDs)
			assert.Contains(t, err.Error(), tt.want)
			assert.Nil(t, ids)
		})
	}
}

func TestReadExpectedIDsReaderError(t *testing.T) {
	boom := errors.New("boom")
	_, err := ReadExpectedIDs(errReader{boom})
	require.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, ErrExpectedIDs)
}

// TestReadExpectedIDsFile: the file's ids, and errors that name the path:
// a file that is not there, a folder, a refused list.
func TestReadExpectedIDsFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ids.txt")
	require.NoError(t, os.WriteFile(good, []byte("b::t\na::t\n\nb::t\n"), 0o600))
	ids, err := ReadExpectedIDsFile(good)
	require.NoError(t, err)
	assert.Equal(t, []string{"a::t", "b::t"}, ids)

	_, err = ReadExpectedIDsFile(filepath.Join(dir, "nope"))
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "nope")

	_, err = ReadExpectedIDsFile(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir)

	empty := filepath.Join(dir, "empty.txt")
	require.NoError(t, os.WriteFile(empty, []byte("\n \n"), 0o600))
	_, err = ReadExpectedIDsFile(empty)
	require.ErrorIs(t, err, ErrExpectedIDs)
	assert.True(t, strings.HasPrefix(err.Error(), empty+": "), err.Error())
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestExpectIDs(t *testing.T) {
	b := NewBuilder()
	b.AddReport(ReportInfo{Path: "r.xml", Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: ntests(3)}, []Execution{
		exec("s", "t::a", OutcomePassed, ""), exec("s", "t::b", OutcomeFailed, "bad"), exec("s", "t::c", OutcomeSkipped, ""),
	}, nil)
	r := b.Build()
	r.Kind = KindAfterTurn
	require.True(t, r.Counted())

	all := *r
	all.ExpectIDs([]string{"t::a", "t::b", "t::c"})
	require.NotNil(t, all.NotRun, "checked: not_run is known")
	assert.Equal(t, NotRun{}, *all.NotRun)
	assert.True(t, all.Complete, "every expected test ran, the skipped one included")
	assert.True(t, all.Counted())

	r.ExpectIDs([]string{"u::z", "t::a", "t::y", "t::c", "t::x", "t::y"})
	assert.Equal(t, &NotRun{Count: 3, IDs: []string{"t::x", "t::y", "u::z"}}, r.NotRun)
	assert.False(t, r.Complete)
	assert.Equal(t, []string{"3 expected tests never ran (no report read mentions them)"}, r.IncompleteReasons)
	assert.False(t, r.Counted(), "tests that never ran are never a smaller green run")
	require.NoError(t, r.Validate())

	data, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"not_run":["t::x","t::y","u::z"],"not_run_count":3,`)
	back, err := ReadRun(strings.NewReader(string(data)))
	require.NoError(t, err)
	assert.Equal(t, r, back)
}

func TestExpectIDsWithoutReports(t *testing.T) {
	r := NewBuilder().Build()
	r.ExpectIDs([]string{"t::a"})
	assert.Equal(t, &NotRun{Count: 1, IDs: []string{"t::a"}}, r.NotRun)
	assert.Equal(t, []string{"no test report was read", "1 expected test never ran (no report read mentions it)"}, r.IncompleteReasons)
	require.NoError(t, r.Validate())
}

// TestExpectIDsListIsBounded: the list keeps the first MaxNotRunIDs ids,
// the count counts them all, and the JSON form reads back.
func TestExpectIDsListIsBounded(t *testing.T) {
	var ids []string
	for i := range 1000 {
		ids = append(ids, "t::"+strconv.Itoa(100000+i))
	}
	r := NewBuilder().Build()
	r.ExpectIDs(ids)
	assert.Equal(t, 1000, r.NotRun.Count)
	assert.Equal(t, ids[:MaxNotRunIDs], r.NotRun.IDs)
	data, err := json.Marshal(r)
	require.NoError(t, err)
	back, err := ReadRun(strings.NewReader(string(data)))
	require.NoError(t, err)
	assert.Equal(t, r, back)
}

// TestExpectIDsCappedCases: a run that kept only some of its cases cannot
// tell whether an expected id it did not keep ran; it never lists such an
// id as not run, and says it cannot tell.
func TestExpectIDsCappedCases(t *testing.T) {
	b := NewBuilder(WithMaxCases(2))
	b.AddReport(ReportInfo{Path: "r.xml", Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: ntests(3)}, []Execution{
		exec("s", "t::a", OutcomePassed, ""), exec("s", "t::b", OutcomePassed, ""), exec("s", "t::c", OutcomePassed, ""),
	}, nil)
	r := b.Build()
	require.Len(t, r.Cases, 2)
	r.ExpectIDs([]string{"t::a", "t::b", "t::c"})
	assert.Nil(t, r.NotRun, "unknown, not an empty list")
	assert.False(t, r.Complete)
	assert.Equal(t, []string{"whether the 3 expected tests ran is unknown: the run keeps 2 of its 3 cases"}, r.IncompleteReasons)
	require.NoError(t, r.Validate())
}

// validNotRunJSON is validRunJSON checked against five expected tests, two
// of which never ran.
var validNotRunJSON = strings.NewReplacer(
	`"complete":true`, `"complete":false`,
	`"counted":true`, `"counted":false`,
	`"incomplete_reasons":[]`, `"incomplete_reasons":["2 expected tests never ran (no report read mentions them)"]`,
	`"flaky":["t::a"]`, `"flaky":["t::a"],"not_run":["t::x","t::y"],"not_run_count":2`,
).Replace(validRunJSON)

func TestRunJSONNotRunReads(t *testing.T) {
	var r Run
	require.NoError(t, json.Unmarshal([]byte(validNotRunJSON), &r))
	assert.Equal(t, &NotRun{Count: 2, IDs: []string{"t::x", "t::y"}}, r.NotRun)
	out, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, validNotRunJSON, string(out))

	none := strings.Replace(validRunJSON, `"flaky":["t::a"]`, `"flaky":["t::a"],"not_run":[],"not_run_count":0`, 1)
	require.NoError(t, json.Unmarshal([]byte(none), &r))
	assert.Equal(t, &NotRun{}, r.NotRun, "checked, and every expected test ran")
	assert.True(t, r.Counted())
	out, err = json.Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, none, string(out))

	require.NoError(t, json.Unmarshal([]byte(validRunJSON), &r))
	assert.Nil(t, r.NotRun, "not checked: no not_run key at all")
	out, err = json.Marshal(r)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "not_run")
}

func TestRunJSONNotRunRefusesHostile(t *testing.T) {
	list := `"not_run":["t::x","t::y"],"not_run_count":2`
	for _, tt := range []struct{ name, old, new, want string }{
		{"list without count", list, `"not_run":["t::x","t::y"]`, "not_run and not_run_count are given together or not at all"},
		{"count without list", list, `"not_run_count":2`, "not_run and not_run_count are given together or not at all"},
		{"list null", list, `"not_run":null,"not_run_count":2`, "not_run is null, want a list"},
		{"list a string", list, `"not_run":"t::x","not_run_count":2`, "not_run is a string, want a list"},
		{"id not a string", list, `"not_run":["t::x",7],"not_run_count":2`, "not_run[1] is 7, want a string"},
		{"count float", list, `"not_run":["t::x","t::y"],"not_run_count":2.0`, "not_run_count is 2.0, want an integer"},
		{"count null", list, `"not_run":["t::x","t::y"],"not_run_count":null`, "not_run_count is null"},
		{"duplicate id", list, `"not_run":["t::x","t::x"],"not_run_count":2`, `not_run is not sorted and distinct at "t::x"`},
		{"unsorted", list, `"not_run":["t::y","t::x"],"not_run_count":2`, `not_run is not sorted and distinct at "t::x"`},
		{"empty id", list, `"not_run":["","t::y"],"not_run_count":2`, "not_run[0] is an empty test id"},
		{"id that ran", list, `"not_run":["t::a","t::y"],"not_run_count":2`, `not_run names "t::a", which is in cases: it ran`},
		{"count below list", list, `"not_run":["t::x","t::y"],"not_run_count":1`, "not_run_count is 1 beside 2 ids"},
		{"negative count", list, `"not_run":[],"not_run_count":-1`, "not_run_count is -1"},
		{"count above a short list", list, `"not_run":["t::x","t::y"],"not_run_count":5`, "lists them all or the first 200"},
		{"count above the bound", list, `"not_run":["t::x","t::y"],"not_run_count":100001`, "want 2 to 100000"},
		{"key twice", list, list + `,"not_run":[]`, `key "not_run" given twice`},
		{"case variant", list, list + `,"Not_Run":[]`, `key "Not_Run" differs only in case from "not_run"`},
		{"complete beside not run", `"complete":false`, `"complete":true`, "complete is true beside"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(validNotRunJSON, tt.old, tt.new, 1)
			require.NotEqual(t, validNotRunJSON, in)
			var r Run
			err := r.UnmarshalJSON([]byte(in))
			require.ErrorIs(t, err, ErrInvalidRun)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, Run{}, r)
		})
	}
}

// TestRunJSONRefusesReportContradictions: on an incomplete run (where a
// refused report is allowed), an entry that was not read states no tests
// and no digest.
func TestRunJSONRefusesReportContradictions(t *testing.T) {
	incomplete := strings.NewReplacer(
		`"complete":true`, `"complete":false`,
		`"counted":true`, `"counted":false`,
		`"incomplete_reasons":[]`, `"incomplete_reasons":["old.xml: too large"]`,
		`"error":null}]`, `"error":null},{"path":"old.xml","dialect":null,"bytes":9,"sha256":null,"tests":null,"error":"too large"}]`,
	).Replace(validRunJSON)
	var r Run
	require.NoError(t, r.UnmarshalJSON([]byte(incomplete)), "the control: a refused report without tests or digest")
	refused := `"sha256":null,"tests":null,"error":"too large"`
	for _, tt := range []struct{ name, new, want string }{
		{"refused with tests", `"sha256":null,"tests":4,"error":"too large"`, `report "old.xml" is refused (too large) but states 4 tests`},
		{"refused with sha256", `"sha256":"cd","tests":null,"error":"too large"`, `report "old.xml" is refused (too large) but has a sha256`},
		{"skipped with tests", `"sha256":null,"tests":0,"error":"stale","skipped":true`, `report "old.xml" is skipped (stale) but states 0 tests`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(incomplete, refused, tt.new, 1)
			require.NotEqual(t, incomplete, in)
			var r Run
			err := r.UnmarshalJSON([]byte(in))
			require.ErrorIs(t, err, ErrInvalidRun)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// passedExecs returns n passing executions, t::000000 on.
func passedExecs(n int) []Execution {
	execs := make([]Execution, n)
	for i := range execs {
		execs[i] = exec("s", fmt.Sprintf("t::%06d", i), OutcomePassed, "")
	}
	return execs
}

// TestWithExpectedIDsPastTheCap: a Builder given the expected ids decides
// by every id its reports mention, not by the cases it keeps: on a run of
// more cases than it keeps, the expected ids that ran but were not kept are
// not listed, and those that never ran are, exactly.
func TestWithExpectedIDsPastTheCap(t *testing.T) {
	execs := passedExecs(DefaultMaxCasesKept + 500)
	execs[DefaultMaxCasesKept+100].Outcome = OutcomeSkipped
	ran := []string{"t::000000", "t::019999", "t::020000", "t::020100", "t::020499"}
	never := []string{"a::before", "t::020500", "t::0200001", "u::after"}
	expected := append(append([]string{}, ran...), never...)
	build := func(opts ...Option) *Run {
		b := NewBuilder(opts...)
		b.AddReport(ReportInfo{Path: "r.xml", Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: ntests(len(execs))}, execs, nil)
		r := b.Build()
		r.Kind = KindAfterTurn
		return r
	}

	r := build(WithExpectedIDs(expected))
	require.Len(t, r.Cases, DefaultMaxCasesKept, "the cases are capped")
	require.NotContains(t, r.Cases, "t::020100", "an expected id that ran is not kept")
	slices.Sort(never)
	assert.Equal(t, &NotRun{Count: len(never), IDs: never}, r.NotRun)
	assert.False(t, r.Complete)
	assert.Equal(t, []string{NotRunReason(len(never))}, r.IncompleteReasons)
	require.NoError(t, r.Validate())
	data, err := json.Marshal(r)
	require.NoError(t, err)
	back, err := ReadRun(strings.NewReader(string(data)))
	require.NoError(t, err)
	assert.Equal(t, r, back)

	all := build(WithExpectedIDs(ran))
	assert.Equal(t, &NotRun{}, all.NotRun, "every expected test ran, kept or not")
	assert.True(t, all.Complete)
	assert.True(t, all.Counted())

	late := build()
	late.ExpectIDs(expected)
	assert.Nil(t, late.NotRun, "checked after Build, the capped run cannot tell")
	assert.False(t, late.Complete)
}

// TestWithExpectedIDsAsExpectIDs: on a run that keeps every case, a Builder
// given the expected ids builds the run that Build then ExpectIDs gives,
// whatever its reports: none, a refused one (whose executions are not
// mentioned), a skipped one, several fed ones.
func TestWithExpectedIDsAsExpectIDs(t *testing.T) {
	expected := []string{"t::c", "t::a", "u::fed", "t::refused", "", "t::a", "t::never", "v::second"}
	ok := ReportInfo{Path: "r.xml", Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: ntests(3)}
	for name, add := range map[string]func(b *Builder){
		"no report": func(*Builder) {},
		"tests": func(b *Builder) {
			b.AddReport(ok, []Execution{exec("s", "t::a", OutcomePassed, ""), exec("s", "t::b", OutcomeFailed, "bad"), exec("s", "t::c", OutcomeSkipped, "")}, nil)
		},
		"refused and skipped": func(b *Builder) {
			b.AddReport(ok, []Execution{exec("s", "t::a", OutcomePassed, "")}, nil)
			b.AddReport(ReportInfo{Path: "bad.xml", Error: "truncated"}, []Execution{exec("s", "t::refused", OutcomePassed, "")}, nil)
			b.AddReport(ReportInfo{Path: "pom.xml", Error: "not a report", Skipped: true}, []Execution{exec("s", "t::c", OutcomePassed, "")}, nil)
		},
		"fed": func(b *Builder) {
			for i, ids := range [][]string{{"u::fed", "t::a"}, {"t::refused"}, {"v::second", "t::a"}} {
				f := b.Feed()
				f.Add(slices.Values([]*Execution{execPtr(exec("s", ids[0], OutcomePassed, "")), execPtr(exec("s", ids[len(ids)-1], OutcomeError, "e"))}))
				info := ReportInfo{Path: fmt.Sprintf("%d.xml", i), Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: ntests(len(ids))}
				if i == 1 {
					info = ReportInfo{Path: "1.xml", Error: "truncated"}
				}
				f.End(info, nil)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := NewBuilder(WithExpectedIDs(expected))
			add(b)
			got := b.Build()
			b = NewBuilder()
			add(b)
			want := b.Build()
			want.ExpectIDs(expected)
			require.NotNil(t, got.NotRun)
			assert.Equal(t, want, got)
			assert.Contains(t, got.NotRun.IDs, "t::never")
			assert.Contains(t, got.NotRun.IDs, "t::refused", "a refused report's executions are not mentioned")
			assert.NotContains(t, got.NotRun.IDs, "", "the empty id is passed over")
			require.NoError(t, got.Validate())
		})
	}
}

func execPtr(e Execution) *Execution { return &e }

func TestWithExpectedIDsEdges(t *testing.T) {
	ok := ReportInfo{Path: "r.xml", Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: ntests(1)}
	build := func(opts ...Option) *Run {
		b := NewBuilder(opts...)
		b.AddReport(ok, []Execution{exec("s", "t::a", OutcomePassed, "")}, nil)
		return b.Build()
	}
	assert.Nil(t, build().NotRun, "not checked: no not_run")

	none := build(WithExpectedIDs(nil))
	assert.Equal(t, &NotRun{}, none.NotRun, "checked against nothing: every expected test ran")
	assert.True(t, none.Complete)

	ids := []string{"t::b", "t::a", "t::b"}
	r := build(WithExpectedIDs(ids))
	assert.Equal(t, []string{"t::b", "t::a", "t::b"}, ids, "the caller's ids are left as they are")
	assert.Equal(t, &NotRun{Count: 1, IDs: []string{"t::b"}}, r.NotRun)

	many := make([]string, MaxExpectedIDs+1)
	for i := range many {
		many[i] = "t::" + strconv.Itoa(i)
	}
	r = build(WithExpectedIDs(many))
	assert.Nil(t, r.NotRun, "more than MaxExpectedIDs are not checked")
	assert.False(t, r.Complete)
	assert.Equal(t, []string{"whether the 100001 expected tests ran is not checked: more than 100000"}, r.IncompleteReasons)
	require.NoError(t, r.Validate())
	r = build()
	r.ExpectIDs(many)
	assert.Nil(t, r.NotRun, "ExpectIDs keeps the same bound")
	require.NoError(t, r.Validate())
}
