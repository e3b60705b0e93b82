// Package lcov reads lcov tracefiles (lcov, geninfo, grcov, istanbul,
// c8, cargo-llvm-cov, gcovr --lcov, coverage.py) into per-source-file line
// coverage.
//
// Lines are counted from DA records and merged per source file (SF, made
// relative to the check's working directory; a line is covered when any
// record covers it); a record without DA lines contributes its LF/LH
// totals. The file is read line by line within the limits of package
// report; a malformed DA, LF or LH line, or a record cut short by the end
// of the file, refuses the whole file.
package lcov
