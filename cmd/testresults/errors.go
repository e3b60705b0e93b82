package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitRejected = 3
)

// A subcommand returns one of the errors below, or any other error (exit 1);
// run alone turns them into an exit code and prints their message as
// "testresults CMD: message" on stderr.

// usageError is a usage mistake (a flag combination that cannot work): exit
// 2, the message, a blank line and the command's usage on stderr. Code
// below a command returns it with usagef; the command gives it its usage
// with cmdFlags.usageErr.
type usageError struct {
	msg   string
	usage string
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// helpRequest is --help: the command's usage on stdout, exit 0. It wraps
// pflag.ErrHelp, and carries the command's flags for completion and the
// man page.
type helpRequest struct {
	usage string
	flags *cmdFlags
}

func (e *helpRequest) Error() string { return pflag.ErrHelp.Error() }
func (e *helpRequest) Unwrap() error { return pflag.ErrHelp }

// inputError is input the command refused (limits, hostile, unreadable
// or invalid report or run): exit 3.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// rejected wraps err as input rejected (exit 3).
func rejected(err error) error { return &inputError{err: err} }

// rejectedf is rejected with a formatted message.
func rejectedf(format string, a ...any) error { return rejected(fmt.Errorf(format, a...)) }

// exitCode ends the command with an explicit code, for the commands whose
// code is a check's own (run, pair) or whose output already said why. A
// message is printed only when msg is set; code 0 means success.
type exitCode struct {
	code int
	msg  string
}

func (e *exitCode) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("exit code %d", e.code)
}

// withCode ends the command with code and no message (nil for 0).
func withCode(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitCode{code: code}
}

// failedIf ends the command with exit 1, no message, when failed: a check,
// a comparison or a verification that said no, and printed why.
func failedIf(failed bool) error {
	if failed {
		return withCode(exitFailed)
	}
	return nil
}

// subError is an error of a command's own subcommand (flaky record): run
// prints it as "testresults CMD SUB: message".
type subError struct {
	sub string
	err error
}

func (e *subError) Error() string { return e.err.Error() }
func (e *subError) Unwrap() error { return e.err }

// cmdFlags is a subcommand's flag set and the usage text printed before
// its flags.
type cmdFlags struct {
	name  string
	usage string
	fs    *pflag.FlagSet
}

// flagsFor pairs the flag set of the command name with its usage text.
func flagsFor(name, usage string, fs *pflag.FlagSet) *cmdFlags {
	return &cmdFlags{name: name, usage: usage, fs: fs}
}

// newFlagSet is the flag set every subcommand starts from: errors are
// returned, never printed or fatal.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return fs
}

// text is the full usage: the command's text, then its flags.
func (c *cmdFlags) text() string { return c.usage + c.fs.FlagUsages() }

// parse parses args; --help and flag mistakes come back as errors for run.
func (c *cmdFlags) parse(args []string) error {
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return &helpRequest{usage: c.text(), flags: c}
		}
		return c.usageErr("%v", err)
	}
	return nil
}

// usageErr is a usage error that prints this command's usage.
func (c *cmdFlags) usageErr(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), usage: c.text()}
}

// commandArgs is the check's command line, after -- on the command line of
// a command that runs one (run, pair).
func (c *cmdFlags) commandArgs() ([]string, error) {
	argv := c.fs.Args()
	switch {
	case len(argv) == 0:
		return nil, c.usageErr("no command given (testresults %s [flags] -- CMD [ARGS...])", c.name)
	case c.fs.ArgsLenAtDash() != 0:
		return nil, c.usageErr("put the command after --: testresults %s [flags] -- %s", c.name, strings.Join(argv, " "))
	}
	return argv, nil
}

// withUsage gives a usage error that code below the command made (usagef)
// this command's usage; other errors are returned as they are.
func (c *cmdFlags) withUsage(err error) error {
	var ue *usageError
	if errors.As(err, &ue) && ue.usage == "" {
		return c.usageErr("%s", ue.msg)
	}
	return err
}

// exitFor prints what err says for the command name and returns the
// process's exit code.
func exitFor(name string, err error, env Env) int {
	if err == nil {
		return exitOK
	}
	var se *subError
	if errors.As(err, &se) {
		name += " " + se.sub
	}
	var (
		help *helpRequest
		ue   *usageError
		ec   *exitCode
		rej  *inputError
	)
	switch {
	case errors.As(err, &help):
		fmt.Fprint(env.Stdout, help.usage)
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "testresults %s: %s\n\n%s", name, ue.msg, ue.usage)
		return exitUsage
	case errors.As(err, &ec):
		if ec.msg != "" {
			fmt.Fprintf(env.Stderr, "testresults %s: %s\n", name, ec.msg)
		}
		return ec.code
	}
	fmt.Fprintf(env.Stderr, "testresults %s: %v\n", name, err)
	if errors.As(err, &rej) {
		return exitRejected
	}
	return exitFailed
}
