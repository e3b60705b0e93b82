package exporter_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/config/configtls"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/testrun"
)

// writeCA writes a CA and a certificate it signs for 127.0.0.1 into dir and
// returns the paths of the CA, the certificate and its key.
func writeCA(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	require.NoError(t, err)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return p
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("server.pem", "CERTIFICATE", srvDER), write("server-key.pem", "EC PRIVATE KEY", keyDER)
}

// TestTLSCertificateFromEnvironment: OTEL_EXPORTER_OTLP_CERTIFICATE from
// the injected environment makes the receiver's certificate trusted, over
// gRPC and HTTP; without it the export fails at once with the hint.
func TestTLSCertificateFromEnvironment(t *testing.T) {
	clearOTelEnv(t)
	ca, cert, key := writeCA(t, t.TempDir())
	tlsCfg := configoptional.Some(configtls.ServerConfig{Config: configtls.Config{CertFile: cert, KeyFile: key}})
	runs := []*testrun.Run{readRun(t, "failures/run.json")}
	for _, p := range []exporter.Protocol{exporter.ProtocolGRPC, exporter.ProtocolHTTPProtobuf} {
		t.Run(string(p), func(t *testing.T) {
			f := otlpreceiver.NewFactory()
			cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
			addr := testnet.FreeAddr(t)
			if p == exporter.ProtocolGRPC {
				g := cfg.Protocols.GRPC.GetOrInsertDefault()
				g.NetAddr.Endpoint, g.TLS = addr, tlsCfg
			} else {
				h := cfg.Protocols.HTTP.GetOrInsertDefault()
				h.ServerConfig.NetAddr.Endpoint, h.ServerConfig.TLS = addr, tlsCfg
			}
			sink := new(consumertest.TracesSink)
			r, err := f.CreateTraces(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, sink)
			require.NoError(t, err)
			require.NoError(t, r.Start(context.Background(), componenttest.NewNopHost()))
			t.Cleanup(func() { require.NoError(t, r.Shutdown(context.Background())) })
			o := exporter.OTLPOptions{Protocol: p, Endpoint: addr, Timeout: 10 * time.Second}

			start := time.Now()
			_, err = exporter.ExportRuns(context.Background(), runs, exporter.Options{Getenv: noEnv, OTLP: o})
			require.ErrorIs(t, err, exporter.ErrPermanent, "%v", err)
			var de *exporter.DeliveryError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, 1, de.Attempts, "not retried")
			assert.Contains(t, err.Error(), "OTEL_EXPORTER_OTLP_CERTIFICATE")
			assert.Less(t, time.Since(start), 5*time.Second, "not retried for the 10 s timeout")

			// Plaintext to the TLS port is retried (a closed connection may
			// be transient) and then explained.
			insecure := o
			insecure.Insecure, insecure.Timeout = true, time.Second
			_, err = exporter.ExportRuns(context.Background(), runs, exporter.Options{Getenv: noEnv, OTLP: insecure})
			require.Error(t, err)
			assert.NotErrorIs(t, err, exporter.ErrPermanent)
			assert.Contains(t, err.Error(), "drop --otlp-insecure")

			_, err = exporter.ExportRuns(context.Background(), runs, exporter.Options{OTLP: o,
				Getenv: envOf(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": ca})})
			require.NoError(t, err)
			waitSpans(t, sink, 1)
		})
	}
}
