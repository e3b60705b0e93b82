// Package clidoc writes what a shell and man(1) read about the testresults
// command from its commands' own usage text and flag sets: completion
// scripts for bash, zsh and fish, and the manual page in roff. Nothing is
// written by hand per command, so a command added to the tool appears in
// all of them.
package clidoc

import (
	"strings"

	"github.com/spf13/pflag"
)

// ValuesAnnotation is the pflag annotation that lists the values a flag
// takes when they are a fixed set (the scripts offer them).
const ValuesAnnotation = "clidoc_values"

// Command is what the scripts and the page know of one command.
type Command struct {
	Name, Synopsis string
	// Usage is the text --help prints before the flags.
	Usage string
	// Flags is the flag set the command parses.
	Flags *pflag.FlagSet
	// Words are the first argument's fixed values (subcommands); none:
	// file names.
	Words []string
	// TakesCommand: after --, a command line.
	TakesCommand bool
}

// Flag is one flag as the scripts offer it.
type Flag struct {
	Long, Short string
	Usage       string
	Value       bool     // takes a value
	Repeat      bool     // may be given more than once
	Values      []string // the values it takes, when they are a fixed set
}

// Flags lists the flags of fs in their order, --help included (the
// flag sets answer it), without hidden or deprecated ones. A flag's fixed
// values are its ValuesAnnotation.
func Flags(fs *pflag.FlagSet) []Flag {
	var out []Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		_, usage := pflag.UnquoteUsage(f)
		fi := Flag{
			Long:   f.Name,
			Usage:  usage,
			Value:  f.NoOptDefVal == "",
			Repeat: strings.HasSuffix(f.Value.Type(), "Array") || strings.HasSuffix(f.Value.Type(), "Slice"),
		}
		if f.ShorthandDeprecated == "" {
			fi.Short = f.Shorthand
		}
		fi.Values = f.Annotations[ValuesAnnotation]
		out = append(out, fi)
	})
	if fs.Lookup("help") == nil {
		out = append(out, Flag{Long: "help", Short: "h", Usage: "print this help"})
	}
	return out
}

// menuLine is the first line of s, for a completion menu.
func menuLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
