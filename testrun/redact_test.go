package testrun

import (
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/lazyre"
)

func TestRedact(t *testing.T) {
	r := NewRedactor([]string{
		"GITHUB_TOKEN=ghs_0123456789abcdefghijABCDEFGHIJ0123",
		"DEPLOY_KEY=deploy-key-value-xyz",
		"HOME=/home/user",
		"SHORT_TOKEN=abc",
		"AUTHOR=Jane Doe",
	})
	tests := []struct {
		name, in, want string
	}{
		{"bearer", "request had Authorization: Bearer abc.def.ghi123 and failed", "request had Authorization: Bearer [REDACTED] and failed"},
		{"lowercase bearer", "got bearer eyJhbGciOiJIUzI1NiJ9xx", "got bearer [REDACTED]"},
		{"url password", "cannot connect to postgres://app:s3cret@db:5432/x", "cannot connect to postgres://app:[REDACTED]@db:5432/x"},
		{"aws key id", "key AKIAIOSFODNN7EXAMPLE was used", "key [REDACTED] was used"},
		{"aws secret pair", "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key=[REDACTED]"},
		{"key=value", "login failed password=hunter2 user=bob", "login failed password=[REDACTED] user=bob"},
		{"key: value", "config api_key: 12345abcdef rest", "config api_key: [REDACTED] rest"},
		{"json pair", `{"client_secret":"abc def","id":1}`, `{"client_secret":"[REDACTED]","id":1}`},
		{"quoted", "passwd='p a s s' ok", "passwd='[REDACTED]' ok"},
		{"camel case", "accessToken=xyz123 next", "accessToken=[REDACTED] next"},
		{"github token shape", "token ghp_0123456789abcdefghijABCDEFGHIJ012345 leaked", "token [REDACTED] leaked"},
		{"env value", "pushing with ghs_0123456789abcdefghijABCDEFGHIJ0123", "pushing with [REDACTED]"},
		{"env _KEY value", "used deploy-key-value-xyz here", "used [REDACTED] here"},
		{"private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\ndone", "key:\n[REDACTED]\ndone"},
		{"clipped private key", "x -----BEGIN PRIVATE KEY-----\nMIIE", "x [REDACTED]"},
		{"not a secret: author", "author: Jane Doe", "author: Jane Doe"},
		{"not a secret: tokens count", "tokens: 5", "tokens: 5"},
		{"not a secret: file position", "auth_test.go:15: got 401 want 200", "auth_test.go:15: got 401 want 200"},
		{"short env values stay", "abc is fine", "abc is fine"},
		{"home stays", "/home/user/x.go", "/home/user/x.go"},
		{"idempotent", "password=[REDACTED] ok", "password=[REDACTED] ok"},
		{"go test name and position", "TestAuth: auth_test.go:15: expected status 200", "TestAuth: auth_test.go:15: expected status 200"},
		{"parser prose", "parse error: unexpected token: EOF at line 3", "parse error: unexpected token: EOF at line 3"},
		{"prose after token", "token: expected identifier", "token: expected identifier"},
		{"prose after header name", "expected Authorization: header to be set", "expected Authorization: header to be set"},
		{"prose after credentials", "invalid credentials: user bob", "invalid credentials: user bob"},
		{"secret after colon", "config token: s3cr3t-v4lue here", "config token: [REDACTED] here"},
		{"comparison is not a pair", "assert response.token == 'x'", "assert response.token == 'x'"},
		{"not equal is not a pair", "token != expected", "token != expected"},
		{"arrow", "client_secret => 'abc'", "client_secret => '[REDACTED]'"},
		{"go assignment", `token := "abc123"`, `token := "[REDACTED]"`},
		{"escaped quote", `api_key="abc\"def" rest`, `api_key="[REDACTED]" rest`},
		{"cli flag", "ran deploy --password hunter2 --user bob", "ran deploy --password [REDACTED] --user bob"},
		{"cli flag single dash", "tool -token abc123", "tool -token [REDACTED]"},
		{"hyphen inside a word", "non-auth value stays", "non-auth value stays"},
		{"pgp private key", "k -----BEGIN PGP PRIVATE KEY BLOCK-----\nlQdGBF\n-----END PGP PRIVATE KEY BLOCK----- end", "k [REDACTED] end"},
		// Go's %+v of a struct and %v of a map: key:value with nothing between.
		{"go struct", "got {AccessKeyID:AKIAIOSFODNN7EXAMPLE SecretAccessKey:wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY SessionToken:FwoGZXIvYXdzEBYaDHJlYWxseXNlY3JldA}",
			"got {AccessKeyID:[REDACTED] SecretAccessKey:[REDACTED] SessionToken:[REDACTED]}"},
		{"go struct pointer", "&{User:bob Password:Sup3rS3cretPassw0rd! Port:5432}", "&{User:bob Password:[REDACTED] Port:5432}"},
		{"go map", "map[region:eu token:abc123xyz]", "map[region:eu token:[REDACTED]]"},
		{"file position is not a pair", "auth_test.go:15: token_test.go:9: auth:15 token:12", "auth_test.go:15: token_test.go:9: auth:15 token:12"},
		{"url after a secret word", "auth:https://example.com/x", "auth:https://example.com/x"},
		{"camel case key", "secretKey=abc123 accountKey=zz", "secretKey=[REDACTED] accountKey=[REDACTED]"},
		{"access_key", "access_key=abcdef123 sort_key=3", "access_key=[REDACTED] sort_key=3"},
		{"azure connection string", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6+qux/==;EndpointSuffix=core",
			"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[REDACTED];EndpointSuffix=core"},
		{"url password with a slash", "dial postgres://app:abc/def123@db:5432/x failed", "dial postgres://app:[REDACTED]@db:5432/x failed"},
		{"url password with an at", "dial postgres://app:p@ss/w0rd@db/x failed", "dial postgres://app:[REDACTED]@db/x failed"},
		{"url port and path", "GET http://localhost:8080/users/@me failed", "GET http://localhost:8080/users/@me failed"},
		{"gitlab tokens", "glcbt-64_abcdefghijklmnopqrstu glrt-abcdefghijklmnopqrstuv gldt-abcdefghijklmnopqrstuv", "[REDACTED] [REDACTED] [REDACTED]"},
		{"go values that are not secrets", "got {Token:IDENT Literal:x} &{Kind:3 Token:{Type:IDENT Lit:foo}} map[auth:true role:admin] SessionToken:nil (token:EOF)",
			"got {Token:IDENT Literal:x} &{Kind:3 Token:{Type:IDENT Lit:foo}} map[auth:true role:admin] SessionToken:nil (token:EOF)"},
		{"names and tags that are not secrets", "-auth:enabled +auth:disabled pulling my-auth:latest test_login[token:abc] ● auth › token:refresh › works",
			"-auth:enabled +auth:disabled pulling my-auth:latest test_login[token:abc] ● auth › token:refresh › works"},
		{"url query after a port", "GET http://localhost:3000?redirect=/login@home", "GET http://localhost:3000?redirect=/login@home"},
		{"url password in compact json", `{"db":"postgres://app:pw1@db/x","owner":"bob@example.com"}`, `{"db":"postgres://app:[REDACTED]@db/x","owner":"bob@example.com"}`},
		{"slack webhook", "posting to https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX failed", "posting to https://hooks.slack.com/services/[REDACTED] failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, r.Redact(tt.in))
		})
	}
}

