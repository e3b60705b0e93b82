package testrun

import "iter"

// Feed adds one report's executions to a Builder while the report is
// still being read: a parser hands them over in batches, as it reads them,
// and they may be merged on another goroutine than the Builder's, beside
// the parser, into a state kept apart from the Builder's. End then adds
// the report, with its executions, as AddReport does; a report that turned
// out to be refused adds none of them, since a report is read whole or not
// at all.
//
// Add may be called by any one goroutine at a time; End, by the
// Builder's, once the last Add has returned and is ordered before it (by
// a channel, say). The Builder must not be used between Feed and End.
type Feed struct {
	b     *Builder
	stage *Builder
	// touched sums the slots of the id index Add reads ahead, so that
	// the reads are not left out (see idIndex.touch).
	touched uint64
}

// feedGroup is how many executions Add copies before it merges them: their
// ids' slots in the index are read together first (see idIndex.touch).
const feedGroup = 16

// Feed starts adding a report's executions; End ends it.
func (b *Builder) Feed() *Feed {
	return &Feed{b: b, stage: &Builder{cfg: b.cfg}}
}

// FeedSized is Feed for a report expected to hold about n distinct test
// ids: the index of its ids is made that size at once, rather than grown
// (and each id hashed again) as they come. n only sizes the builder; a
// report may hold more or fewer.
func (b *Builder) FeedSized(n int) *Feed {
	f := b.Feed()
	f.stage.reserve(max(n, 0))
	return f
}

// Add merges the next executions of the report, in order, on the calling
// goroutine. The Execution execs passes may be reused once yield returns.
func (f *Feed) Add(execs iter.Seq[*Execution]) {
	st := f.stage
	var group [feedGroup]Execution
	var hashes [feedGroup]uint32
	n := 0
	merge := func() {
		var touched uint64
		for i := range n {
			hashes[i] = st.ids.hash(group[i].ID)
			touched += st.ids.touch(hashes[i])
		}
		for i := range n {
			st.addExecutionHashed(&group[i], hashes[i])
		}
		f.touched += touched
		n = 0
	}
	for e := range execs {
		st.tests = true
		group[n] = *e
		n++
		if n == feedGroup {
			merge()
		}
	}
	merge()
}

// End adds the report as AddReport does: info describes it (a refused or
// skipped report adds no execution, whatever was fed) and cov is the
// coverage it states. Like AddReport, it counts a report with info.Tests
// set as a test report even when it holds no case.
func (f *Feed) End(info ReportInfo, cov *CoverageReport) {
	b, stage := f.b, f.stage
	f.stage = nil
	b.addReport(info, cov, func() {
		if info.Tests != nil || stage.tests {
			b.tests = true
		}
		b.absorb(stage)
	})
}

// absorb merges the executions added to stage after those already added
// to b, as if they had been added to b one by one.
func (b *Builder) absorb(stage *Builder) {
	b.reasons = append(b.reasons, stage.reasons...)
	if b.cases.len() == 0 && len(b.names) == 0 {
		// The run's first test report: its state becomes the run's.
		b.ids, b.cases, b.more = stage.ids, stage.cases, stage.more
		b.scopes, b.names, b.last, b.lastScope = stage.scopes, stage.names, stage.last, stage.lastScope
		b.msgs, b.locs = stage.msgs, stage.locs
		return
	}
	b.reserve(stage.cases.len())
	for i := range int32(stage.cases.len()) {
		c := stage.cases.at(i)
		j, h := b.ids.find(c.id, &b.cases)
		if j < 0 {
			j = b.cases.add(caseState{id: c.id, dur: c.dur, first: scopeState{scope: b.scopeIndex(stage.names[c.first.scope])}})
			b.ids.insert(h, j)
		} else if d := &b.cases.at(j).dur; *d >= 0 {
			// Both terms are within 0..MaxCaseDuration: the sum cannot
			// wrap.
			if c.dur < 0 || *d+c.dur > MaxCaseDuration {
				*d = -1
			} else {
				*d += c.dur
			}
		}
		if bc := b.cases.at(j); bc.loc == 0 && c.loc > 0 {
			// The first report that says where the test is written wins.
			b.locs = append(b.locs, stage.locs[c.loc-1])
			bc.loc = int32(len(b.locs))
		}
		b.absorbScope(j, stage, &c.first)
		more := stage.more[i]
		for k := range more {
			b.absorbScope(j, stage, &more[k])
		}
	}
}

// absorbScope merges st, the history of a test in one suite as stage
// holds it, into the history of the test at index i in b: the later
// attempts are stage's.
func (b *Builder) absorbScope(i int32, stage *Builder, st *scopeState) {
	s := b.scope(i, b.scopeIndex(stage.names[st.scope]))
	s.outcome = st.outcome
	msg := ""
	if st.msg > 0 {
		msg = stage.msgs[st.msg-1]
	}
	b.setMessage(s, msg)
	s.passed = s.passed || st.passed
	s.failed = s.failed || st.failed
	s.flaky = s.flaky || st.flaky
}
