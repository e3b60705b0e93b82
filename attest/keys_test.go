package attest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeysRefused(t *testing.T) {
	ed := ed25519Pair(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	rsa8, err := x509.MarshalPKCS8PrivateKey(rsaKey)
	rsaPriv := pemBlock(t, "PRIVATE KEY", rsa8, err)
	rsaPKIX, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	rsaPub := pemBlock(t, "PUBLIC KEY", rsaPKIX, err)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	p384der, err := x509.MarshalPKCS8PrivateKey(p384)
	p384Priv := pemBlock(t, "PRIVATE KEY", p384der, err)
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	sec1, err := x509.MarshalECPrivateKey(p256)
	sec1Priv := pemBlock(t, "EC PRIVATE KEY", sec1, err)

	for _, tc := range []struct {
		name   string
		key    []byte
		signer bool
		want   string
	}{
		{"not PEM", []byte(`{"keytype": "ed25519"}`), true, "not a PEM file"},
		{"public key to sign", ed.public, true, "a public key: signing needs the private key"},
		{"private key to verify", ed.private, false, "a private key: verifying takes the public key"},
		{"RSA private", rsaPriv, true, "an RSA key"},
		{"RSA public", rsaPub, false, "an RSA key"},
		{"P-384", p384Priv, true, "only P-256 is taken"},
		{"SEC 1", sec1Priv, true, "convert it to PKCS #8"},
		{"two blocks", append(append([]byte{}, ed.private...), ed.private...), true, "more than one PEM block"},
		{"a certificate", pemBlock(t, "CERTIFICATE", []byte{1, 2, 3}, nil), false, `a "CERTIFICATE" PEM block`},
		{"garbage in the block", pemBlock(t, "PUBLIC KEY", []byte("not DER"), nil), false, "asn1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.signer {
				_, err = LoadSigner(tc.key)
			} else {
				_, err = LoadVerifier(tc.key)
			}
			require.ErrorIs(t, err, ErrKey)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestKeyIDsAgree(t *testing.T) {
	for _, k := range []keyPair{ed25519Pair(t), p256Pair(t)} {
		s, err := LoadSigner(k.private)
		require.NoError(t, err)
		v, err := LoadVerifier(k.public)
		require.NoError(t, err)
		sid, err := s.KeyID()
		require.NoError(t, err)
		vid, err := v.KeyID()
		require.NoError(t, err)
		assert.Equal(t, sid, vid, "the signature's key id is the public key's")
		assert.Len(t, sid, 64)
	}
}

func TestReadKeyFileBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "key.pem")
	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("A", MaxKeyBytes+1)), 0o600))
	_, err := ReadKeyFile(p)
	require.ErrorIs(t, err, ErrKey)
	assert.Contains(t, err.Error(), "larger than 64 KiB")
	_, err = ReadKeyFile(filepath.Join(t.TempDir(), "absent.pem"))
	require.ErrorIs(t, err, ErrKey)
}
