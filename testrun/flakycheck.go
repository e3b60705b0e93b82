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
// repository, asking score once a repository with that repository's test
// ids, each once, in the order of entries. The score of an entry score did
// not answer for is nil.
func ScoreEntries(entries []FlakyEntry, score func(repo string, ids []string) (map[string]Flakiness, error)) ([]*Flakiness, error) {
	var repos []string
	ids, seen := map[string][]string{}, map[[2]string]bool{}
	for _, e := range entries {
		if k := [2]string{e.Repository, e.TestID}; !seen[k] {
			seen[k] = true
			if ids[e.Repository] == nil {
				repos = append(repos, e.Repository)
			}
			ids[e.Repository] = append(ids[e.Repository], e.TestID)
		}
	}
	scores := map[string]map[string]Flakiness{}
	for _, repo := range repos {
		s, err := score(repo, ids[repo])
		if err != nil {
			return nil, err
		}
		scores[repo] = s
	}
	out := make([]*Flakiness, len(entries))
	for i, e := range entries {
		if f, ok := scores[e.Repository][e.TestID]; ok {
			out[i] = &f
		}
	}
	return out, nil
}
