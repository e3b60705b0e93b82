// Package prefault maps the running binary's code and data into the
// process's page table as it starts, in one system call per mapping,
// instead of one page fault per page touched.
//
// A command of testresults touches a few hundred pages of its own binary
// before main runs: package inits, the runtime's type and interface
// tables. On bare metal a page fault costs well under a microsecond and
// maps up to 16 pages of a cached file, but in a virtual machine that
// shadows the guest's page tables it costs tens of microseconds, and those
// faults are a large part of `testresults run -- true`'s overhead there.
// Asking the kernel to fill the page table for a whole mapping
// (MADV_POPULATE_READ, MADV_POPULATE_WRITE; Linux 5.14 or later) costs a
// fraction of that there, and about what the faults cost where they are
// cheap. The initialised data, written to anyway, is copied whole: about
// 0.8 MB of private memory in each process, where its faults copied about
// a third of it.
//
// The binary's mappings are those of the file that maps the package's own
// data, wherever the kernel placed them. One is populated only when the
// pages sampled across its part of the file are all in the page cache (read
// with RWF_NOWAIT, which fails rather than wait for the disk): a cold start
// reads no more of the binary than its faults would, but for the odd page
// the sample missed. A kernel or sandbox that refuses the calls leaves the
// process to fault as usual; so does an architecture other than amd64 and
// arm64, whose preadv2 the package does not call.
// TESTRESULTS_PREFAULT=0 turns it off, for a seccomp filter that kills
// rather than refuses. The package does its work in init; import it for
// that effect alone, from a main package. Go initialises packages in
// import path order among those ready, so the standard library's inits
// that sort before it fault as usual.
package prefault
