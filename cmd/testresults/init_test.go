package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// What the binary's package initialisation may allocate, with about twice
// today's figures as a margin (about 700 KB in 6,300 allocations in all;
// 61 KB at most in one package, 58 KB in one of this module's).
// Allocations, unlike clock time, are the same on a busy machine and an
// idle one. A package that does real work
// when it is initialised (compiling schemas, templates or large patterns
// that a command might never use) pays it on every command, `run -- true`
// included: do that work on first use instead.
const (
	maxInitBytes      = 1_400_000
	maxInitAllocs     = 13_000
	maxPackageInitB   = 256_000 // any package
	maxOwnInitB       = 128_000 // a package of this module
	ownModule         = "github.com/hangar-dev/testresults"
	initOffendersShow = 8
)

// initCost is what GODEBUG=inittrace=1 reports of one package's init.
type initCost struct {
	pkg           string
	bytes, allocs int64
}

var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// parseInitTrace reads the init lines of GODEBUG=inittrace=1 output.
func parseInitTrace(out []byte) []initCost {
	var costs []initCost
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := initLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		b, _ := strconv.ParseInt(m[2], 10, 64)
		a, _ := strconv.ParseInt(m[3], 10, 64)
		costs = append(costs, initCost{pkg: m[1], bytes: b, allocs: a})
	}
	return costs
}

// offenders names the packages whose init allocates most.
func offenders(costs []initCost, n int) string {
	s := append([]initCost(nil), costs...)
	sort.Slice(s, func(i, j int) bool { return s[i].bytes > s[j].bytes })
	var b strings.Builder
	for i, c := range s {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "\n  %9d bytes %6d allocs  %s", c.bytes, c.allocs, c.pkg)
	}
	return b.String()
}

// TestInitAllocations bounds what the built binary allocates before main
// runs, summed over the init of every package it links: the start-up cost
// every command pays, `testresults run -- true` included.
func TestInitAllocations(t *testing.T) {
	bin := builtBinary(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "%s", stderr.Bytes())
	costs := parseInitTrace(stderr.Bytes())
	require.Greater(t, len(costs), 50, "GODEBUG=inittrace=1 printed no init lines:\n%s", stderr.Bytes())

	var bytesTotal, allocsTotal int64
	for _, c := range costs {
		bytesTotal += c.bytes
		allocsTotal += c.allocs
		limit := int64(maxPackageInitB)
		if c.pkg == "main" || c.pkg == ownModule || strings.HasPrefix(c.pkg, ownModule+"/") {
			limit = maxOwnInitB
		}
		if c.bytes > limit {
			t.Errorf("the init of %s allocates %d bytes in %d allocations, more than %d: move that work to first use",
				c.pkg, c.bytes, c.allocs, limit)
		}
	}
	t.Logf("package init: %d packages, %d bytes in %d allocations; the largest:%s",
		len(costs), bytesTotal, allocsTotal, offenders(costs, initOffendersShow))
	if bytesTotal > maxInitBytes || allocsTotal > maxInitAllocs {
		t.Errorf("package init allocates %d bytes in %d allocations, more than %d bytes or %d allocations; the largest:%s",
			bytesTotal, allocsTotal, maxInitBytes, maxInitAllocs, offenders(costs, initOffendersShow))
	}
}

func TestParseInitTrace(t *testing.T) {
	out := []byte("init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs\n" +
		"init github.com/santhosh-tekuri/jsonschema/v6 @6.1 ms, 5.9 ms clock, 1700624 bytes, 21280 allocs\n" +
		"testresults (devel)\n")
	require.Equal(t, []initCost{
		{pkg: "internal/bytealg"},
		{pkg: "github.com/santhosh-tekuri/jsonschema/v6", bytes: 1700624, allocs: 21280},
	}, parseInitTrace(out))
	require.Contains(t, offenders(parseInitTrace(out), 1), "1700624 bytes  21280 allocs  github.com/santhosh-tekuri/jsonschema/v6")
}
