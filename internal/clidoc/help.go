package clidoc

import (
	"embed"
	"strings"
)

// helpFS holds each command's usage text, one file per command
// (help/NAME.txt, a subcommand as help/NAME-SUB.txt): text for people
// kept as text, which --help, the man page and the completion menus all
// read.
//
//go:embed help/*.txt
var helpFS embed.FS

// Help is the usage text of the command name ("run", "flaky-quarantine"),
// ending in one newline. A name without a file is a programming error and
// panics, so a command cannot ship without its text (TestHelpFiles).
func Help(name string) string {
	b, err := helpFS.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("clidoc: no usage text for " + name)
	}
	return strings.TrimRight(string(b), "\n") + "\n"
}

// HelpNames lists the commands that have a usage text, sorted.
func HelpNames() []string {
	entries, _ := helpFS.ReadDir("help")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".txt"))
	}
	return names
}
