package gotestjson_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hangar-dev/testresults/report/gotestjson"
)

// BenchmarkParse reads the real -count=2 stream repeated to about 8 MiB,
// the largest report read (each repeat is another configuration of the
// same packages).
func BenchmarkParse(b *testing.B) {
	one, err := os.ReadFile(filepath.Join(reports, "go-test-count2.json"))
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(one, (8<<20)/len(one))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gotestjson.Parse(bytes.NewReader(data), "go-test.json"); err != nil {
			b.Fatal(err)
		}
	}
}
