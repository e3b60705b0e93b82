package xmlsafe

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// events renders a document as one line per token, with adjacent text
// merged, for comparison with encoding/xml.
func events(t testing.TB, src io.Reader, lim Limits) (string, error) {
	t.Helper()
	return eventsWith(t, src, lim, nil)
}

// eventsWith is events with the Reader relying on pre (nil: none).
func eventsWith(t testing.TB, src io.Reader, lim Limits, pre *Precheck) (string, error) {
	t.Helper()
	rd := NewReader(src, "doc.xml", lim)
	if pre != nil {
		rd.SetPrecheck(pre)
	}
	var out strings.Builder
	var text []byte
	flush := func() {
		if len(text) > 0 {
			fmt.Fprintf(&out, "T %q\n", text)
			text = text[:0]
		}
	}
	for {
		tok, err := rd.Next()
		if err == io.EOF {
			flush()
			return out.String(), nil
		}
		if err != nil {
			return out.String(), err
		}
		switch tok.Kind {
		case StartElement:
			flush()
			fmt.Fprintf(&out, "S %s", tok.Name)
			for i := range tok.Attrs {
				fmt.Fprintf(&out, " %s=%q", tok.AttrName(&tok.Attrs[i]), rd.Value(&tok.Attrs[i]))
			}
			out.WriteString("\n")
		case EndElement:
			flush()
			fmt.Fprintf(&out, "E %s\n", tok.Name)
		case Text:
			text = rd.AppendText(text, tok, -1)
		}
	}
}

// stdEvents renders a document the same way with encoding/xml.
func stdEvents(data []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		return nil, fmt.Errorf("charset %s", label)
	}
	var out strings.Builder
	var text []byte
	flush := func() {
		if len(text) > 0 {
			fmt.Fprintf(&out, "T %q\n", text)
			text = text[:0]
		}
	}
	depth := 0
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			flush()
			return out.String(), nil
		}
		if err != nil {
			return out.String(), err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			flush()
			depth++
			fmt.Fprintf(&out, "S %s", qname(tok.Name))
			for _, a := range tok.Attr {
				fmt.Fprintf(&out, " %s=%q", qname(a.Name), a.Value)
			}
			out.WriteString("\n")
		case xml.EndElement:
			flush()
			depth--
			fmt.Fprintf(&out, "E %s\n", qname(tok.Name))
		case xml.CharData:
			if depth > 0 {
				text = append(text, tok...)
			}
		}
	}
}

func qname(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

func corpusDir(t testing.TB) string { return testcorpus.Dir(t) }

// TestCorpusMatchesEncodingXML reads every XML file of the corpus with this
// reader and with encoding/xml (strict) and compares the token streams, also
// through a reader that returns one byte at a time (every token crosses a
// buffer boundary).
func TestCorpusMatchesEncodingXML(t *testing.T) {
	dir := corpusDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.xml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			got, err := events(t, bytes.NewReader(data), Limits{})
			want, stdErr := stdEvents(data)
			if err != nil {
				t.Logf("refused: %v (encoding/xml: %v)", err, stdErr)
				return
			}
			if stdErr != nil {
				t.Fatalf("read, but encoding/xml refuses it: %v", stdErr)
			}
			requireSameLines(t, want, got)
			slow, err := events(t, iotest.OneByteReader(bytes.NewReader(data)), Limits{})
			require.NoError(t, err)
			requireSameLines(t, got, slow)
		})
	}
}