func TestClip(t *testing.T) {
	assert.Equal(t, "abc", Clip("abc", 3))
	assert.Equal(t, "ab…", Clip("abcd", 3))
	assert.Equal(t, "åä…", Clip("åäöü", 3))
	assert.Equal(t, "", Clip("abc", 0))
	s := Clip("a\xffb"+strings.Repeat("é", 10), 5)
	assert.True(t, utf8.ValidString(s))
	assert.Equal(t, 5, utf8.RuneCountInString(s))
}

func BenchmarkRedact(b *testing.B) {
	r := NewRedactor([]string{"API_TOKEN=abcdefghijkl"})
	msg := strings.Repeat("assertion failed: expected 1 got 2 at foo_test.go:12\n", 36) // ~2 KB
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		r.Redact(msg)
	}
}

func TestRedactPrivateKeyAfterSecretKey(t *testing.T) {
	r := NewRedactor(nil)
	got := r.Redact("private_key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY----- tail")
	assert.NotContains(t, got, "b3BlbnNzaC1rZXk")
	assert.Contains(t, got, "tail")
}

// TestRedactPrefilters checks the one-pass checks that decide whether a
// shape's pattern runs against the substring searches they stand for.
func TestRedactPrefilters(t *testing.T) {
	var inputs []string
	for _, p := range keyPrefixes {
		inputs = append(inputs, p, "x "+p+"abc", p[:len(p)-1], strings.ToUpper(p), "a"+p)
	}
	inputs = append(inputs, "", "gh", "g", "Authorization: Bearer abc", "BEARER", "bEaReR", "beare", "xbearerx", "béarer", "sk", "s k-")
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := "ghixoskAIzanpmeyJ_-bBeErRaA "
	for range 3000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		assert.Equal(t, containsAny(s, keyPrefixes...), mayHoldKey(s), "%q", s)
		assert.Equal(t, strings.Contains(strings.ToLower(s), "bearer"), containsFold(s, "bearer"), "%q", s)
	}
}

// TestRedactPatternsCompile: the patterns are compiled on first use, so a
// pattern that does not compile would panic only when a message needs it.
func TestRedactPatternsCompile(t *testing.T) {
	for _, sh := range shapes {
		assert.NotPanics(t, func() { sh.re.Regexp() }, sh.re.String())
	}
	assert.NotPanics(t, func() { filePosition.Regexp() })
	assert.NotPanics(t, func() { cliFlag.Regexp() })
}

// TestRedactPlainTextCompilesNoPattern: a message that no cheap check
// suspects costs no pattern compilation. It runs in a fresh process, where
// no other test has compiled one.
func TestRedactPlainTextCompilesNoPattern(t *testing.T) {
	if os.Getenv("TESTRUN_REDACT_CHILD") == "1" {
		r := NewRedactor([]string{"API_TOKEN=s3cr3t-value"})
		for _, msg := range []string{
			"sum_test.go:12: got 3, want 4",
			"AssertionError: assert 1 == 2\n  at test_app.py:7",
			"expected: 3, actual: 4 (see the verbose output)",
		} {
			if got := r.Redact(msg); got != msg {
				fmt.Printf("changed %q to %q\n", msg, got)
			}
		}
		for _, re := range append([]*lazyre.Regexp{filePosition, cliFlag}, shapeRegexps()...) {
			if re.Compiled() {
				fmt.Printf("compiled %s\n", re)
			}
		}
		return
	}
	cmd := osexec.Command(os.Args[0], "-test.run=^TestRedactPlainTextCompilesNoPattern$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TESTRUN_REDACT_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NotContains(t, string(out), "compiled ")
	assert.NotContains(t, string(out), "changed ")
	assert.Contains(t, string(out), "PASS")
}

func shapeRegexps() []*lazyre.Regexp {
	var out []*lazyre.Regexp
	for _, sh := range shapes {
		out = append(out, sh.re)
	}
	return out
}
