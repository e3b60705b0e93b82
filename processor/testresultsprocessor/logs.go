package testresultsprocessor

import (
	"context"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/hangar-dev/testresults/semconv"
)

// processLogs applies the trust rules to the runs carried as log-based
// events: every log record whose event name (LogRecord.EventName) is exactly
// test.run is a run, and its hangar.test.run.trusted and
// hangar.test.run.counted are recomputed in place, from its attributes and
// its sender, as on a test.run span event. A record does not name the span
// that carries the run, so span_names does not apply: every test.run record
// is judged. Every other copy of the flags is removed: on every resource
// and scope, on every record that is not test.run (whatever its event.name
// attribute or body say), spellings other than the canonical keys on
// test.run records, and every spelling in the map body of any record.
// Apart from these attributes, nothing is added, removed or reordered.
func (p *testresultsProcessor) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	var st stats
	checked := false
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		// As for spans: the sender is judged on the resource as it was
		// sent, once a run is found in it, before its flags are removed.
		sourceKnown, from := false, senderUntrusted
		warnedSource := false
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			sl := sls.At(j)
			st.removed += removeFlags(sl.Scope().Attributes())
			records := sl.LogRecords()
			for k := 0; k < records.Len(); k++ {
				lr := records.At(k)
				st.removed += removeBodyFlags(lr.Body())
				if lr.EventName() != semconv.EventTestRun {
					st.removed += removeFlags(lr.Attributes())
					continue
				}
				if !sourceKnown {
					from = p.sources.judge(ctx, rl.Resource())
					sourceKnown = true
				}
				if !checked {
					p.warnings.check(ctx)
					checked = true
				}
				st.removed += removeFlagVariants(lr.Attributes())
				processRun(lr.Attributes(), from, &st)
				if from == senderUntrusted && !warnedSource {
					p.untrusted.check(ctx, rl.Resource())
					warnedSource = true
				}
			}
		}
		st.removed += removeFlags(rl.Resource().Attributes())
	}
	if st != (stats{}) {
		p.telemetry.record(ctx, &st)
	}
	return ld, nil
}

// removeBodyFlags removes every spelling of the flags from a map body (the
// top level, where a reader of log-based events looks for fields): a body
// is never where a run's flags are, whatever the record.
func removeBodyFlags(body pcommon.Value) int64 {
	if body.Type() != pcommon.ValueTypeMap {
		return 0
	}
	return removeFlags(body.Map())
}
