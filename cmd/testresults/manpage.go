package main

import (
	"context"

	"github.com/hangar-dev/testresults/internal/clidoc"
)

func init() {
	register(command{name: "man", synopsis: "print the manual page (roff, section 1): man -l <(testresults man)", run: runMan})
}

const manUsage = `Usage: testresults man

Prints the manual page of testresults on stdout, in roff (man(7), section
1), made from the same usage text and flag sets that --help prints. To read
it: man -l <(testresults man); to install it: testresults man >
/usr/local/share/man/man1/testresults.1.

Flags:
`

func runMan(_ context.Context, args []string, env Env) error {
	fs := newFlagSet("man")
	cf := flagsFor("man", manUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cf.usageErr("man takes no arguments")
	}
	return clidoc.Man(env.Stdout, cliCommands(), exitCodesText)
}
