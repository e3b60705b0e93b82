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