func TestReaderRefuses(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want error
	}{
		{"empty", "", ErrEmpty},
		{"white space only", " \n\t ", ErrEmpty},
		{"not xml", "FAIL: TestX\n", ErrNotXML},
		{"nul byte", "<a>\x00</a>", ErrBinary},
		{"invalid utf-8", "<a>\xff\xfe</a>", ErrBinary},
		{"truncated in content", "<a><b>text", ErrTruncated},
		{"truncated in tag", "<a><b x=\"1", ErrTruncated},
		{"truncated in comment", "<a><!-- x", ErrTruncated},
		{"truncated in cdata", "<a><![CDATA[x", ErrTruncated},
		{"no root", "<?xml version=\"1.0\"?><!-- c -->", ErrTruncated},
		{"entity declaration", "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", ErrEntity},
		{"external entity", "<!DOCTYPE a [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><a>&x;</a>", ErrEntity},
		{"parameter entity", "<!DOCTYPE a [%p;]><a/>", ErrEntity},
		{"entity at top level", "<!ENTITY % p \"<!ENTITY x 'y'>\">", ErrEntity},
		{"undefined entity in text", "<a>&nbsp;</a>", ErrEntity},
		{"undefined entity in attribute", "<a b=\"&x;\"/>", ErrEntity},
		{"notation declaration", "<!DOCTYPE a [<!NOTATION n SYSTEM \"x\">]><a/>", ErrDTD},
		{"utf-16 bom", "\xff\xfe<\x00a\x00/\x00>\x00", ErrEncoding},
		{"unsupported encoding", "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><a/>", ErrEncoding},
		{"depth", strings.Repeat("<a>", 65) + strings.Repeat("</a>", 65), ErrLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := events(t, strings.NewReader(tt.doc), Limits{})
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
		})
	}
}

func TestReaderSyntaxErrors(t *testing.T) {
	docs := map[string]string{
		"mismatched end":       "<a></b>",
		"second root":          "<a/><b/>",
		"text after root":      "<a/>x",
		"lt in attribute":      "<a b=\"<\"/>",
		"bare ampersand":       "<a>fish & chips</a>",
		"unquoted attribute":   "<a b=c/>",
		"repeated attribute":   "<a b=\"1\" b=\"2\"/>",
		"no space before attr": "<a b=\"1\"c=\"2\"/>",
		"declaration late":     "<a/><?xml version=\"1.0\"?>",
		"cdata in prolog":      "<![CDATA[x]]><a/>",
		"bad char ref":         "<a>&#0;</a>",
		"surrogate ref":        "<a>&#xD800;</a>",
		"end tag at top":       "</a>",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			_, err := events(t, strings.NewReader(doc), Limits{})
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, "doc.xml", se.File)
			assert.Equal(t, 1, se.Line)
		})
	}
}

func TestReaderDecodes(t *testing.T) {
	doc := "\xef\xbb\xbf<?xml version='1.0' encoding='UTF-8'?>\n" +
		"<!DOCTYPE coverage SYSTEM \"http://cobertura.sourceforge.net/xml/coverage-04.dtd\">\n" +
		"<!-- comment --><?pi x?>\n" +
		"<r a='x&amp;y' b=\"&#10;&#x41;\" c='l1\r\nl2'>one&lt;two<![CDATA[<raw&>]]>\r\nthree &#x1F600;<e/></r>\n"
	got, err := events(t, strings.NewReader(doc), Limits{})
	require.NoError(t, err)
	assert.Equal(t, "S r a=\"x&y\" b=\"\\nA\" c=\"l1\\nl2\"\n"+
		"T \"one<two<raw&>\\nthree 😀\"\nS e\nE e\nE r\n", got)
}

func TestReaderLatin1(t *testing.T) {
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r n=\"caf\xe9\">\xfcber</r>"
	got, err := events(t, strings.NewReader(doc), Limits{})
	require.NoError(t, err)
	assert.Equal(t, "S r n=\"café\"\nT \"über\"\nE r\n", got)
}

func TestReaderLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("<r>")
	for i := 0; i < 100; i++ {
		b.WriteString("<c/>")
	}
	b.WriteString("</r>")
	_, err := events(t, strings.NewReader(b.String()), Limits{MaxElements: 50})
	var le *LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, LimitElements, le.Limit)
	assert.EqualValues(t, 50, le.Max)

	_, err = events(t, strings.NewReader(b.String()), Limits{MaxBytes: 100})
	require.ErrorAs(t, err, &le)
	assert.Equal(t, LimitBytes, le.Limit)
	assert.True(t, errors.Is(err, ErrLimit))
}

