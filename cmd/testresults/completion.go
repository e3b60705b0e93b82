package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/testrun"
)

func init() {
	register(command{name: "completion", synopsis: completionSynopsis, run: runCompletion})
}

const completionSynopsis = "print a shell completion script: bash, zsh or fish"

const completionUsage = `Usage: testresults completion bash|zsh|fish

Prints a completion script for the shell on stdout: the commands, each
command's flags (from the flag sets the commands parse), the values of
--kind, the subcommands of flaky, commands after -- (run, pair) and file
names elsewhere. To use it:

  bash   source <(testresults completion bash)
         or save it as ~/.local/share/bash-completion/completions/testresults
  zsh    testresults completion zsh > "${fpath[1]}/_testresults"
         (any directory on $fpath; then restart zsh or run compinit)
  fish   testresults completion fish > ~/.config/fish/completions/testresults.fish

Flags:
`

// The shells a completion script is written for.
var completionShells = []string{"bash", "zsh", "fish"}

func runCompletion(_ context.Context, args []string, env Env) error {
	fs := newFlagSet("completion")
	cf := flagsFor("completion", completionUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cf.usageErr("name one shell: bash, zsh or fish")
	}
	cmds := cliCommands()
	switch fs.Arg(0) {
	case "bash":
		return writeBashCompletion(env.Stdout, cmds)
	case "zsh":
		return writeZshCompletion(env.Stdout, cmds)
	case "fish":
		return writeFishCompletion(env.Stdout, cmds)
	}
	return cf.usageErr("unknown shell %q (bash, zsh or fish)", fs.Arg(0))
}

// cliCommand is what completion and the man page know of a command: the
// usage text and the flag set that the command itself prints and parses.
type cliCommand struct {
	name     string
	synopsis string
	usage    string
	flags    func() *pflag.FlagSet
	// words are the first argument's fixed values (flaky's subcommands,
	// completion's shells); none: file names.
	words []string
	// command: after --, a command line (run, pair).
	command bool
}

// cliCommandTable lists every command with the function that builds its
// flag set, built as its run function builds it. TestCompletionCoversCommands
// keeps it in step with the registered commands.
var cliCommandTable = []cliCommand{
	{name: "completion", synopsis: completionSynopsis, usage: completionUsage, flags: func() *pflag.FlagSet { return newFlagSet("completion") }, words: completionShells},
	{name: "diff", usage: diffUsage, flags: func() *pflag.FlagSet { fs, _ := newDiffFlags(); return fs }},
	{name: "export", usage: exportUsage, flags: func() *pflag.FlagSet { fs, _ := newExportFlags(); return fs }},
	{name: "flaky", usage: flakyUsage, flags: func() *pflag.FlagSet { fs, _ := newFlakyFlags(); return fs },
		words: flakySubcommands},
	{name: "man", synopsis: manSynopsis, usage: manUsage, flags: func() *pflag.FlagSet { return newFlagSet("man") }},
	{name: "packet", usage: packetUsage, flags: func() *pflag.FlagSet { fs, _ := newPacketFlags(); return fs }},
	{name: "pair", usage: pairUsage, flags: func() *pflag.FlagSet { fs, _ := newPairFlags(); return fs }, command: true},
	{name: "parse", usage: parseUsage, flags: func() *pflag.FlagSet { fs, _ := newParseFlags(); return fs }},
	{name: "prune", usage: pruneUsage, flags: func() *pflag.FlagSet { fs, _ := newPruneFlags(); return fs }},
	{name: "run", usage: runUsage, flags: func() *pflag.FlagSet { fs, _ := newRunFlags(); return fs }, command: true},
	{name: "serve", usage: serveUsage, flags: func() *pflag.FlagSet { fs, _ := newServeFlags(); return fs }},
	{name: "validate", usage: validateUsage, flags: func() *pflag.FlagSet { fs, _ := newValidateFlags(); return fs }},
	{name: "verdict", usage: verdictUsage, flags: func() *pflag.FlagSet { fs, _ := newVerdictFlags(); return fs }},
}

