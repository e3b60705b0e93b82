package clidoc

import (
	"bytes"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testCommand() Command {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.String("kind", "", "the run's kind")
	require.NoError(nil, fs.SetAnnotation("kind", ValuesAnnotation, []string{"base", "gate"}))
	fs.StringArrayP("turn", "t", nil, "a turn\nsecond line")
	fs.Bool("json", false, "print JSON")
	return Command{Name: "x", Synopsis: "does x: well", Usage: "Usage: testresults x [flags]\n\n.dot first, -dash\n\nFlags:\n", Flags: fs, TakesCommand: true}
}

// TestFlags: a flag's values come from its annotation, arrays repeat, a
// boolean takes no value, and --help is always offered.
func TestFlags(t *testing.T) {
	got := Flags(testCommand().Flags)
	require.Len(t, got, 4)
	assert.Equal(t, Flag{Long: "kind", Usage: "the run's kind", Value: true, Values: []string{"base", "gate"}}, got[0])
	assert.Equal(t, Flag{Long: "turn", Short: "t", Usage: "a turn\nsecond line", Value: true, Repeat: true}, got[1])
	assert.False(t, got[2].Value)
	assert.Equal(t, "help", got[3].Long)
}

// TestScripts: each writer names the command, its flags and the fixed
// values; the man page escapes roff's control characters and hyphens.
func TestScripts(t *testing.T) {
	cmds := []Command{testCommand()}
	for _, name := range Shells {
		write, ok := Completion(name)
		require.True(t, ok, name)
		var b bytes.Buffer
		require.NoError(t, write(&b, cmds), name)
		for _, want := range []string{"x", "kind", "base gate", "turn"} {
			assert.Contains(t, b.String(), want, name)
		}
	}
	_, ok := Completion("tcsh")
	assert.False(t, ok, "no script for another shell")
	var b bytes.Buffer
	require.NoError(t, Man(&b, cmds, "Exit codes: 0 ok,\n 2 usage error."))
	man := b.String()
	assert.Contains(t, man, `\&.dot first, \-dash`, "a line may not start a roff request")
	assert.Contains(t, man, `\fB\-\-kind\fR`)
	assert.Contains(t, man, "Exit codes: 0 ok, 2 usage error.")
	assert.Equal(t, `a\e b\-c \[u2014]`, roffText("a\\ b-c —\x1b"))
}
