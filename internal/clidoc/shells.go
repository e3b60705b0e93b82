package clidoc

import "io"

// Shells are the shells a completion script is written for.
var Shells = []string{"bash", "zsh", "fish"}

// ExitCodes is what every command's exit codes mean, for the usage and the
// man page.
const ExitCodes = `Exit codes: 0 ok, 1 verdict, check or export failed, 2 usage error,
3 input rejected (limits, hostile or unreadable report).`

// Completion is the completion script writer of shell (one of Shells):
// Bash, Zsh or Fish; false for another shell.
func Completion(shell string) (func(io.Writer, []Command) error, bool) {
	w, ok := map[string]func(io.Writer, []Command) error{"bash": Bash, "zsh": Zsh, "fish": Fish}[shell]
	return w, ok
}