// cliCommands returns the commands, sorted by name, with the synopsis the
// command table registered (completion's and man's own until they are).
func cliCommands() []cliCommand {
	out := slices.Clone(cliCommandTable)
	for i := range out {
		if c, ok := commands[out[i].name]; ok {
			out[i].synopsis = c.synopsis
		}
	}
	slices.SortFunc(out, func(a, b cliCommand) int { return strings.Compare(a.name, b.name) })
	return out
}

// flagInfo is one flag as the scripts offer it.
type flagInfo struct {
	long, short string
	usage       string
	value       bool     // takes a value
	repeat      bool     // may be given more than once
	values      []string // the values it takes, when they are a fixed set
}

// flagInfos lists the flags of fs in their order, --help included (the
// flag sets answer it), without hidden or deprecated ones.
func flagInfos(fs *pflag.FlagSet) []flagInfo {
	var out []flagInfo
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		_, usage := pflag.UnquoteUsage(f)
		fi := flagInfo{
			long:   f.Name,
			usage:  usage,
			value:  f.NoOptDefVal == "",
			repeat: strings.HasSuffix(f.Value.Type(), "Array") || strings.HasSuffix(f.Value.Type(), "Slice"),
		}
		if f.ShorthandDeprecated == "" {
			fi.short = f.Shorthand
		}
		if f.Name == "kind" {
			for _, k := range testrun.Kinds {
				fi.values = append(fi.values, string(k))
			}
		}
		out = append(out, fi)
	})
	if fs.Lookup("help") == nil {
		out = append(out, flagInfo{long: "help", short: "h", usage: "print this help"})
	}
	return out
}

