package xmlsafe

import (
	"bytes"
	"io"
)

// recorder keeps a copy of what is read through it.
type recorder struct {
	r   io.Reader
	buf bytes.Buffer
}

func (c *recorder) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.buf.Write(p[:n])
	return n, err
}

// Sniff reads r up to the root element's start tag, with every check and
// limit of a Reader, and returns the root's name and a reader that replays
// the whole input from its start. Errors before the root (an entity
// declaration, a bad encoding, a truncated or empty file) are returned as
// Next would return them.
func Sniff(r io.Reader, file string, lim Limits) (root string, replay io.Reader, err error) {
	rec := &recorder{r: r}
	rd := NewReader(rec, file, lim)
	for {
		tok, err := rd.Next()
		if err != nil {
			return "", nil, err
		}
		if tok.Kind == StartElement {
			return string(tok.Name), io.MultiReader(bytes.NewReader(rec.buf.Bytes()), r), nil
		}
	}
}
