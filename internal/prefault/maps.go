package prefault

// mapping is one line of /proc/self/maps: an address range, its
// permissions and the file it maps ("" for anonymous memory).
type mapping struct {
	lo, hi uintptr
	perm   string
	path   string
}

// ownMappings returns the mappings of the file that the first line maps:
// the executable, which the kernel maps at the lowest addresses of a
// position-dependent binary. A position-independent or dynamically linked
// one has its loader and libraries mapped too; those are left out. Lines
// that do not parse end the list.
func ownMappings(maps []byte) []mapping {
	var own []mapping
	for len(maps) > 0 {
		line := maps
		rest := []byte(nil)
		for i, c := range maps {
			if c == '\n' {
				line, rest = maps[:i], maps[i+1:]
				break
			}
		}
		maps = rest
		m, ok := parseMapping(line)
		if !ok {
			break
		}
		if len(own) == 0 && m.path == "" {
			return nil
		}
		if m.path != "" && (len(own) == 0 || m.path == own[0].path) {
			own = append(own, m)
		}
	}
	return own
}

// parseMapping reads "lo-hi perm offset dev inode   path".
func parseMapping(line []byte) (mapping, bool) {
	var m mapping
	i := 0
	hex := func() (uintptr, bool) {
		start := i
		var v uintptr
		for ; i < len(line); i++ {
			c := line[i]
			switch {
			case '0' <= c && c <= '9':
				v = v<<4 | uintptr(c-'0')
			case 'a' <= c && c <= 'f':
				v = v<<4 | uintptr(c-'a'+10)
			default:
				return v, i > start && i-start <= 16
			}
		}
		return v, i > start && i-start <= 16
	}
	var ok bool
	if m.lo, ok = hex(); !ok || i >= len(line) || line[i] != '-' {
		return mapping{}, false
	}
	i++
	if m.hi, ok = hex(); !ok || m.hi <= m.lo || i+5 > len(line) || line[i] != ' ' {
		return mapping{}, false
	}
	m.perm = string(line[i+1 : i+5])
	// Skip the permissions, offset, device and inode: four fields.
	fields := 0
	for i < len(line) && fields < 5 {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if fields == 4 {
			break
		}
		for i < len(line) && line[i] != ' ' {
			i++
		}
		fields++
	}
	if fields < 4 {
		return mapping{}, false
	}
	m.path = string(line[i:])
	return m, true
}
