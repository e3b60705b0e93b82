package testrun

// Latest is what a job's or a session's summary shows of its runs: the
// latest counted run, the base it is compared with, and whether they are
// compared.
type Latest struct {
	// Run is the index of the latest counted run (Counted) in recorded
	// order, -1 when no run is counted.
	Run int
	// Base is the index of the latest run of kind base, counted or not,
	// -1 when there is none.
	Base int
	// Compared is true when the summary compares Run with Base: both are
	// there and they are not the same run (the latest counted run may be
	// the base run itself).
	Compared bool
}

// ChooseLatest chooses, among runs in the order they were recorded, the
// latest counted run and the latest base run. A later run replaces an
// earlier one whatever its times say: the order of recording is the order
// of the job. Nil runs are skipped.
func ChooseLatest(runs []*Run) Latest {
	l := Latest{Run: -1, Base: -1}
	for i, r := range runs {
		if r == nil {
			continue
		}
		if r.Counted() {
			l.Run = i
		}
		if r.Kind == KindBase {
			l.Base = i
		}
	}
	l.Compared = l.Run >= 0 && l.Base >= 0 && runs[l.Run].ID != runs[l.Base].ID
	return l
}
