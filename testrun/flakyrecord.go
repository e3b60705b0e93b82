package testrun

// FlakyRecord is what recording one run on the flaky list did: whether it
// was recorded (and why not: the error of CheckRecordable), how many test
// outcomes it added to the tree history and the tests it showed flaky. It
// is also the JSON line of `testresults flaky record`.
type FlakyRecord struct {
	Run      string                `json:"run"`
	Recorded bool                  `json:"recorded"`
	Reason   string                `json:"reason,omitempty"`
	Observed int                   `json:"observed"`
	Flaky    map[string][]FlakyHow `json:"flaky"`
}
