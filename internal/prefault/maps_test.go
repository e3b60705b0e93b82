package prefault

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOwnMappingsStatic(t *testing.T) {
	maps := []byte(`00400000-01283000 r-xp 00000000 fe:00 9977876                            /usr/local/bin/testresults
01283000-02339000 r--p 00e83000 fe:00 9977876                            /usr/local/bin/testresults
02339000-02401000 rw-p 01f39000 fe:00 9977876                            /usr/local/bin/testresults
02401000-04453000 rw-p 00000000 00:00 0 
309508000000-309508c00000 ---p 00000000 00:00 0 
7f4095b75000-7f4095b77000 r-xp 00000000 00:00 0                          [vdso]
7fff472b0000-7fff472d1000 rw-p 00000000 00:00 0                          [stack]
`)
	require.Equal(t, []mapping{
		{lo: 0x400000, hi: 0x1283000, perm: "r-xp", path: "/usr/local/bin/testresults"},
		{lo: 0x1283000, hi: 0x2339000, perm: "r--p", path: "/usr/local/bin/testresults"},
		{lo: 0x2339000, hi: 0x2401000, perm: "rw-p", path: "/usr/local/bin/testresults"},
	}, ownMappings(maps))
}

// A dynamically linked, position-independent binary: its loader and
// libraries are not its own, and a path with spaces or a deleted file keeps
// its whole name.
func TestOwnMappingsDynamic(t *testing.T) {
	const exe = "/home/a user/bin/testresults (deleted)"
	maps := []byte(`55d1c0a00000-55d1c0c00000 r--p 00000000 08:01 131 ` + exe + `
55d1c0c00000-55d1c1800000 r-xp 00200000 08:01 131 ` + exe + `
55d1c1800000-55d1c1900000 rw-p 00e00000 08:01 131 ` + exe + `
7f0000000000-7f0000100000 r-xp 00000000 08:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000200000-7f0000220000 r-xp 00000000 08:01 78 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2`)
	own := ownMappings(maps)
	require.Len(t, own, 3)
	for _, m := range own {
		require.Equal(t, exe, m.path)
	}
	require.Equal(t, "r-xp", own[1].perm)
	require.Equal(t, uintptr(0x55d1c0c00000), own[1].lo)
}

func TestOwnMappingsRefused(t *testing.T) {
	for name, maps := range map[string]string{
		"empty":             "",
		"anonymous first":   "02401000-04453000 rw-p 00000000 00:00 0 \n00400000-01283000 r-xp 00000000 fe:00 1 /bin/x\n",
		"not hex":           "0040z000-01283000 r-xp 00000000 fe:00 1 /bin/x\n",
		"no end":            "00400000 r-xp 00000000 fe:00 1 /bin/x\n",
		"end before start":  "01283000-00400000 r-xp 00000000 fe:00 1 /bin/x\n",
		"too long a number": "100000000000000000-100000000000000001 r-xp 0 0 1 /bin/x\n",
		"cut short":         "00400000-01283000 r-",
		"missing fields":    "00400000-01283000 r-xp 00000000\n",
	} {
		t.Run(name, func(t *testing.T) {
			require.Empty(t, ownMappings([]byte(maps)))
		})
	}
	// A line that does not parse ends the list; what came before stands.
	own := ownMappings([]byte("00400000-01283000 r-xp 00000000 fe:00 1 /bin/x\ngarbage\n01283000-02339000 r--p 0 fe:00 1 /bin/x\n"))
	require.Len(t, own, 1)
}

func FuzzOwnMappings(f *testing.F) {
	f.Add([]byte("00400000-01283000 r-xp 00000000 fe:00 9977876 /bin/x\n01283000-02339000 r--p 00e83000 fe:00 9977876 /bin/x\n"))
	f.Add([]byte("0-1 rwxp 0 0 0 \n"))
	f.Fuzz(func(t *testing.T, maps []byte) {
		own := ownMappings(maps)
		for _, m := range own {
			if m.hi <= m.lo || m.path == "" || m.path != own[0].path || len(m.perm) != 4 {
				t.Fatalf("bad mapping %+v in %q", m, maps)
			}
		}
	})
}
