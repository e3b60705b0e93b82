package testrun

// Failed reports whether c fails the run it compares: the comparison could
// not be made, or the run has new failures.
func (c Comparison) Failed() bool { return !c.Available || len(c.NewFailures) > 0 }
