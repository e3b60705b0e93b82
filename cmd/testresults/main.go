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
	"runtime/debug"
	"syscall"

	"github.com/hangar-dev/testresults/internal/clidoc"
	_ "github.com/hangar-dev/testresults/internal/prefault" // maps the binary as it starts
	"github.com/hangar-dev/testresults/internal/term"
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

// command is one subcommand. Its usage text and flags are what its run
// function prints for --help; completion and the man page ask it.
type command struct {
	name     string
	synopsis string
	run      func(ctx context.Context, args []string, env Env) error
	// words are the first argument's fixed values (flaky's subcommands,
	// completion's shells), for completion; none: file names.
	words []string
	// takesCommand: a command line follows -- (run, pair).
	takesCommand bool
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
	case "--version", "version":
		bi, _ := debug.ReadBuildInfo()
		fmt.Fprintln(env.Stdout, clidoc.Version(bi))
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "testresults: unknown command %q\n\n", args[0])
		usage(env.Stderr)
		return exitUsage
	}
	return exitFor(c.name, c.run(ctx, args[1:], env), env)
}

func usage(w io.Writer) {
	cmds := make([]clidoc.Command, 0, len(commands))
	for _, c := range commands {
		cmds = append(cmds, clidoc.Command{Name: c.name, Synopsis: c.synopsis})
	}
	clidoc.Usage(w, cmds, clidoc.ExitCodes)
}
