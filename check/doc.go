// Package check runs one check (a test command) and collects the reports it
// wrote: it makes a fresh report folder, sets the variables common test
// runners read so that they write a report there, runs the command
// unchanged in its own process group (timeouts and signals reach the whole
// group), keeps the tail of its output, reads the commit and working-tree
// digest before the command starts, and then builds the run (package
// testrun) from the reports that are newer than the start and free of
// symbolic links (package report). The standard output of go test -json
// is also kept as go-test.json in the report folder and read as its report.
// Prune applies the retention of report folders.
//
// # What the check leaves behind
//
// When the check's own process (the group leader) has ended, by itself or
// after a timeout or a signal, every process it left behind is killed
// (SIGKILL) before its reports are read and before anything is written:
// its whole process group and, on Linux, the processes that left the group
// (setsid, a double fork). For the latter, this process is a child
// subreaper (PR_SET_CHILD_SUBREAPER) while a check runs, so that what the
// check orphans is re-parented to it rather than to init; the processes
// re-parented to it then are killed and reaped, except those that are
// another running check's, those in this process's own process group, and
// those started before the check. Other code of the same program should
// therefore not start processes in a group or session of their own while a
// check runs. A background service a check starts does not outlive it. A
// process that cannot be ended within the kill-after delay (stuck in the
// kernel) makes the run incomplete. Elsewhere than Linux, a process that
// left the group is not found.
//
// Output.log, TEST-RESULTS.json and run.json are thus written once nothing
// the check started runs: the check cannot change them afterwards. Result
// carries the SHA-256 of each as it was written (OutputSHA256,
// ResultsSHA256, RunSHA256), so that a later reader can tell a file changed
// since by something else.
//
// # The report folder
//
// The report folder is made when missing, used when empty, and emptied
// only when it holds an earlier run's files alone: TEST-RESULTS.json and
// output.log, a run that reads back strictly (run.json, or
// TEST-RESULTS.json), and nothing but regular files that are neither
// source files nor the mark of a repository (.git, go.mod, package.json,
// ...). Any other folder is refused, naming what is in the way, and left
// untouched. The folder is opened once, when it is made, and every later
// read and write goes to that folder: one the check replaced by a link to
// another folder (or by another folder) is neither read nor written, and
// the run says so (ReasonReplaced).
//
// # A job
//
// Job is what `testresults run` does around Run: the first run, its
// comparison with a base, TEST-RESULTS.json, and after a failure the flaky
// rerun, the rerun budget or quarantine, with the job's exit code
// (ExitTimedOut, ExitInternal or the check's own). The store comes in as
// a FlakyList of lookups, as it stood when the job started; what the job
// says for people comes out through its callbacks and writer, and the
// caller records and exports the runs it returns.
package check
