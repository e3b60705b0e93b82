package store

import (
	"container/list"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hangar-dev/testresults/testrun"
)

// maxCachedRunBytes bounds the stored JSON, in bytes, of the runs a store
// keeps parsed (the parsed runs take a small multiple of it).
const maxCachedRunBytes = 32 << 20

// runCache keeps runs read from their stored JSON form (run_json, without
// cases), most recently used first. Reading a run back is strict
// (testrun.ReadRun) and costs more than the query that fetched it, and the
// query API reads the same runs again and again. Entries are keyed by the
// stored bytes themselves, so a run is taken from the cache only when what
// was read now is byte for byte what it was parsed from: the result is the
// one ReadRun would give. Callers get a deep copy: nothing they change
// reaches the cache.
type runCache struct {
	mu     sync.Mutex
	max    int
	size   int
	byForm map[string]*list.Element
	order  list.List // of *cachedRun, most recent first
}

type cachedRun struct {
	form string
	run  *testrun.Run
}

func newRunCache(maxBytes int) *runCache {
	return &runCache{max: maxBytes, byForm: map[string]*list.Element{}}
}

// read returns the run whose stored form is form, parsed now or before.
func (c *runCache) read(form string) (*testrun.Run, error) {
	if r := c.get(form); r != nil {
		return r, nil
	}
	r, err := testrun.ReadRun(strings.NewReader(form))
	if err != nil {
		return nil, err
	}
	c.put(form, r)
	return cloneRun(r), nil
}

func (c *runCache) get(form string) *testrun.Run {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byForm[form]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return cloneRun(e.Value.(*cachedRun).run)
}

func (c *runCache) put(form string, r *testrun.Run) {
	if len(form) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byForm[form]; ok {
		return
	}
	c.byForm[form] = c.order.PushFront(&cachedRun{form: form, run: r})
	c.size += len(form)
	for c.size > c.max {
		e := c.order.Back()
		cr := e.Value.(*cachedRun)
		c.order.Remove(e)
		delete(c.byForm, cr.form)
		c.size -= len(cr.form)
	}
}

// cloneRun copies r and everything it points to.
func cloneRun(r *testrun.Run) *testrun.Run {
	out := *r
	if r.ExitCode != nil {
		n := *r.ExitCode
		out.ExitCode = &n
	}
	if r.Counts != nil {
		c := *r.Counts
		out.Counts = &c
	}
	out.IncompleteReasons = slices.Clone(r.IncompleteReasons)
	out.Failures = slices.Clone(r.Failures)
	out.Flaky = slices.Clone(r.Flaky)
	if r.NotRun != nil {
		nr := *r.NotRun
		nr.IDs = slices.Clone(nr.IDs)
		out.NotRun = &nr
	}
	out.Cases = maps.Clone(r.Cases)
	out.Durations = maps.Clone(r.Durations)
	if r.Coverage != nil {
		cov := *r.Coverage
		cov.LineRate = clonePtr(cov.LineRate)
		cov.LinesCovered = clonePtr(cov.LinesCovered)
		cov.LinesValid = clonePtr(cov.LinesValid)
		out.Coverage = &cov
	}
	if r.Reports != nil {
		out.Reports = make([]testrun.ReportInfo, len(r.Reports))
		for i, rep := range r.Reports {
			rep.Tests = clonePtr(rep.Tests)
			out.Reports[i] = rep
		}
	}
	return &out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
