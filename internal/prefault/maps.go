package prefault

import "unsafe"

// mapping is one line of /proc/self/maps: an address range, its
// permissions, the offset in the file it maps, and what identifies the
// file (device, inode and path; "" for anonymous memory).
type mapping struct {
	lo, hi uintptr
	perm   string
	offset uintptr
	file   string // "dev inode path", as the line gives them
	path   string
}

// maxHexDigits is the most hexadecimal digits a uintptr holds.
const maxHexDigits = 2 * int(unsafe.Sizeof(uintptr(0)))

// ownMappings returns the private mappings of the file that the mapping
// holding addr maps, addr being an address in the binary's data: the
// binary's own code and data, wherever the kernel placed them (a
// position-independent binary's may follow the heap) and whatever it shares
// the address space with (the loader, shared libraries). A line that does
// not parse ends the reading.
func ownMappings(maps []byte, addr uintptr) []mapping {
	var all []mapping
	file := ""
	for len(maps) > 0 {
		line, rest := maps, []byte(nil)
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
		all = append(all, m)
		if m.lo <= addr && addr < m.hi && m.path != "" {
			file = m.file
		}
	}
	if file == "" {
		return nil
	}
	var own []mapping
	for _, m := range all {
		if m.file == file && m.perm[3] == 'p' {
			own = append(own, m)
		}
	}
	return own
}

// wholeLines drops a last line without its newline when the read filled the
// buffer: the line was cut, and a cut path could name another file.
func wholeLines(b []byte, full bool) []byte {
	if !full || len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return b[:i+1]
		}
	}
	return b[:0]
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
				return v, i > start && i-start <= maxHexDigits
			}
		}
		return v, i > start && i-start <= maxHexDigits
	}
	field := func() []byte {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		start := i
		for i < len(line) && line[i] != ' ' {
			i++
		}
		return line[start:i]
	}
	var ok bool
	if m.lo, ok = hex(); !ok || i >= len(line) || line[i] != '-' {
		return mapping{}, false
	}
	i++
	if m.hi, ok = hex(); !ok || m.hi <= m.lo || i >= len(line) || line[i] != ' ' {
		return mapping{}, false
	}
	perm := field()
	if len(perm) != 4 {
		return mapping{}, false
	}
	m.perm = string(perm)
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if m.offset, ok = hex(); !ok || i >= len(line) || line[i] != ' ' {
		return mapping{}, false
	}
	dev, inode := field(), field()
	if len(dev) == 0 || len(inode) == 0 {
		return mapping{}, false
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	m.path = string(line[i:])
	if m.path != "" {
		m.file = string(dev) + " " + string(inode) + " " + m.path
	}
	return m, true
}
