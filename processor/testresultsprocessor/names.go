package testresultsprocessor

// nameSet answers "is this span one of ours?" for every span that passes, so
// it must be cheap and never allocate: a bit per possible name length rules
// out most foreign names before any byte is compared.
type nameSet struct {
	lengths uint64 // bit n set: some name has length n (n < 64)
	long    bool   // some name is 64 bytes or longer
	names   []string
}

func newNameSet(names []string) nameSet {
	s := nameSet{names: append([]string(nil), names...)}
	for _, n := range names {
		if len(n) < 64 {
			s.lengths |= 1 << uint(len(n))
		} else {
			s.long = true
		}
	}
	return s
}

func (s *nameSet) has(name string) bool {
	if n := len(name); n < 64 {
		if s.lengths&(1<<uint(n)) == 0 {
			return false
		}
	} else if !s.long {
		return false
	}
	for _, n := range s.names {
		if n == name {
			return true
		}
	}
	return false
}
