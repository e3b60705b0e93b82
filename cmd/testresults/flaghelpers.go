package main

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/testrun"
)

// addKindFlags registers --kind (its values annotated for completion) and
// --grade, the run's kind and a grader's grade, as parse and run both take
// them.
func addKindFlags(fs *pflag.FlagSet, kind, grade *string) {
	kinds := make([]string, len(testrun.Kinds))
	for i, k := range testrun.Kinds {
		kinds[i] = string(k)
	}
	fs.StringVar(kind, "kind", "", "the run's kind: "+strings.Join(kinds, ", "))
	_ = fs.SetAnnotation("kind", clidoc.ValuesAnnotation, kinds)
	fs.StringVar(grade, "grade", "", "with --kind grader: the grader's grade (isolated, or a lower grade)")
}

// checkKindFlags checks --kind and --grade as addKindFlags registered them:
// the rules are testrun.Kind.Valid and testrun.CheckGrade, and a --grade
// given empty is refused too.
func checkKindFlags(cf *cmdFlags, kind, grade string) error {
	k := testrun.Kind(kind)
	switch {
	case kind != "" && !k.Valid():
		return cf.usageErr("unknown --kind %q", kind)
	case !cf.fs.Changed("grade"):
		return nil
	case k != testrun.KindGrader:
		return cf.usageErr("--grade is only for --kind grader")
	case grade == "" || testrun.CheckGrade(k, grade) != nil:
		return cf.usageErr("--grade is empty")
	}
	return nil
}

// timeFlag parses the RFC 3339 time given to --name (the zero time for
// ""), as every command that takes a time reads it.
func timeFlag(cf *cmdFlags, name, value string) (time.Time, error) {
	if value == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, value)
	if err != nil {
		return time.Time{}, cf.usageErr("--%s %q is not an RFC 3339 time", name, value)
	}
	return t, nil
}

// needExport refuses the first flag of names given on fs: an export flag
// without --export (parse, run, verdict, pair).
func needExport(fs *pflag.FlagSet, names []string) error {
	for _, name := range names {
		if fs.Changed(name) {
			return usagef("--%s is an export flag: add --export", name)
		}
	}
	return nil
}
