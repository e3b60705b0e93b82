package report

import "github.com/hangar-dev/testresults/report/internal/xmlsafe"

// Default limits. Each can be changed with its With option; 0 or a negative
// value keeps the default.
const (
	// DefaultMaxBytes is the largest report file read (8 MiB).
	DefaultMaxBytes = xmlsafe.DefaultMaxBytes
	// DefaultMaxElements is the largest number of XML elements in a report.
	DefaultMaxElements = xmlsafe.DefaultMaxElements
	// DefaultMaxDepth is the deepest element nesting in a report.
	DefaultMaxDepth = xmlsafe.DefaultMaxDepth
	// DefaultMaxCasesPerReport is the largest number of test cases in a report.
	DefaultMaxCasesPerReport = xmlsafe.DefaultMaxCasesPerReport
	// DefaultMaxFiles is the largest number of report files read for a run.
	DefaultMaxFiles = xmlsafe.DefaultMaxFiles
	// DefaultMaxRunBytes is the largest total size of a run's report files
	// (32 MiB).
	DefaultMaxRunBytes = xmlsafe.DefaultMaxRunBytes
	// DefaultMaxRecords is the largest number of lines in an lcov file.
	DefaultMaxRecords = xmlsafe.DefaultMaxRecords
	// DefaultMaxMessageBytes is how many bytes of a failure message a parser
	// keeps (8 KiB) before the run clips and redacts it.
	DefaultMaxMessageBytes = xmlsafe.DefaultMaxMessageBytes
	// MaxAttributes is the most attributes one XML element may carry (256).
	MaxAttributes = xmlsafe.MaxAttributes
)

// Limits bound one report; a zero field means its default.
type Limits = xmlsafe.Limits
