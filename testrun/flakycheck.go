package testrun

import "time"

// ExcuseByEntries is Excuse with the list's entries: the failures of after
// (the new ones against base when base is not nil: Compare(base, after))
// that an entry on the list excuses for a job that started at jobStart
// (FlakyEntry.Excused). lookup returns the entries of the ids it is given
// that the list holds; those are returned too, by id, for the answer's
// detail.
func ExcuseByEntries(after, base *Run, jobStart time.Time, lookup func(ids []string) (map[string]FlakyEntry, error)) (Excusal, map[string]FlakyEntry, error) {
	var cmp *Comparison
	if base != nil {
		x := Compare(base, after)
		cmp = &x
	}
	var entries map[string]FlakyEntry
	e, err := Excuse(after, cmp, func(ids []string) (map[string]bool, error) {
		var err error
		if entries, err = lookup(ids); err != nil {
			return nil, err
		}
		on := make(map[string]bool, len(entries))
		for id, en := range entries {
			on[id] = en.Excused(jobStart)
		}
		return on, nil
	})
	if err != nil {
		return Excusal{}, nil, err
	}
	return e, entries, nil
}

// ScoreEntries gives each entry its test's flakiness score in its
// repository and environment, asking score once a (repository,
// environment) pair, in the order of entries, with that pair's test ids,
// each once: a test flaky on one environment is not scored by another's
// runs. The score of an entry score did not answer for is nil.
func ScoreEntries(entries []FlakyEntry, score func(repo, env string, ids []string) (map[string]Flakiness, error)) ([]*Flakiness, error) {
	type where struct{ repo, env string }
	var order []where
	ids, seen := map[where][]string{}, map[[3]string]bool{}
	for _, e := range entries {
		w := where{e.Repository, e.Environment}
		if k := [3]string{w.repo, w.env, e.TestID}; !seen[k] {
			seen[k] = true
			if ids[w] == nil {
				order = append(order, w)
			}
			ids[w] = append(ids[w], e.TestID)
		}
	}
	scores := map[where]map[string]Flakiness{}
	for _, w := range order {
		s, err := score(w.repo, w.env, ids[w])
		if err != nil {
			return nil, err
		}
		scores[w] = s
	}
	out := make([]*Flakiness, len(entries))
	for i, e := range entries {
		if f, ok := scores[where{e.Repository, e.Environment}][e.TestID]; ok {
			out[i] = &f
		}
	}
	return out, nil
}
