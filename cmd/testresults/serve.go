package main

import (
	"context"
	"fmt"
	"net"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/serve"
	"github.com/hangar-dev/testresults/store"
)

func init() {
	register(command{name: "serve", synopsis: "the query API and pages over stored runs; admins keep quarantine", run: runServe})
}

type serveOptions struct {
	listen    string
	store     *storeFlag
	tokenFile string
}

func newServeFlags() (*pflag.FlagSet, *serveOptions) {
	fs := newFlagSet("serve")
	o := &serveOptions{}
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "the address to listen on")
	o.store = addStoreFlag(fs, "store", "the store", serveStoreConns, false)
	fs.StringVar(&o.tokenFile, "admin-token-file", "", "a file whose first line is the admin bearer token (default: $HANGAR_ADMIN_TOKEN)")
	return fs, o
}

// openServed reads the admin token (tokenFile, else $HANGAR_ADMIN_TOKEN)
// and opens the store, listening for writes (store.WithWatch), as a
// server of stored runs (serve, mcp) starts: a bad token file or store
// flag is a usage error of cf.
func openServed(ctx context.Context, cf *cmdFlags, env Env, tokenFile string, sf *storeFlag) (string, store.Store, error) {
	token, err := serve.ReadAdminToken(tokenFile, env.Getenv)
	if err != nil {
		return "", nil, cf.usageErr("--admin-token-file: %v", err)
	}
	loc, err := sf.location(env)
	if err != nil {
		return "", nil, cf.usageErr("%v", err)
	}
	st, err := sf.open(ctx, loc, store.WithWatch())
	return token, st, err
}

func runServe(ctx context.Context, args []string, env Env) error {
	fs, o := newServeFlags()
	cf := flagsFor("serve", clidoc.Help("serve"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cf.usageErr("serve takes no arguments")
	}
	token, st, err := openServed(ctx, cf, env, o.tokenFile, o.store)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	tel, err := serve.NewTelemetry(ctx, env.Getenv)
	if err != nil {
		_ = ln.Close() // an error path: the settings error is the one to report
		// The environment's exporter settings are unusable: a usage
		// error, without the usage (no flag of serve is at fault).
		return &exitCode{code: exitUsage, msg: err.Error()}
	}
	defer tel.Shutdown()
	srv := serve.New(st, serve.Options{AdminToken: token, AccessLog: env.Stderr, TracerProvider: tel.TracerProvider, MeterProvider: tel.MeterProvider})
	fmt.Fprintf(env.Stderr, "testresults serve: listening on http://%s\n", ln.Addr())
	if err := serve.Serve(ctx, ln, srv.Handler()); err != nil {
		return err
	}
	fmt.Fprintln(env.Stderr, "testresults serve: stopped")
	return nil
}
