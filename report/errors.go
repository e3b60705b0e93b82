package report

import (
	"errors"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// LimitError reports an input over a limit; errors.Is(err, ErrLimit). Its
// Limit field names which one.
type LimitError = xmlsafe.LimitError

// Limit names a limit in a LimitError.
type Limit = xmlsafe.Limit

// The limits a LimitError names.
const (
	// LimitBytes is the size of one report file (WithMaxBytes).
	LimitBytes = xmlsafe.LimitBytes
	// LimitElements is the number of XML elements in a report
	// (WithMaxElements).
	LimitElements = xmlsafe.LimitElements
	// LimitDepth is the nesting of XML elements (WithMaxDepth).
	LimitDepth = xmlsafe.LimitDepth
	// LimitCases is the number of test cases in a report (WithMaxCases).
	LimitCases = xmlsafe.LimitCases
	// LimitRecords is the number of lines in an lcov file (WithMaxRecords).
	LimitRecords = xmlsafe.LimitRecords
	// LimitAttributes is the number of attributes of one XML element
	// (MaxAttributes).
	LimitAttributes = xmlsafe.LimitAttributes
	// LimitFiles is the number of report files of a run (WithMaxFiles).
	LimitFiles = xmlsafe.LimitFiles
	// LimitRunBytes is the total size of a run's report files
	// (WithMaxRunBytes).
	LimitRunBytes = xmlsafe.LimitRunBytes
)

// SyntaxError is a report that is not well-formed or is refused, at a line
// of a file. It unwraps to what is wrong (ErrEntity, ErrTruncated, ...).
// junit.SyntaxError, cobertura.SyntaxError and lcov.SyntaxError are the
// same type.
type SyntaxError = xmlsafe.SyntaxError

// Errors of refused reports. Test with errors.Is.
var (
	// ErrLimit is matched by every *LimitError.
	ErrLimit = xmlsafe.ErrLimit
	// ErrEntity: an entity declaration, a parameter entity or a reference to
	// an undefined entity. Such a report is always refused.
	ErrEntity = xmlsafe.ErrEntity
	// ErrDTD: an internal DTD subset holding anything but element and
	// attribute-list declarations, comments and processing instructions (a
	// notation, a conditional section), or a DOCTYPE over 64 KiB.
	ErrDTD = xmlsafe.ErrDTD
	// ErrEncoding: a document neither UTF-8, US-ASCII nor ISO-8859-1.
	ErrEncoding = xmlsafe.ErrEncoding
	// ErrEmpty: an empty file.
	ErrEmpty = xmlsafe.ErrEmpty
	// ErrBinary: a NUL byte or invalid UTF-8.
	ErrBinary = xmlsafe.ErrBinary
	// ErrChar: a character XML 1.0 does not allow (a C0 control other than
	// tab, LF and CR, a surrogate, U+FFFE or U+FFFF), raw or as a character
	// reference such as &#27;.
	ErrChar = xmlsafe.ErrChar
	// ErrTruncated: a document or tracefile cut short.
	ErrTruncated = xmlsafe.ErrTruncated
	// ErrNotXML: a file that is neither XML, an lcov tracefile nor a go test
	// -json stream.
	ErrNotXML = xmlsafe.ErrNotXML
)

var (
	// ErrSymlink is the reason a path holding a symbolic link is refused.
	ErrSymlink = errors.New("report: symbolic link refused")
	// ErrNotRegular is the reason a path that is neither a regular file nor
	// a folder is refused.
	ErrNotRegular = errors.New("report: not a regular file")
	// ErrNotReport is the reason a well-formed file that is not a test or
	// coverage report is skipped (not refused: it does not make the run
	// incomplete).
	ErrNotReport = errors.New("report: not a test or coverage report")
	// ErrUnknownRoot is the reason a well-formed XML file whose root
	// element is neither a report's nor one known not to be a report (a
	// Maven POM, an NUnit file: those are skipped, ErrNotReport) is refused
	// when it was named directly or lies in the run's own report folder
	// (WithOwnFolder). Found by a search (a folder walked, WithFound), it is
	// skipped with ErrNotReport instead.
	ErrUnknownRoot = errors.New("report: unknown root element")
	// ErrStale is the reason a file older than WithNewerThan's time is
	// skipped, or refused in the run's own report folder (WithOwnFolder).
	ErrStale = errors.New("report: older than the run")
	// ErrNoReports is returned by ReadRun when no report could be read at
	// all: none was found, or every input was refused or skipped.
	ErrNoReports = errors.New("report: no report could be read")
)
