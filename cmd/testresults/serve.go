package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/serve"
	"github.com/hangar-dev/testresults/store"
)

func init() {
	register(command{name: "serve", synopsis: "the read-only query API and pages over stored runs", run: runServe})
}

const serveUsage = `Usage: testresults serve [--listen 127.0.0.1:8080] [--store URL] [--admin-token-file F]

Serves the stored runs, read-only:
  GET /api/jobs/{id}/tests          a job's summary, its runs, its latest run
  GET /api/sessions/{ref}/tests     the same for a session
      ?run=ID                       one run; &cases=true adds its cases,
                                    5,000 a page, with a next link
      ?format=otel                  the runs as OTLP/JSON spans, the bytes
                                    export --format otlp-json --job ID writes
  GET /api/repos/tests/flaky?repo=R a repository's flaky list (admins:
                                    Authorization: Bearer TOKEN)
  GET /jobs/{id}                    the job's summary as an HTML page
Errors are application/problem+json: 400 bad parameters, 401 no token,
403 a wrong token, 404 unknown ids.

The admin token is the first line of --admin-token-file, else
$HANGAR_ADMIN_TOKEN; without one the flaky list is refused to everyone.
The store is --store, else $HANGAR_STORE, else ~/.hangar/store.db; it opens
at most --store-max-conns connections (default 16).
One access-log line per request goes to stderr. The server's own spans (one
per request, named by route) go over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT
or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (OTEL_TRACES_EXPORTER=none
turns them off); the OTEL_EXPORTER_OTLP_* variables are honoured as export's.
Its HTTP metrics (http.server.request.duration, body sizes) go over OTLP
when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is
set (OTEL_METRICS_EXPORTER=none turns them off; the _METRICS_ variables
first, then the generic ones; every OTEL_METRIC_EXPORT_INTERVAL, default
60000 ms, and once more on stop). SIGINT or SIGTERM stops the server
gracefully.

Exit codes: 0 stopped by a signal; 1 the server failed; 2 usage error.

Flags:
`

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

// adminToken reads the admin token from the file or the environment.
func (o *serveOptions) adminToken(env Env) (string, error) {
	if o.tokenFile == "" {
		return strings.TrimSpace(env.Getenv("HANGAR_ADMIN_TOKEN")), nil
	}
	data, err := os.ReadFile(o.tokenFile)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	tok := strings.TrimSpace(line)
	if tok == "" {
		return "", fmt.Errorf("%s: no token on its first line", o.tokenFile)
	}
	return tok, nil
}

// openServed reads the admin token (tokenFile, else $HANGAR_ADMIN_TOKEN)
// and opens the store, as a server of stored runs (serve, mcp) starts:
// a bad token file or store flag is a usage error of cf.
func openServed(ctx context.Context, cf *cmdFlags, env Env, tokenFile string, sf *storeFlag) (string, store.Store, error) {
	token, err := (&serveOptions{tokenFile: tokenFile}).adminToken(env)
	if err != nil {
		return "", nil, cf.usageErr("--admin-token-file: %v", err)
	}
	loc, err := sf.location(env)
	if err != nil {
		return "", nil, cf.usageErr("%v", err)
	}
	st, err := sf.open(ctx, loc)
	return token, st, err
}

func runServe(ctx context.Context, args []string, env Env) error {
	fs, o := newServeFlags()
	cf := flagsFor("serve", serveUsage, fs)
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
	tel, err := newServeTelemetry(ctx, env)
	if err != nil {
		_ = ln.Close() // an error path: the settings error is the one to report
		// The environment's exporter settings are unusable: a usage
		// error, without the usage (no flag of serve is at fault).
		return &exitCode{code: exitUsage, msg: err.Error()}
	}
	defer tel.shutdown()
	srv := serve.New(st, serve.Options{AdminToken: token, AccessLog: env.Stderr, TracerProvider: tel.tp, MeterProvider: tel.mp})
	fmt.Fprintf(env.Stderr, "testresults serve: listening on http://%s\n", ln.Addr())
	if err := serve.Serve(ctx, ln, srv.Handler()); err != nil {
		return err
	}
	fmt.Fprintln(env.Stderr, "testresults serve: stopped")
	return nil
}
