package main

import (
	"context"

	"github.com/hangar-dev/testresults/internal/clidoc"
)

func init() {
	register(command{name: "man", synopsis: "print the manual page (roff, section 1): man -l <(testresults man)", run: runMan})
}

func runMan(_ context.Context, args []string, env Env) error {
	fs := newFlagSet("man")
	cf := flagsFor("man", clidoc.Help("man"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cf.usageErr("man takes no arguments")
	}
	return clidoc.Man(env.Stdout, cliCommands(), clidoc.ExitCodes)
}
