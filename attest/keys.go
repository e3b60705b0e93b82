package attest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"os"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
)

// The PEM block types of the key forms taken.
const (
	pemPrivate = "PRIVATE KEY" // PKCS #8
	pemPublic  = "PUBLIC KEY"  // PKIX
)

// ReadKeyFile reads a key file of at most MaxKeyBytes.
func ReadKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxKeyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrKey, path, err)
	}
	if len(b) > MaxKeyBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d KiB: not a key file", ErrKey, path, MaxKeyBytes>>10)
	}
	return b, nil
}

// LoadSigner returns the DSSE signer of a private key in PEM: PKCS #8
// ("PRIVATE KEY"), ECDSA on P-256 or Ed25519, unencrypted. The signer
// comes from go-securesystemslib; its key id is the securesystemslib key
// id of the public key, which LoadVerifier gives the public key too.
func LoadSigner(pemBytes []byte) (dsse.SignerVerifier, error) {
	if _, err := parseKey(pemBytes, pemPrivate); err != nil {
		return nil, err
	}
	return signerVerifier(pemBytes)
}

// LoadVerifier returns the DSSE verifier of a public key in PEM: PKIX
// ("PUBLIC KEY"), ECDSA on P-256 or Ed25519.
func LoadVerifier(pemBytes []byte) (dsse.Verifier, error) {
	if _, err := parseKey(pemBytes, pemPublic); err != nil {
		return nil, err
	}
	return signerVerifier(pemBytes)
}

func signerVerifier(pemBytes []byte) (dsse.SignerVerifier, error) {
	key, err := signerverifier.LoadKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	switch key.KeyType {
	case signerverifier.ED25519KeyType:
		sv, err := signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKey, err)
		}
		return sv, nil
	case signerverifier.ECDSAKeyType:
		sv, err := signerverifier.NewECDSASignerVerifierFromSSLibKey(key)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKey, err)
		}
		return sv, nil
	}
	return nil, fmt.Errorf("%w: key type %s is not taken (ECDSA P-256 or Ed25519)", ErrKey, key.KeyType)
}

// parseKey checks that pemBytes holds exactly one PEM block of type want
// holding an ECDSA P-256 or Ed25519 key, and says what is wrong otherwise.
func parseKey(pemBytes []byte, want string) (any, error) {
	block, rest := pem.Decode(pemBytes)
	if block == nil {
		return nil, fmt.Errorf("%w: not a PEM file (want a %q block)", ErrKey, want)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("%w: more than one PEM block: a key file holds one key", ErrKey)
	}
	switch block.Type {
	case want:
	case pemPublic:
		return nil, fmt.Errorf("%w: a public key: signing needs the private key (PKCS #8 %q)", ErrKey, pemPrivate)
	case pemPrivate:
		return nil, fmt.Errorf("%w: a private key: verifying takes the public key (openssl pkey -in KEY -pubout)", ErrKey)
	case "EC PRIVATE KEY":
		return nil, fmt.Errorf("%w: an SEC 1 EC key: convert it to PKCS #8 (openssl pkcs8 -topk8 -nocrypt -in KEY)", ErrKey)
	case "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("%w: an encrypted private key: give it unencrypted (openssl pkey -in KEY)", ErrKey)
	default:
		return nil, fmt.Errorf("%w: a %q PEM block: want %q", ErrKey, block.Type, want)
	}
	var key any
	var err error
	if want == pemPrivate {
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	} else {
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	switch k := key.(type) {
	case ed25519.PrivateKey, ed25519.PublicKey:
		return key, nil
	case *ecdsa.PrivateKey:
		if k.Curve == elliptic.P256() {
			return key, nil
		}
		return nil, fmt.Errorf("%w: an ECDSA key on %s: only P-256 is taken", ErrKey, k.Curve.Params().Name)
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return key, nil
		}
		return nil, fmt.Errorf("%w: an ECDSA key on %s: only P-256 is taken", ErrKey, k.Curve.Params().Name)
	case *rsa.PrivateKey, *rsa.PublicKey:
		return nil, fmt.Errorf("%w: an RSA key: ECDSA P-256 or Ed25519 is taken", ErrKey)
	}
	return nil, fmt.Errorf("%w: a %T key: ECDSA P-256 or Ed25519 is taken", ErrKey, key)
}
