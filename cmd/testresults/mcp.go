package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/mcpserver"
)

func init() {
	register(command{name: "mcp", synopsis: "a Model Context Protocol server over stored runs, for agents (stdio or HTTP)", run: runMCP})
}

type mcpOptions struct {
	store                       *storeFlag
	http, reportsDir, tokenFile string
}

func newMCPFlags() (*pflag.FlagSet, *mcpOptions) {
	fs := newFlagSet("mcp")
	o := &mcpOptions{}
	o.store = addStoreFlag(fs, "store", "the store", serveStoreConns, false)
	fs.StringVar(&o.http, "http", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT) instead of stdio")
	fs.StringVar(&o.reportsDir, "reports-dir", "", "the one folder parse_reports may read (default: none, parse_reports is refused)")
	fs.StringVar(&o.tokenFile, "admin-token-file", "", "a file whose first line is the admin bearer token (default: $HANGAR_ADMIN_TOKEN)")
	return fs, o
}

func runMCP(ctx context.Context, args []string, env Env) error {
	fs, o := newMCPFlags()
	cf := flagsFor("mcp", clidoc.Help("mcp"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cf.usageErr("mcp takes no arguments")
	}
	if o.http != "" {
		if err := mcpserver.CheckLoopback(o.http); err != nil {
			return cf.usageErr("--http: %v", err)
		}
	}
	token, st, err := openServed(ctx, cf, env, o.tokenFile, o.store)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	bi, _ := debug.ReadBuildInfo() // nil without build information: "(devel)"
	srv, err := mcpserver.New(st, mcpserver.WithAdminToken(token), mcpserver.WithReportsDir(o.reportsDir),
		mcpserver.WithEnviron(env.Environ()), mcpserver.WithVersion(clidoc.ModuleVersion(bi)))
	if err != nil {
		return cf.usageErr("--reports-dir: %v", err)
	}
	if o.http == "" {
		return srv.ServeStdio(ctx, env.Stdin, env.Stdout)
	}
	ln, err := mcpserver.Listen(o.http)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "testresults mcp: listening on http://%s\n", ln.Addr())
	if err := srv.ServeListener(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(env.Stderr, "testresults mcp: stopped")
	return nil
}
