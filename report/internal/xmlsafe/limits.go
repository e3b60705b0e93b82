package xmlsafe

// Defaults of the limits applied to one report and to one run.
const (
	// DefaultMaxBytes is the largest report file read, in bytes (8 MiB).
	DefaultMaxBytes = 8 << 20
	// DefaultMaxElements is the largest number of XML elements in one report.
	DefaultMaxElements = 2_000_000
	// DefaultMaxDepth is the deepest element nesting allowed in one report.
	DefaultMaxDepth = 64
	// DefaultMaxCasesPerReport is the largest number of test cases in one report.
	DefaultMaxCasesPerReport = 100_000
	// DefaultMaxFiles is the largest number of report files read for one run.
	DefaultMaxFiles = 64
	// DefaultMaxRunBytes is the largest total size of the report files read
	// for one run, in bytes (32 MiB).
	DefaultMaxRunBytes = 32 << 20
	// DefaultMaxMessageBytes is how many bytes of a failure message a parser keeps
	// (8 KiB); the run clips it further when it is kept.
	DefaultMaxMessageBytes = 8 << 10
	// DefaultMaxRecords is the largest number of lcov records (lines) in one
	// coverage file.
	DefaultMaxRecords = 2_000_000
	// MaxAttributes is the most attributes one element may carry. Runners
	// write a dozen at most; the bound keeps the repeated-attribute check
	// (and the scans of a tag cut by the buffer's end) cheap on a hostile
	// tag with hundreds of thousands of them.
	MaxAttributes = 256
	// MaxNameInError is how many bytes of a name from the file an error
	// message quotes.
	MaxNameInError = 128
)

// Limits bound what one report may hold. A zero or negative field means
// its default.
type Limits struct {
	MaxBytes    int64 // default DefaultMaxBytes
	MaxElements int64 // default DefaultMaxElements
	MaxDepth    int64 // default DefaultMaxDepth
	MaxCases    int64 // default DefaultMaxCasesPerReport
	MaxRecords  int64 // default DefaultMaxRecords (lcov lines)
}

// WithDefaults returns l with every unset field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxElements <= 0 {
		l.MaxElements = DefaultMaxElements
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxCases <= 0 {
		l.MaxCases = DefaultMaxCasesPerReport
	}
	if l.MaxRecords <= 0 {
		l.MaxRecords = DefaultMaxRecords
	}
	return l
}

// CheckBytes returns a *LimitError (LimitBytes) when n bytes of one report
// are more than l.MaxBytes. It is the one rule for a report's size, applied
// to a file's size before it is opened and to what a reader has read.
func (l Limits) CheckBytes(n int64) error {
	if n > l.MaxBytes {
		return &LimitError{Limit: LimitBytes, Max: l.MaxBytes}
	}
	return nil
}

// Limit names a limit in a LimitError.
type Limit string

// The limits a LimitError names.
const (
	// LimitBytes is the size of one report file (Limits.MaxBytes).
	LimitBytes Limit = "bytes"
	// LimitElements is the number of XML elements in a report
	// (Limits.MaxElements).
	LimitElements Limit = "elements"
	// LimitDepth is the nesting of XML elements (Limits.MaxDepth).
	LimitDepth Limit = "depth"
	// LimitCases is the number of test cases in a report (Limits.MaxCases).
	LimitCases Limit = "cases"
	// LimitRecords is the number of lines in an lcov file
	// (Limits.MaxRecords).
	LimitRecords Limit = "records"
	// LimitAttributes is the number of attributes of one XML element
	// (MaxAttributes).
	LimitAttributes Limit = "attributes"
	// LimitFiles is the number of report files of a run.
	LimitFiles Limit = "files"
	// LimitRunBytes is the total size of a run's report files.
	LimitRunBytes Limit = "run bytes"
)
