package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/clidoc"
)

// callCommand runs a command function the way run does, with exitFor, so
// that it can be tested before it is registered.
func callCommand(t *testing.T, name string, fn func(context.Context, []string, Env) error, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{
		Stdin:   bytes.NewReader(nil),
		Stdout:  &out,
		Stderr:  &errb,
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return nil },
	}
	code := exitFor(name, fn(context.Background(), args, env), env)
	return code, out.String(), errb.String()
}

func script(t *testing.T, write func(w *bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, write(&b))
	return b.String()
}

func bashScript(t *testing.T) string {
	return script(t, func(w *bytes.Buffer) error { return clidoc.Bash(w, cliCommands()) })
}

// TestCompletionCoversCommands: the table that completion and the man page
// read has every registered command, and builds for each the flag set its
// run function parses: its usage and flags are exactly what
// 'testresults COMMAND --help' prints.
func TestCompletionCoversCommands(t *testing.T) {
	table := map[string]clidoc.Command{}
	for _, c := range cliCommands() {
		table[c.Name] = c
	}
	for name := range commands {
		c, ok := table[name]
		if !assert.True(t, ok, "command %s is not described", name) {
			continue
		}
		code, stdout, stderr := runCmd(t, name, "--help")
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, stdout, c.Usage+c.Flags.FlagUsages(), "%s: the table's flag set differs from the command's", name)
		assert.Equal(t, commands[name].synopsis, c.Synopsis)
	}
	for name, c := range table {
		assert.Contains(t, commands, name, "%s is described but not registered", name)
		assert.NotEmpty(t, c.Synopsis, name)
	}
	for _, sub := range flakySubcommands {
		assert.Contains(t, flakyUsage, "\n  "+sub+" ", "flaky %s", sub)
	}
}

// TestCompletionNewCommand: a command that registers itself, with nothing
// written anywhere else, appears with its flags in every script and in the
// man page.
func TestCompletionNewCommand(t *testing.T) {
	const usage = "Usage: testresults probe-new [flags] FILE\n\nA command added later.\n\nFlags:\n"
	commands["probe-new"] = command{name: "probe-new", synopsis: "a command added later", run: func(_ context.Context, args []string, _ Env) error {
		fs := newFlagSet("probe-new")
		fs.String("probe-key", "", "the key file")
		return flagsFor("probe-new", usage, fs).parse(args)
	}}
	defer delete(commands, "probe-new")
	for _, name := range clidoc.Shells {
		write, _ := clidoc.Completion(name)
		s := script(t, func(w *bytes.Buffer) error { return write(w, cliCommands()) })
		assert.Contains(t, s, "probe-new", name)
		assert.Contains(t, s, "probe-key", name)
	}
	man := script(t, func(w *bytes.Buffer) error { return clidoc.Man(w, cliCommands(), clidoc.ExitCodes) })
	assert.Contains(t, man, `testresults probe\-new`)
	assert.Contains(t, man, `\-\-probe\-key`)
	assert.Contains(t, man, "A command added later.")
}

// shellQuote quotes s as one word for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishQuote quotes s as one word for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// bashComplete runs the bash completion for words (the last is the word
// being completed) in a bash subprocess, as bash's programmable completion
// calls it, and returns COMPREPLY.
func bashComplete(t *testing.T, scriptPath string, words ...string) []string {
	t.Helper()
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	prog := "source " + shellQuote(scriptPath) + "\n" +
		"COMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
		"COMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n" +
		"COMP_LINE=" + shellQuote(strings.Join(words, " ")) + "\nCOMP_POINT=${#COMP_LINE}\n" +
		"_testresults testresults " + shellQuote(words[len(words)-1]) + " " + shellQuote(words[len(words)-2]) + "\n" +
		"printf '%s\\n' \"${COMPREPLY[@]}\"\n"
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	require.Empty(t, stderr.String())
	var got []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	slices.Sort(got)
	return got
}

func longFlags(fs *pflag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *pflag.Flag) { out = append(out, "--"+f.Name) })
	return out
}

