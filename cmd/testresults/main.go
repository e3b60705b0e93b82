// Command testresults turns the reports that test runners leave into
// structured, verifiable runs and exports them as OpenTelemetry spans.
//
// Exit codes: 0 ok, 1 the verdict or check failed (or an export failed),
// 2 usage error, 3 input rejected (limits, hostile or unreadable report).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/hangar-dev/testresults/internal/term"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitRejected = 3
)

// Env is what a subcommand may touch of the outside world, so that tests can
// run it in process.
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Environ func() []string
}

type command struct {
	name     string
	synopsis string
	run      func(ctx context.Context, args []string, env Env) int
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("testresults: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal cancels ctx (an export in flight stops); from
		// then on the default action applies, so a second one ends the
		// process whatever it is doing.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], Env{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  term.ForTerminal(os.Stderr, os.Getenv),
		Getenv:  os.Getenv,
		Environ: os.Environ,
	})
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, env Env) int {
	// Names, paths and messages from reports reach stderr: whatever a
	// subcommand prints there has its control characters escaped, so a
	// report cannot drive the reader's terminal.
	if _, ok := env.Stderr.(*term.Writer); !ok {
		env.Stderr = term.NewWriter(env.Stderr)
	}
	if len(args) == 0 {
		usage(env.Stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(env.Stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "testresults: unknown command %q\n\n", args[0])
		usage(env.Stderr)
		return exitUsage
	}
	return c.run(ctx, args[1:], env)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: testresults COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].synopsis)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 verdict, check or export failed, 2 usage error,")
	fmt.Fprintln(w, "3 input rejected (limits, hostile or unreadable report).")
	fmt.Fprintln(w, "Run 'testresults COMMAND --help' for a command's flags.")
}
