package prefault

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Addresses stay under 4 GiB, so that the tests hold where a uintptr has
// 32 bits.

func TestOwnMappingsStatic(t *testing.T) {
	const exe = "/usr/local/bin/testresults"
	maps := []byte(`00400000-01283000 r-xp 00000000 fe:00 9977876                            ` + exe + `
01283000-02339000 r--p 00e83000 fe:00 9977876                            ` + exe + `
02339000-02401000 rw-p 01f39000 fe:00 9977876                            ` + exe + `
02401000-04453000 rw-p 00000000 00:00 0 
30950000-30a00000 ---p 00000000 00:00 0 
7f409000-7f40a000 r-xp 00000000 00:00 0                          [vdso]
7fff4000-7fff5000 rw-p 00000000 00:00 0                          [stack]
`)
	require.Equal(t, []mapping{
		{lo: 0x400000, hi: 0x1283000, perm: "r-xp", offset: 0, file: "fe:00 9977876 " + exe, path: exe},
		{lo: 0x1283000, hi: 0x2339000, perm: "r--p", offset: 0xe83000, file: "fe:00 9977876 " + exe, path: exe},
		{lo: 0x2339000, hi: 0x2401000, perm: "rw-p", offset: 0x1f39000, file: "fe:00 9977876 " + exe, path: exe},
	}, ownMappings(maps, 0x4912c0))
}

// A position-independent, dynamically linked binary: the heap may come
// first, its loader and libraries are not its own, a shared mapping of it is
// left alone, and a path with spaces or a deleted file keeps its whole name.
func TestOwnMappingsPIE(t *testing.T) {
	const exe = "/home/a user/bin/testresults (deleted)"
	maps := []byte(`0c000000-0c400000 rw-p 00000000 00:00 0 
55d1c000-55d1e000 r--p 00000000 08:01 131 ` + exe + `
55d1e000-55d2a000 r-xp 00200000 08:01 131 ` + exe + `
55d2a000-55d2b000 rw-p 00e00000 08:01 131 ` + exe + `
55d2b000-55d2c000 rw-s 00e00000 08:01 131 ` + exe + `
5f000000-5f100000 r-xp 00000000 08:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6
5f200000-5f220000 r-xp 00000000 08:01 78 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
5f300000-5f301000 r--p 00000000 08:02 131 ` + exe + `
`)
	own := ownMappings(maps, 0x55d1f000)
	require.Len(t, own, 3)
	for _, m := range own {
		require.Equal(t, exe, m.path)
		require.Equal(t, byte('p'), m.perm[3])
	}
	require.Equal(t, "r-xp", own[1].perm)
	require.Equal(t, uintptr(0x55d1e000), own[1].lo)
	require.Equal(t, uintptr(0x200000), own[1].offset)
	// Code in a library: the library's mappings, not the binary's.
	require.Len(t, ownMappings(maps, 0x5f000100), 1)
}

func TestOwnMappingsRefused(t *testing.T) {
	for name, maps := range map[string]string{
		"empty":             "",
		"code not mapped":   "00400000-01283000 r-xp 00000000 fe:00 1 /bin/x\n",
		"code anonymous":    "00001000-00002000 r-xp 00000000 00:00 0 \n",
		"not hex":           "0040z000-01283000 r-xp 00000000 fe:00 1 /bin/x\n",
		"no end":            "00001000 r-xp 00000000 fe:00 1 /bin/x\n",
		"end before start":  "01283000-00001000 r-xp 00000000 fe:00 1 /bin/x\n",
		"too long a number": "100000000000000000-100000000000000001 r-xp 0 0 1 /bin/x\n",
		"cut short":         "00001000-01283000 r-",
		"missing fields":    "00001000-01283000 r-xp 00000000\n",
		"offset not hex":    "00001000-01283000 r-xp 0000z000 fe:00 1 /bin/x\n",
	} {
		t.Run(name, func(t *testing.T) {
			require.Empty(t, ownMappings([]byte(maps), 0x1800))
		})
	}
	// A line that does not parse ends the reading; what came before stands.
	own := ownMappings([]byte("00001000-01283000 r-xp 00000000 fe:00 1 /bin/x\ngarbage\n01283000-02339000 r--p 0 fe:00 1 /bin/x\n"), 0x1800)
	require.Len(t, own, 1)
}

func TestWholeLines(t *testing.T) {
	require.Equal(t, "a\nb\n", string(wholeLines([]byte("a\nb\n"), true)))
	require.Equal(t, "a\n", string(wholeLines([]byte("a\n/bin/tes"), true)))
	require.Equal(t, "", string(wholeLines([]byte("/bin/tes"), true)))
	require.Equal(t, "a\n/bin/x", string(wholeLines([]byte("a\n/bin/x"), false)))
}

func FuzzOwnMappings(f *testing.F) {
	f.Add([]byte("00400000-01283000 r-xp 00000000 fe:00 9977876 /bin/x\n01283000-02339000 r--p 00e83000 fe:00 9977876 /bin/x\n"), uint32(0x400100))
	f.Add([]byte("0-1 rwxp 0 0 0 \n"), uint32(0))
	f.Fuzz(func(t *testing.T, maps []byte, code uint32) {
		own := ownMappings(maps, uintptr(code))
		for _, m := range own {
			if m.hi <= m.lo || m.path == "" || m.file != own[0].file || len(m.perm) != 4 || m.perm[3] != 'p' {
				t.Fatalf("bad mapping %+v in %q", m, maps)
			}
		}
	})
}
