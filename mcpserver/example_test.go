package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangar-dev/testresults/mcpserver"
	"github.com/hangar-dev/testresults/store"
)

// A server over a store, and a client of the SDK connected to it in the
// same process; over stdio it would be srv.Run(ctx, &mcp.StdioTransport{}).
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "mcpserver-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, filepath.Join(dir, "store.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	srv, err := mcpserver.New(st)
	if err != nil {
		log.Fatal(err)
	}
	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, serverSide, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rt.URITemplate)
	}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tool.Name)
	}
	// Output:
	// testresults://jobs/{id}/tests
	// testresults://sessions/{ref}/tests
	// diff_runs
	// flaky_list
	// job_tests
	// parse_reports
	// verdict
}
