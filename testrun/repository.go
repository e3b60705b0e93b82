package testrun

// CommonRepository is the one repository runs were recorded under, whose
// history may score them: repoOf answers for each run by its id ("" when
// it is not stored or has none). It is "" when no run has one, or when
// they name different ones: no one history then scores them. An error of
// repoOf is returned as it is.
func CommonRepository(runs []*Run, repoOf func(runID string) (string, error)) (string, error) {
	repo := ""
	for _, r := range runs {
		got, err := repoOf(r.ID)
		switch {
		case err != nil:
			return "", err
		case got == "":
		case repo != "" && got != repo:
			return "", nil
		default:
			repo = got
		}
	}
	return repo, nil
}