func TestAppendTextBounded(t *testing.T) {
	rd := NewReader(strings.NewReader("<r>héllo &amp; wörld</r>"), "", Limits{})
	_, err := rd.Next()
	require.NoError(t, err)
	tok, err := rd.Next()
	require.NoError(t, err)
	require.Equal(t, Text, tok.Kind)
	const text = "héllo & wörld"
	for max := 0; max < 20; max++ {
		got := rd.AppendText(nil, tok, max)
		assert.LessOrEqual(t, len(got), max)
		assert.True(t, strings.HasPrefix(text, string(got)), "max %d: %q is not a prefix of the text", max, got)
	}
}

// requireSameLines fails at the first differing line (documents are long).
func requireSameLines(t *testing.T, want, got string) {
	t.Helper()
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) && i < len(g); i++ {
		if w[i] != g[i] {
			t.Fatalf("line %d differs:\nwant %.300s\ngot  %.300s", i+1, w[i], g[i])
		}
	}
	require.Equal(t, len(w), len(g), "number of lines")
}

// FuzzReader checks the reader against encoding/xml: no panic, limits
// respected, and when both read a document they see the same tokens.
func FuzzReader(f *testing.F) {
	for _, g := range []string{filepath.Join("..", "..", "testdata", "hostile", "*"), filepath.Join("..", "..", "..", "..", "shared", "corpus", "*", "*.xml")} {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) <= 16<<10 {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("<a b='&amp;&#x41;'>x<![CDATA[y]]><!--c--><?p q?><c/></a>"))
	f.Add([]byte(xcresultHeader + `<coverage line-rate="1"><line number="1" hits="0"/></coverage>`))
	f.Add([]byte(`<!DOCTYPE r SYSTEM 'r.dtd' [<!-- %p; --><?pi ]>?><!ATTLIST r a CDATA "]>&amp;" b (x|y) 'x'><!ELEMENT r (#PCDATA|s)*>]><r/>`))
	f.Add([]byte(`<!DOCTYPE r PUBLIC "-//X//EN" "r.dtd" [<![INCLUDE[<!ELEMENT r ANY>]]><!NOTATION n SYSTEM "x">]><r/>`))
	lim := Limits{MaxBytes: 64 << 10, MaxElements: 500, MaxDepth: 8}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data), "f.xml", lim)
		for {
			tok, err := rd.Next()
			if err != nil {
				break
			}
			if rd.Depth() > int(lim.MaxDepth) || rd.Elements() > lim.MaxElements {
				t.Fatal("limit not enforced")
			}
			if tok.Kind == Text {
				rd.AppendText(nil, tok, 10)
			}
		}
		// Skipping white space leaves out exactly the Text tokens of white
		// space only, and refuses what is refused without it.
		all, allErr := tokenList(bytes.NewReader(data), lim, false)
		skipped, skipErr := tokenList(bytes.NewReader(data), lim, true)
		if (allErr == nil) != (skipErr == nil) || allErr != nil && allErr.Error() != skipErr.Error() {
			t.Fatalf("refused %v skipping white space, %v not", skipErr, allErr)
		}
		var kept []string
		for _, tok := range all {
			if tok[0] != 'W' {
				kept = append(kept, tok)
			}
		}
		if !slices.Equal(kept, skipped) {
			t.Fatalf("skipping white space read %q, not %q", skipped, kept)
		}
		got, err := events(t, bytes.NewReader(data), lim)
		if err != nil {
			return
		}
		want, stdErr := stdEvents(data)
		if stdErr != nil {
			return // this reader is more lenient on a few points (C0 controls, name characters)
		}
		if got != want {
			t.Fatalf("tokens differ from encoding/xml:\nours %q\nstd  %q", got, want)
		}
	})
}

