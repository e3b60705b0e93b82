package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/internal/parseopt"
)

// TestHashReaderSums checks the concurrent hash is the SHA-256 of exactly
// the bytes served, whatever the sizes the source and the consumer read
// in, and that the data served is the source's, whether the parser reads
// the source or jobs read it ahead.
func TestHashReaderSums(t *testing.T) {
	for _, ahead := range []bool{false, true} {
		t.Run(fmt.Sprintf("ahead=%v", ahead), func(t *testing.T) { testHashReaderSums(t, ahead) })
	}
}

func testHashReaderSums(t *testing.T, ahead bool) {
	data := make([]byte, 5*hashBlockSize+123)
	for i := range data {
		data[i] = byte(i*7 + i/251)
	}
	sizes := []int{0, 1, 4095, hashBlockSize - 1, hashBlockSize, hashBlockSize + 1, 2 * hashBlockSize, len(data)}
	sources := map[string]func([]byte) io.Reader{
		"whole":    func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":     func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data+EOF": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
	}
	for name, src := range sources {
		for _, n := range sizes {
			if name == "one byte" && n > 2*hashBlockSize {
				continue
			}
			t.Run(name, func(t *testing.T) {
				h := newHashReader(src(data[:n]), ahead)
				got, err := io.ReadAll(h)
				require.NoError(t, err)
				want := sha256.Sum256(data[:n])
				assert.Equal(t, hex.EncodeToString(want[:]), h.stop())
				assert.Equal(t, data[:n], got)
				assert.Equal(t, int64(n), h.n)
				assert.LessOrEqual(t, h.blocks, hashBlocks)
				assert.Empty(t, h.stop(), "a second stop is a no-op")
			})
		}
	}
}

// TestHashReaderSourceError checks a source's error reaches the consumer
// after the data read with it, and that stopping early, mid-stream, ends
// the hasher.
func TestHashReaderSourceError(t *testing.T) {
	boom := errors.New("boom")
	for _, ahead := range []bool{false, true} {
		h := newHashReader(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), ahead)
		got, err := io.ReadAll(h)
		require.ErrorIs(t, err, boom)
		assert.Equal(t, "abc", string(got))
		h.stop()
	}
}

// TestHashReaderStopReadsNoMore checks that once the consumer stops, the
// read jobs still queued read nothing more of the source.
func TestHashReaderStopReadsNoMore(t *testing.T) {
	data := make([]byte, 20*hashBlockSize)
	src := &countingReader{r: bytes.NewReader(data)}
	h := newHashReader(src, true)
	buf := make([]byte, 4096)
	_, err := h.Read(buf)
	require.NoError(t, err)
	h.stop()
	read := src.n
	assert.LessOrEqual(t, read, int64(hashBlocks*hashBlockSize), "at most the blocks asked for ahead")
	assert.Less(t, read, int64(len(data)))
	h.stop()
	assert.Equal(t, read, src.n, "nothing is read after stop")
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestHashReaderNoLeak checks that no hasher goroutine outlives a parse,
// whether the report is read whole, refused early (a limit, bad syntax) or
// its source fails.
func TestHashReaderNoLeak(t *testing.T) {
	big := genBenchReport(2 << 20)
	inputs := map[string]func() io.Reader{
		"read whole": func() io.Reader { return bytes.NewReader(big) },
		"refused":    func() io.Reader { return strings.NewReader("<testsuites><testcase name='a'></testsuite>") },
		"binary":     func() io.Reader { return bytes.NewReader([]byte{0, 1, 2, 3}) },
		"source error": func() io.Reader {
			return io.MultiReader(bytes.NewReader(big[:300<<10]), iotest.ErrReader(errors.New("boom")))
		},
		"over limit": func() io.Reader { return bytes.NewReader(big) },
	}
	before := runtime.NumGoroutine()
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			var opts []Option
			if name == "over limit" {
				opts = append(opts, WithMaxBytes(1<<20))
			}
			for range 5 {
				_, _ = Parse(in(), "r.xml", opts...)
			}
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before)
}

// TestParseRefusesAsWithoutPrecheck: Parse, whose XML reader relies on
// the checks the hashing goroutine makes of the bytes ahead of it, refuses
// a large report with a bad byte anywhere for the same reason, at the same
// line and with the same dialect as a parse whose reader checks every byte
// itself.
func TestParseRefusesAsWithoutPrecheck(t *testing.T) {
	data := genBenchReport(1 << 20)
	offsets := []int{200, hashBlockSize - 1, hashBlockSize, 3*hashBlockSize + 7, len(data) / 2, len(data) - 30}
	bad := map[string]string{"ESC": "\x1b", "NUL": "\x00", "U+FFFF": "\uFFFF", "invalid UTF-8": "\xc3\x28", "cut rune": "\xe2\x82"}
	cfg := newConfig(nil)
	for name, b := range bad {
		for _, off := range offsets {
			t.Run(fmt.Sprintf("%s at %d", name, off), func(t *testing.T) {
				doc := slices.Concat(data[:off], []byte(b), data[off:])
				want := &Result{}
				wantErr := parseInto(bytes.NewReader(doc), "r.xml", &cfg, want, parseopt.WithPrecheck(nil))
				require.Error(t, wantErr)
				res, err := Parse(iotest.HalfReader(bytes.NewReader(doc)), "r.xml")
				require.Error(t, err)
				assert.Equal(t, wantErr.Error(), err.Error())
				assert.Equal(t, want.Info.Dialect, res.Info.Dialect)
				assert.Nil(t, res.Executions)
				// A file, read ahead by the hashing goroutine.
				path := filepath.Join(t.TempDir(), "r.xml")
				require.NoError(t, os.WriteFile(path, doc, 0o600))
				res, err = ParseFile(path)
				require.Error(t, err)
				assert.Equal(t, strings.ReplaceAll(wantErr.Error(), "r.xml", path), err.Error())
				assert.Equal(t, want.Info.Dialect, res.Info.Dialect)
				assert.Nil(t, res.Executions)
			})
		}
	}
}
