package packet

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNoRun is returned when the input has no run to show.
var ErrNoRun = errors.New("packet: no run")

// mdReserve is room kept, within MaxMarkdownBytes, for what follows the
// last list entry written.
const mdReserve = 6000

// mdMessages is the size of the packet up to which the new failures are
// shown with their messages; beyond it they are listed by id alone, so the
// fixed and flaky tests still have room.
const mdMessages = MaxMarkdownBytes / 2

// Markdown writes the packet as GitHub-flavoured Markdown: a table of
// counts, the comparison, why the run is incomplete and which expected
// tests never ran, the new failures with their messages in fenced
// code blocks, fixed and flaky tests in collapsible sections, and the
// coverage change. It writes at most MaxMarkdownBytes: entries beyond the
// list caps or that size are counted as left out.
func Markdown(w io.Writer, in Input, opts ...Option) error {
	if in.After == nil {
		return ErrNoRun
	}
	v := newView(in, newConfig(opts))
	var b mdBuilder
	b.line("## Test results: " + mdText(v.AfterID))
	b.blank()
	head := v.headline(mdText)
	if v.HasBase && (!v.Available || v.NewFailures.Total > 0) {
		head = "**" + head + "**"
	}
	b.line(head)
	b.blank()

	b.line("| run | total | passed | failed | errors | skipped | flaky |")
	b.line("|---|---:|---:|---:|---:|---:|---:|")
	if c := v.Counts; c != nil {
		b.line(fmt.Sprintf("| after | %d | %d | %d | %d | %d | %d |", c.Total, c.Passed, c.Failed, c.Errors, c.Skipped, c.Flaky))
	} else {
		b.line("| after | unknown | unknown | unknown | unknown | unknown | unknown |")
	}
	b.blank()
	b.line("Run " + mdText(v.AfterID) + ": " + v.runState(mdText) + ".")
	if v.Incomplete.Total > 0 {
		b.blank()
		b.line("Incomplete because:")
		b.blank()
		n := items(&b, v.Incomplete.Items, func(s string) string { return "- " + mdText(s) + "\n" })
		b.leftOut(v.Incomplete.Total - n)
	}
	if v.NotRun.Total > 0 {
		b.blank()
		b.line(fmt.Sprintf("### Expected tests that never ran (%d)", v.NotRun.Total))
		b.blank()
		n := items(&b, v.NotRun.Items, func(id string) string { return "- " + mdText(id) + "\n" })
		b.leftOut(v.NotRun.Total - n)
	}
	b.blank()
	if v.HasBase {
		b.line("Base " + mdText(v.BaseID) + ": its own failures: " + v.baseFailuresText() + ".")
		b.blank()
	}
	cov := "Line coverage: " + v.Coverage
	if v.HasBase {
		cov += ", change against the base: " + v.Delta
	}
	b.line(cov + ".")
	if v.CoverageReason != "" {
		b.blank()
		b.line("Coverage unknown because: " + mdText(v.CoverageReason))
	}

	if v.HasBase && v.Available && v.NewFailures.Total > 0 {
		b.failures("New failures", v.NewFailures)
	}
	if !v.HasBase && v.Failures.Total > 0 {
		b.failures("Failures", v.Failures)
	}

	if v.FixedKnown && v.Fixed.Total > 0 {
		b.blank()
		b.line(fmt.Sprintf("<details><summary>Fixed (%d)</summary>", v.Fixed.Total))
		b.blank()
		n := items(&b, v.Fixed.Items, func(id string) string { return "- " + mdText(id) + "\n" })
		b.leftOut(v.Fixed.Total - n)
		b.blank()
		b.line("</details>")
	}

	b.blank()
	if v.Flaky.Total == 0 {
		b.line("Flaky tests: none.")
	} else {
		b.line(fmt.Sprintf("<details><summary>Flaky (%d)</summary>", v.Flaky.Total))
		b.blank()
		n := items(&b, v.Flaky.Items, func(f flakyView) string {
			s := "- " + mdText(f.ID)
			if f.State != flakyNoList {
				s += " — " + string(f.State)
			}
			return s + "\n"
		})
		b.leftOut(v.Flaky.Total - n)
		b.blank()
		b.line("</details>")
	}
	b.blank()
	b.line(v.flakyListText(mdText))
	_, err := io.WriteString(w, b.String())
	return err
}

// failures writes a list of failures with their messages in fenced code
// blocks, collapsible when long.
func (b *mdBuilder) failures(title string, l list[failureView]) {
	b.blank()
	b.line(fmt.Sprintf("### %s (%d)", title, l.Total))
	long := l.Total > 10
	if long {
		b.blank()
		b.line("<details open><summary>Show or hide the " + strings.ToLower(title) + "</summary>")
	}
	n := items(b, l.Items, func(f failureView) string {
		s := "\n**" + mdText(f.Outcome) + "**: " + mdText(f.ID) + "\n"
		if f.Rerun != "" {
			s += "\nRerun: " + mdCode(f.Rerun) + "\n"
		}
		if f.Score != "" {
			s += "\nFlakiness score: " + mdText(f.Score) + "\n"
		}
		switch {
		case f.Message == "":
			return s
		case b.Len() >= mdMessages:
			return s + "\n(message not shown: the packet is kept short)\n"
		}
		fence := fenceFor(f.Message)
		return s + "\n" + fence + "\n" + f.Message + "\n" + fence + "\n"
	})
	b.leftOut(l.Total - n)
	if long {
		b.blank()
		b.line("</details>")
	}
}

// mdBuilder collects the Markdown and keeps list entries within
// MaxMarkdownBytes.
type mdBuilder struct {
	strings.Builder
}

func (b *mdBuilder) line(s string) { b.WriteString(s); b.WriteByte('\n') }

func (b *mdBuilder) blank() { b.WriteByte('\n') }

// items writes entries while they fit and returns how many it wrote.
func items[T any](b *mdBuilder, all []T, render func(T) string) int {
	for i, it := range all {
		s := render(it)
		if b.Len()+len(s) > MaxMarkdownBytes-mdReserve {
			return i
		}
		b.WriteString(s)
	}
	return len(all)
}

func (b *mdBuilder) leftOut(n int) {
	if n > 0 {
		b.blank()
		b.line(fmt.Sprintf("…and %d more not shown (the packet is kept short).", n))
	}
}

// mdText escapes s for Markdown text (a paragraph, a list item or a table
// cell): every ASCII punctuation character is backslash-escaped, so no
// markup, link, mention, HTML or table cell can start from it, and
// newlines and tabs are shown as \n and \t. s has already had its control
// characters escaped.
func mdText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\\n`)
		case r == '\t':
			b.WriteString(`\\t`)
		case r < 0x80 && isPunct(byte(r)):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isPunct(c byte) bool {
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
}

// mdCode is s as a code span: delimited by more backticks than any run of
// them in s, padded with a space when s starts or ends with a backtick, so
// s is shown exactly as it is (it holds no newline: it has been escaped
// for one line).
func mdCode(s string) string {
	longest := longestBackticks(s)
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// longestBackticks is the length of the longest run of backticks in s.
func longestBackticks(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// fenceFor returns a code fence of backticks longer than any run of
// backticks in s (at least three), so s cannot close it.
func fenceFor(s string) string {
	longest := longestBackticks(s)
	return strings.Repeat("`", max(3, longest+1))
}
