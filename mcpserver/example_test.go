package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangar-dev/testresults/mcpserver"
	"github.com/hangar-dev/testresults/store"
)

// A server over a store, and a client of the SDK connected to it in the
// same process; over stdio it would be srv.Run(ctx, &mcp.StdioTransport{}).
func Example() {
	if err := listServer(context.Background()); err != nil {
		fmt.Println(err)
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

func listServer(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "mcpserver-example")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, filepath.Join(dir, "store.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := mcpserver.New(st)
	if err != nil {
		return err
	}
	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, serverSide, nil); err != nil {
		return err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			return err
		}
		fmt.Println(rt.URITemplate)
	}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		fmt.Println(tool.Name)
	}
	return nil
}