// menuLine is the first line of s, for a completion menu.
func menuLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func writeBashCompletion(w io.Writer, cmds []cliCommand) error {
	var b strings.Builder
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	fmt.Fprintf(&b, `# bash completion for testresults; generated by "testresults completion bash".

_testresults() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=
    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd= dashdash=0 nargs=0 i w
    for (( i = 1; i < COMP_CWORD; i++ )); do
        w=${COMP_WORDS[i]}
        if [[ -z $cmd ]]; then
            [[ $w == -* ]] || cmd=$w
            continue
        fi
        if [[ $w == -- ]]; then
            dashdash=$i
            break
        fi
        [[ $w == -* ]] && continue
        # a value of the flag before it is not an argument
        _testresults_takes_value "$cmd" "${COMP_WORDS[i-1]}" || (( nargs++ ))
    done
    COMPREPLY=()
    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=( $(compgen -W '--help --version' -- "$cur") )
        else
            COMPREPLY=( $(compgen -W '%s help version' -- "$cur") )
        fi
        return 0
    fi
    if (( dashdash > 0 )); then
        if (( COMP_CWORD == dashdash + 1 )) && _testresults_runs_command "$cmd"; then
            COMPREPLY=( $(compgen -c -- "$cur") )
        else
            compopt -o filenames 2>/dev/null
            COMPREPLY=( $(compgen -f -- "$cur") )
        fi
        return 0
    fi
    local flag=$prev value=$cur prefix=
    if [[ $cur == --*=* ]]; then
        flag=${cur%%%%=*}
        value=${cur#*=}
        prefix=$flag=
    fi
    if [[ -n $prefix ]] || { [[ $cur != -* ]] && _testresults_takes_value "$cmd" "$prev"; }; then
        local values
        values=$(_testresults_values "$cmd" "$flag")
        if [[ -n $values ]]; then
            COMPREPLY=( $(compgen -P "$prefix" -W "$values" -- "$value") )
        else
            compopt -o filenames 2>/dev/null
            COMPREPLY=( $(compgen -P "$prefix" -f -- "$value") )
        fi
        return 0
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=( $(compgen -W "$(_testresults_flags "$cmd")" -- "$cur") )
        return 0
    fi
    local words
    words=$(_testresults_words "$cmd")
    if [[ -n $words ]] && (( nargs == 0 )); then
        COMPREPLY=( $(compgen -W "$words" -- "$cur") )
        return 0
    fi
    compopt -o filenames 2>/dev/null
    COMPREPLY=( $(compgen -f -- "$cur") )
    return 0
}

`, strings.Join(names, " "))

	// The flags of each command.
	b.WriteString("_testresults_flags() {\n    case $1 in\n")
	for _, c := range cmds {
		var words []string
		for _, f := range flagInfos(c.flags()) {
			words = append(words, "--"+f.long)
		}
		fmt.Fprintf(&b, "        %s) echo %s ;;\n", c.name, bashQuote(strings.Join(words, " ")))
	}
	b.WriteString("    esac\n}\n\n")

	// The flags that take a value, long and short.
	b.WriteString("_testresults_takes_value() {\n    case $1 in\n")
	for _, c := range cmds {
		var words []string
		for _, f := range flagInfos(c.flags()) {
			if !f.value {
				continue
			}
			words = append(words, bashQuote("--"+f.long))
			if f.short != "" {
				words = append(words, bashQuote("-"+f.short))
			}
		}
		if len(words) == 0 {
			continue
		}
		fmt.Fprintf(&b, "        %s) case $2 in %s) return 0 ;; esac ;;\n", c.name, strings.Join(words, "|"))
	}
	b.WriteString("    esac\n    return 1\n}\n\n")

	// The fixed values of flags (--kind).
	b.WriteString("_testresults_values() {\n    case $1 in\n")
	for _, c := range cmds {
		var cases []string
		for _, f := range flagInfos(c.flags()) {
			if len(f.values) == 0 {
				continue
			}
			pat := bashQuote("--" + f.long)
			if f.short != "" {
				pat += "|" + bashQuote("-"+f.short)
			}
			cases = append(cases, fmt.Sprintf("%s) echo %s ;;", pat, bashQuote(strings.Join(f.values, " "))))
		}
		if len(cases) == 0 {
			continue
		}
		fmt.Fprintf(&b, "        %s) case $2 in %s esac ;;\n", c.name, strings.Join(cases, " "))
	}
	b.WriteString("    esac\n}\n\n")

	// The first argument's fixed values.
	b.WriteString("_testresults_words() {\n    case $1 in\n")
	for _, c := range cmds {
		if len(c.words) > 0 {
			fmt.Fprintf(&b, "        %s) echo %s ;;\n", c.name, bashQuote(strings.Join(c.words, " ")))
		}
	}
	b.WriteString("    esac\n}\n\n")

	b.WriteString("_testresults_runs_command() {\n    case $1 in\n")
	var runners []string
	for _, c := range cmds {
		if c.command {
			runners = append(runners, c.name)
		}
	}
	if len(runners) > 0 {
		fmt.Fprintf(&b, "        %s) return 0 ;;\n", strings.Join(runners, "|"))
	}
	b.WriteString("    esac\n    return 1\n}\n\n")
	b.WriteString("complete -F _testresults testresults\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// bashQuote quotes s as one word for bash.
func bashQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func writeZshCompletion(w io.Writer, cmds []cliCommand) error {
	var b strings.Builder
	b.WriteString("#compdef testresults\n# zsh completion for testresults; generated by \"testresults completion zsh\".\n\n")
	b.WriteString("_testresults() {\n    local -a commands\n    commands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "        %s\n", zshQuote(c.name+":"+strings.ReplaceAll(menuLine(c.synopsis), ":", `\:`)))
	}
	b.WriteString("    )\n")
	b.WriteString(`    if (( CURRENT == 2 )); then
        if [[ $words[CURRENT] == -* ]]; then
            _arguments '--help[print the commands]' '--version[print the version]'
        else
            _describe -t commands 'testresults command' commands
        fi
        return
    fi
    local cmd=$words[2]
    shift words
    (( CURRENT-- ))
    case $cmd in
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "        %s)\n            _arguments -s -S \\\n", c.name)
		for _, f := range flagInfos(c.flags()) {
			for _, spec := range zshFlagSpecs(f) {
				fmt.Fprintf(&b, "                %s \\\n", zshQuote(spec))
			}
		}
		switch {
		case len(c.words) > 0:
			alts := make([]string, len(c.words))
			for i, word := range c.words {
				alts[i] = word
			}
			fmt.Fprintf(&b, "                %s \\\n", zshQuote("1:"+c.name+" subcommand:("+strings.Join(alts, " ")+")"))
			fmt.Fprintf(&b, "                %s\n", zshQuote("*:file:_files"))
		case c.command:
			fmt.Fprintf(&b, "                %s\n", zshQuote("*::command:_normal"))
		default:
			fmt.Fprintf(&b, "                %s\n", zshQuote("*:file:_files"))
		}
		b.WriteString("            ;;\n")
	}
	b.WriteString("    esac\n}\n\nif [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n    _testresults \"$@\"\nelse\n    compdef _testresults testresults\nfi\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// zshFlagSpecs are the _arguments specs of one flag: --long and -s, each
// excluding the other unless the flag repeats.
func zshFlagSpecs(f flagInfo) []string {
	desc := "[" + zshEscapeDesc(f.usage) + "]"
	arg := ""
	if f.value {
		switch {
		case len(f.values) > 0:
			arg = ":" + f.long + ":(" + strings.Join(f.values, " ") + ")"
		default:
			arg = ":" + f.long + ":_files"
		}
	}
	long, short := "--"+f.long, ""
	if f.value {
		long += "="
	}
	if f.short != "" {
		short = "-" + f.short
	}
	var specs []string
	switch {
	case f.repeat:
		specs = append(specs, "*"+long+desc+arg)
		if short != "" {
			specs = append(specs, "*"+short+desc+arg)
		}
	case short != "":
		excl := "(--" + f.long + " -" + f.short + ")"
		specs = append(specs, excl+long+desc+arg, excl+short+desc+arg)
	default:
		specs = append(specs, long+desc+arg)
	}
	return specs
}

// zshEscapeDesc escapes what _arguments reads in a description.
func zshEscapeDesc(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(menuLine(s))
}

// zshQuote quotes s as one word for zsh.
func zshQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func writeFishCompletion(w io.Writer, cmds []cliCommand) error {
	var b strings.Builder
	b.WriteString("# fish completion for testresults; generated by \"testresults completion fish\".\n\n")
	b.WriteString("complete -c testresults -f\n")
	b.WriteString("complete -c testresults -n __fish_use_subcommand -l help -d 'print the commands'\n")
	b.WriteString("complete -c testresults -n __fish_use_subcommand -l version -d 'print the version'\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c testresults -n __fish_use_subcommand -a %s -d %s\n", fishQuote(c.name), fishQuote(menuLine(c.synopsis)))
	}
	for _, c := range cmds {
		b.WriteString("\n")
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range flagInfos(c.flags()) {
			line := "complete -c testresults -n " + cond + " -l " + fishQuote(f.long)
			if f.short != "" {
				line += " -s " + fishQuote(f.short)
			}
			switch {
			case len(f.values) > 0:
				line += " -x -a " + fishQuote(strings.Join(f.values, " "))
			case f.value:
				line += " -r -F"
			}
			line += " -d " + fishQuote(menuLine(f.usage))
			b.WriteString(line + "\n")
		}
		switch {
		case len(c.words) > 0:
			fmt.Fprintf(&b, "complete -c testresults -n %s -a %s\n",
				fishQuote("__fish_seen_subcommand_from "+c.name+"; and not __fish_seen_subcommand_from "+strings.Join(c.words, " ")),
				fishQuote(strings.Join(c.words, " ")))
			fmt.Fprintf(&b, "complete -c testresults -n %s -F\n",
				fishQuote("__fish_seen_subcommand_from "+c.name+"; and __fish_seen_subcommand_from "+strings.Join(c.words, " ")))
		case c.command:
			fmt.Fprintf(&b, "complete -c testresults -n %s -F -a '(__fish_complete_subcommand --fcs-skip=3)'\n", cond)
		default:
			fmt.Fprintf(&b, "complete -c testresults -n %s -F\n", cond)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fishQuote quotes s as one word for fish: in single quotes, only \ and '
// are special.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
