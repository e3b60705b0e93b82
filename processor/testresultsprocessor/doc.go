// Package testresultsprocessor is the Collector traces processor of type
// testresults. On the spans that carry runs (job.verify, job.provision), it
// recomputes hangar.test.run.trusted and hangar.test.run.counted of every
// test.run event with the rules of package testrun, overwriting what the
// sender wrote, and forces both to false for senders that match no trusted
// source. It fails closed and passes every other span and event untouched.
package testresultsprocessor
