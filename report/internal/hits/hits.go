package hits

// Count reads a hit count: decimal digits of any length (tools write counts
// past 2^63, so it is never parsed into an integer), and reports whether it
// is not zero. ok is false for an empty count or one with any other byte.
func Count(b []byte) (hit, ok bool) {
	if len(b) == 0 {
		return false, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false, false
		}
		if c != '0' {
			hit = true
		}
	}
	return hit, true
}