// TestChars: only characters of XML 1.0's Char production are read, raw or
// as references, wherever they stand (ISO-8859-1 documents too).
func TestChars(t *testing.T) {
	refused := map[string]string{
		"raw ESC in text":          "<a>x\x1b[31m</a>",
		"raw BEL in an attribute":  "<a n=\"\x07\"/>",
		"raw ESC in CDATA":         "<a><![CDATA[\x1b]]></a>",
		"raw ESC in a comment":     "<a><!-- \x1b --></a>",
		"raw ESC in a name":        "<a\x1b/>",
		"raw vertical tab":         "<a>\x0b</a>",
		"raw U+FFFE":               "<a>\xef\xbf\xbe</a>",
		"raw U+FFFF":               "<a>\xef\xbf\xbf</a>",
		"&#27;":                    "<a>&#27;</a>",
		"&#x1B; in an attribute":   "<a n=\"&#x1B;\"/>",
		"&#x1b; lower case":        "<a>&#x1b;</a>",
		"&#0;":                     "<a>&#0;</a>",
		"&#31;":                    "<a>&#31;</a>",
		"&#xD800; (a surrogate)":   "<a>&#xD800;</a>",
		"&#xDFFF; (a surrogate)":   "<a>&#xDFFF;</a>",
		"&#xFFFE;":                 "<a>&#xFFFE;</a>",
		"&#65535;":                 "<a>&#65535;</a>",
		"ESC in ISO-8859-1":        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>caf\xe9\x1b</a>",
		"ESC after 64 KiB of text": "<a>" + strings.Repeat("x", 70<<10) + "\x1b</a>",
	}
	for name, doc := range refused {
		t.Run(name, func(t *testing.T) {
			_, err := events(t, strings.NewReader(doc), Limits{})
			require.ErrorIs(t, err, ErrChar)
			var se *SyntaxError
			assert.ErrorAs(t, err, &se)
		})
	}
	allowed := map[string]string{
		"tab, LF, CR":         "<a n=\"\t\">\t\n\r</a>",
		"&#9; &#10; &#13;":    "<a>&#9;&#10;&#13;</a>",
		"DEL and C1 controls": "<a>\x7f\xc2\x85&#x85;&#127;</a>",
		"U+FFFD":              "<a>\xef\xbf\xbd&#xFFFD;</a>",
		"astral":              "<a>\xf0\x9f\x98\x80&#x10FFFF;</a>",
		"U+E000":              "<a>&#xE000;&#xD7FF;</a>",
	}
	for name, doc := range allowed {
		t.Run(name, func(t *testing.T) {
			_, err := events(t, strings.NewReader(doc), Limits{})
			assert.NoError(t, err)
		})
	}
}

// TestReaderSkipSpace checks that a Reader told to skip white space
// returns no Text token of white space only, between markup or cut by the
// buffer's end, and still returns text that holds anything else, CDATA
// sections of white space, and the same elements; and that a reference in
// skipped space is still checked.
func TestReaderSkipSpace(t *testing.T) {
	doc := "<a>\n  <b x='1'/>\r\n\t<c> text &amp; more </c>" + strings.Repeat(" ", 3*initialBuf) + "<d><![CDATA[  ]]></d>\n</a>\n"
	read := func(skip bool) []string {
		toks, err := tokenList(iotest.HalfReader(strings.NewReader(doc)), Limits{}, skip)
		require.NoError(t, err)
		return toks
	}
	var want []string
	for _, tok := range read(false) {
		if tok[0] != 'W' {
			want = append(want, tok)
		}
	}
	assert.Equal(t, want, read(true))
	assert.Less(t, len(want), len(read(false)), "white space is left out")
	assert.Contains(t, want, "T text & more ")
	assert.Contains(t, want, "C  ", "CDATA of white space is returned")

	rd := NewReader(strings.NewReader("<a>  &bogus;  <b/></a>"), "doc.xml", Limits{})
	rd.SkipSpace(true)
	var err error
	for err == nil {
		_, err = rd.Next()
	}
	assert.NotErrorIs(t, err, io.EOF, "a bad reference is refused with skipping on")
}

// tokenList reads src and lists its tokens: "<name", "/name", "T" and
// decoded text, "W" and text written as white space only, "C" and CDATA.
func tokenList(src io.Reader, lim Limits, skipSpace bool) ([]string, error) {
	rd := NewReader(src, "f.xml", lim)
	rd.SkipSpace(skipSpace)
	var out []string
	for {
		tok, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch tok.Kind {
		case StartElement:
			out = append(out, "<"+string(tok.Name))
		case EndElement:
			out = append(out, "/"+string(tok.Name))
		case Text:
			kind := "T"
			switch {
			case tok.cdata:
				kind = "C"
			case onlySpace(tok.text):
				kind = "W"
			}
			out = append(out, kind+string(rd.AppendText(nil, tok, 1<<20)))
		}
	}
}
