// Package prefault maps the running binary's code and initialised data
// into the process's page table as it starts, in one system call per
// mapping, instead of one page fault per page touched.
//
// A command of testresults touches a few hundred pages of its own binary
// before main runs: every linked package's init, the runtime's type and
// interface tables. On bare metal a page fault costs well under a
// microsecond, but in a virtual machine that shadows the guest's page
// tables it costs tens, and those faults are most of `testresults run --
// true`'s overhead there. Asking the kernel to fill the page table for a
// whole mapping at once (MADV_POPULATE_READ, MADV_POPULATE_WRITE; Linux 5.14
// or later) costs a fraction of that, and a little more work than the
// faults on a machine where faults are cheap.
//
// Only pages already in the page cache are mapped: when most of the binary
// is not (a cold start), nothing is done, so a start never reads more of
// the file from disk than its faults would. Setting TESTRESULTS_PREFAULT=0
// turns it off. The package does its work in init; import it for that
// effect alone, from a main package.
package prefault
