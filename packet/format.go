package packet

import (
	"fmt"
	"io"
)

// Format is the form a packet is written in.
type Format string

// Formats of Write.
const (
	// FormatMarkdown is GitHub-flavoured Markdown (Markdown).
	FormatMarkdown Format = "markdown"
	// FormatHTML is an HTML page (HTML).
	FormatHTML Format = "html"
)

// ParseFormat reads markdown or html.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatMarkdown, FormatHTML:
		return f, nil
	}
	return "", fmt.Errorf("packet: format %q: want markdown or html", s)
}

// Write writes the packet of in in format f: Markdown, or HTML for
// FormatHTML.
func Write(w io.Writer, f Format, in Input, opts ...Option) error {
	if f == FormatHTML {
		return HTML(w, in, opts...)
	}
	return Markdown(w, in, opts...)
}