// TestBashCompletion: the bash script parses, registers itself for
// testresults, and completes commands, each command's flags (from its flag
// set), the values of --kind, flaky's subcommands, commands after -- and
// file names.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "testresults.bash")
	require.NoError(t, os.WriteFile(path, []byte(bashScript(t)), 0o644))
	out, err := exec.Command("bash", "-n", path).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command("bash", "--norc", "-c", "source "+shellQuote(path)+"; complete -p testresults").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "complete -F _testresults testresults\n", string(out))

	reports := filepath.Join(dir, "reports")
	require.NoError(t, os.Mkdir(reports, 0o755))
	for _, f := range []string{"rep1.xml", "rep2.xml", "other.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(reports, f), nil, 0o644))
	}
	repFiles := []string{filepath.Join(reports, "rep1.xml"), filepath.Join(reports, "rep2.xml")}

	runFlags, _ := newRunFlags()
	flakyFlags, _ := newFlakyFlags()
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

	tests := []struct {
		words []string
		want  []string
	}{
		{[]string{"testresults", "ru"}, []string{"run"}},
		{[]string{"testresults", "p"}, []string{"packet", "pair", "parse", "prune"}},
		{[]string{"testresults", "--v"}, []string{"--version"}},
		{[]string{"testresults", "run", "--"}, sorted(append(longFlags(runFlags), "--help"))},
		{[]string{"testresults", "run", "--kin"}, []string{"--kind"}},
		{[]string{"testresults", "run", "-q", "--kill"}, []string{"--kill-after"}},
		{[]string{"testresults", "run", "--kind", "a"}, []string{"acceptance", "after_turn", "attempt"}},
		{[]string{"testresults", "run", "--kind=g"}, []string{"--kind=gate", "--kind=grader"}},
		{[]string{"testresults", "run", "--out", filepath.Join(reports, "rep")}, repFiles},
		{[]string{"testresults", "run", "--out=" + filepath.Join(reports, "rep")}, []string{"--out=" + repFiles[0], "--out=" + repFiles[1]}},
		{[]string{"testresults", "run", "--", "bas"}, nil}, // commands: checked below
		{[]string{"testresults", "parse", "--kind", "base", filepath.Join(reports, "rep")}, repFiles},
		{[]string{"testresults", "export", "-q", filepath.Join(reports, "rep")}, repFiles},
		{[]string{"testresults", "export", "-o", filepath.Join(reports, "o")}, []string{filepath.Join(reports, "other.json")}},
		{[]string{"testresults", "flaky", "--"}, sorted(append(longFlags(flakyFlags), "--help"))},
		{[]string{"testresults", "flaky", "--repo", "r", "re"}, []string{"record"}},
		{[]string{"testresults", "flaky", "record", filepath.Join(reports, "rep")}, repFiles},
		{[]string{"testresults", "completion", ""}, []string{"bash", "fish", "zsh"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.words[1:], " "), func(t *testing.T) {
			got := bashComplete(t, path, tt.words...)
			if tt.words[len(tt.words)-2] == "--" && tt.words[1] == "run" {
				assert.Contains(t, got, "bash", "a command after --")
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestZshCompletion: the zsh script parses (zsh -n) and names every command
// and every flag of every command.
func TestZshCompletion(t *testing.T) {
	s := script(t, func(w *bytes.Buffer) error { return clidoc.Zsh(w, cliCommands()) })
	assert.True(t, strings.HasPrefix(s, "#compdef testresults\n"))
	for _, c := range cliCommands() {
		assert.Contains(t, s, "        "+c.Name+")\n", c.Name)
		for _, f := range clidoc.Flags(c.Flags) {
			assert.Contains(t, s, "--"+f.Long, "%s --%s", c.Name, f.Long)
		}
	}
	assert.Contains(t, s, `'(--quiet -q)--quiet[no summary on stderr]'`)
	assert.Contains(t, s, `'*--turn=[with --session\: N (the RUN.json arguments are turn N'\''s) or N=RUN.json (repeatable)]:turn:_files'`)
	assert.Contains(t, s, `'--kind=[the run'\''s kind\: base, after_turn, rerun, attempt, setup, acceptance, grader, gate]:kind:(base after_turn rerun attempt setup acceptance grader gate)'`)
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed")
	}
	path := filepath.Join(t.TempDir(), "_testresults")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	out, err := exec.Command("zsh", "-n", path).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Empty(t, string(out))
}

// TestFishCompletion: the fish script parses (fish -n) and fish's own
// completion engine (complete -C) completes commands, flags, the values of
// --kind and flaky's subcommands with it.
func TestFishCompletion(t *testing.T) {
	s := script(t, func(w *bytes.Buffer) error { return clidoc.Fish(w, cliCommands()) })
	for _, c := range cliCommands() {
		assert.Contains(t, s, "-n __fish_use_subcommand -a '"+c.Name+"'", c.Name)
	}
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish is not installed")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "testresults.fish")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	out, err := exec.Command("fish", "-n", path).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Empty(t, string(out))

	complete := func(line string) []string {
		t.Helper()
		cmd := exec.Command("fish", "--no-config", "-c", "source "+fishQuote(path)+"; complete -C "+fishQuote(line))
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CACHE_HOME="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, stderr.String())
		var got []string
		for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			word, _, _ := strings.Cut(l, "\t")
			if word != "" {
				got = append(got, word)
			}
		}
		slices.Sort(got)
		return got
	}
	assert.Equal(t, []string{"run"}, complete("testresults ru"))
	assert.Equal(t, []string{"--kind"}, complete("testresults run --kin"))
	assert.Equal(t, []string{"acceptance", "after_turn", "attempt"}, complete("testresults run --kind a"))
	assert.Equal(t, []string{"record"}, complete("testresults flaky rec"))
	runFlags, _ := newRunFlags()
	got := complete("testresults run --")
	for _, f := range longFlags(runFlags) {
		assert.Contains(t, got, f)
	}
}

// TestCompletionCommand: completion takes one shell and prints its script;
// anything else is a usage error.
func TestCompletionCommand(t *testing.T) {
	for _, shell := range clidoc.Shells {
		code, stdout, stderr := callCommand(t, "completion", runCompletion, shell)
		require.Equal(t, exitOK, code, stderr)
		assert.Empty(t, stderr)
		assert.Contains(t, stdout, "testresults completion "+shell)
	}
	code, stdout, _ := callCommand(t, "completion", runCompletion, "bash")
	require.Equal(t, exitOK, code)
	assert.Equal(t, bashScript(t), stdout)
	for _, args := range [][]string{nil, {"tcsh"}, {"bash", "zsh"}, {"--shell"}} {
		code, _, stderr := callCommand(t, "completion", runCompletion, args...)
		assert.Equal(t, exitUsage, code, "%q", args)
		assert.Contains(t, stderr, "Usage: testresults completion bash|zsh|fish")
	}
	code, stdout, _ = callCommand(t, "completion", runCompletion, "--help")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, clidoc.Help("completion")+newFlagSet("completion").FlagUsages(), stdout)
}

// TestManPage: the man page renders with groff without a warning, and holds
// every command's usage line and every flag.
func TestManPage(t *testing.T) {
	code, page, stderr := callCommand(t, "man", runMan)
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(page, `.\"`))
	assert.Contains(t, page, `.TH TESTRESULTS 1 `)
	code, _, stderr = callCommand(t, "man", runMan, "extra")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "man takes no arguments")

	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("groff is not installed")
	}
	cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-b")
	cmd.Stdin = strings.NewReader(page)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	assert.Empty(t, errb.String(), "groff warnings")
	// Undo the overstriking of bold and italics, and the hyphenation and
	// filling, to read the words.
	text := regexpBackspace(out.String())
	words := strings.Join(strings.Fields(strings.NewReplacer("\u2010\n", "", "\u2212", "-").Replace(text)), " ")
	for _, c := range cliCommands() {
		usageLine, _, _ := strings.Cut(c.Usage, "\n")
		assert.Contains(t, words, strings.Join(strings.Fields(strings.TrimPrefix(usageLine, "Usage: ")), " "), c.Name)
		for _, f := range clidoc.Flags(c.Flags) {
			if f.Long != "help" {
				assert.Contains(t, words, "--"+f.Long, "%s --%s", c.Name, f.Long)
			}
		}
	}
	assert.Contains(t, words, "EXIT STATUS Exit codes: 0 ok")
	assert.Contains(t, words, "summary [--limit N] the repositories with the most flaky tests,", "indented blocks kept as written")
}

// regexpBackspace removes groff's overstriking (x\bx, _\bx).
func regexpBackspace(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		if i+1 < len(r) && r[i+1] == '\b' {
			i++ // drop the struck character; the next one is kept
			continue
		}
		b.WriteRune(r[i])
	}
	return b.String()
}
