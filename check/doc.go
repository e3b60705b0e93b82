// Package check runs one check (a test command) and collects the reports it
// wrote: it makes a fresh report folder, sets the variables common test
// runners read so that they write a report there, runs the command
// unchanged in its own process group (timeouts and signals reach the whole
// group), keeps the tail of its output, reads the commit and working-tree
// digest before the command starts, and then builds the run (package
// testrun) from the reports that are newer than the start and free of
// symbolic links (package report). Prune applies the retention of report
// folders.
package check
