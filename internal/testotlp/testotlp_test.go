package testotlp_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/hangar-dev/testresults/internal/testotlp"
)

func oneSpan() ptrace.Traces {
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("s")
	return td
}

func TestStartDelivers(t *testing.T) {
	for _, p := range []testotlp.Protocol{testotlp.GRPC, testotlp.HTTP} {
		t.Run(map[testotlp.Protocol]string{testotlp.GRPC: "grpc", testotlp.HTTP: "http"}[p], func(t *testing.T) {
			sink := new(consumertest.TracesSink)
			addr := testotlp.Start(t, testotlp.Options{Protocol: p}, sink)
			req := ptraceotlp.NewExportRequestFromTraces(oneSpan())
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if p == testotlp.GRPC {
				conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
				require.NoError(t, err)
				defer conn.Close()
				_, err = ptraceotlp.NewGRPCClient(conn).Export(ctx, req)
				require.NoError(t, err)
			} else {
				b, err := req.MarshalProto()
				require.NoError(t, err)
				hr, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/traces", bytes.NewReader(b))
				require.NoError(t, err)
				hr.Header.Set("Content-Type", "application/x-protobuf")
				resp, err := http.DefaultClient.Do(hr)
				require.NoError(t, err)
				resp.Body.Close()
				require.Equal(t, http.StatusOK, resp.StatusCode)
			}
			require.Eventually(t, func() bool { return sink.SpanCount() == 1 }, 10*time.Second, 10*time.Millisecond)
		})
	}
}
