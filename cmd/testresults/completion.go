package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/hangar-dev/testresults/internal/clidoc"
)

func init() {
	register(command{name: "completion", synopsis: "print a shell completion script: bash, zsh or fish", run: runCompletion, words: clidoc.Shells})
}

func runCompletion(_ context.Context, args []string, env Env) error {
	fs := newFlagSet("completion")
	cf := flagsFor("completion", clidoc.Help("completion"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cf.usageErr("name one shell: bash, zsh or fish")
	}
	write, ok := clidoc.Completion(fs.Arg(0))
	if !ok {
		return cf.usageErr("unknown shell %q (bash, zsh or fish)", fs.Arg(0))
	}
	return write(env.Stdout, cliCommands())
}

// cliCommands describes every registered command, sorted by name, for
// completion and the man page: its usage text and flag set are what the
// command itself prints for --help (it is asked, with nothing else to
// touch), so a command needs no entry anywhere else to appear.
func cliCommands() []clidoc.Command {
	out := make([]clidoc.Command, 0, len(commands))
	for _, c := range commands {
		d := clidoc.Command{Name: c.name, Synopsis: c.synopsis, Words: c.words, TakesCommand: c.takesCommand, Flags: newFlagSet(c.name)}
		err := c.run(context.Background(), []string{"--help"}, Env{
			Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: io.Discard,
			Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
		})
		var help *helpRequest
		if errors.As(err, &help) && help.flags != nil {
			d.Usage, d.Flags = help.flags.usage, help.flags.fs
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b clidoc.Command) int { return strings.Compare(a.Name, b.Name) })
	return out
}
