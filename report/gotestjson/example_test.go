package gotestjson_test

import (
	"fmt"
	"strings"

	"github.com/hangar-dev/testresults/report/gotestjson"
)

func ExampleParse() {
	stream := `{"Action":"start","Package":"example.com/m/calc"}
{"Action":"run","Package":"example.com/m/calc","Test":"TestAdd"}
{"Action":"output","Package":"example.com/m/calc","Test":"TestAdd","Output":"=== RUN   TestAdd\n"}
{"Action":"output","Package":"example.com/m/calc","Test":"TestAdd","Output":"    calc_test.go:9: Add(2, 3) = 4, want 5\n"}
{"Action":"output","Package":"example.com/m/calc","Test":"TestAdd","Output":"--- FAIL: TestAdd (0.00s)\n"}
{"Action":"fail","Package":"example.com/m/calc","Test":"TestAdd","Elapsed":0}
{"Action":"fail","Package":"example.com/m/calc","Elapsed":0.01}
{"Action":"start","Package":"example.com/m/db"}
{"Action":"output","Package":"example.com/m/db","Output":"panic: init: no database\n"}
{"Action":"fail","Package":"example.com/m/db","Elapsed":0.01}
`
	rep, err := gotestjson.Parse(strings.NewReader(stream), "go-test.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range rep.Executions {
		fmt.Printf("%s %s: %s\n", e.ID, e.Outcome, e.Message)
	}

	// The same stream cut before the db package's last event.
	cut, _, _ := strings.Cut(stream, `{"Action":"fail","Package":"example.com/m/db"`)
	_, err = gotestjson.Parse(strings.NewReader(cut), "go-test.json")
	fmt.Println(err)
	// Output:
	// example.com/m/calc::TestAdd failed: calc_test.go:9: Add(2, 3) = 4, want 5
	// example.com/m/db::<package failed> error: panic: init: no database
	// report: go-test.json:9: go test -json stream cut short: package "example.com/m/db" never ended
}
