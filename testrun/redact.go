package testrun

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Redacted replaces a secret in a message.
const Redacted = "[REDACTED]"

// minEnvSecret is the shortest environment value that is hidden: shorter
// values ("1", "true") would blank out ordinary words.
const minEnvSecret = 6

// secretKey matches names that look secret: password, passwd, secret, token,
// api_key, apikey, auth, authorization, credential(s), private_key, with any
// prefix (client_secret, GITHUB_TOKEN, accessToken) and separated suffixes
// (token_value, password-file). "author" or "tokens" do not match. For
// environment variables, names ending in _KEY look secret too.
const secretKey = `(?:[A-Za-z0-9]+[_.-])*[A-Za-z0-9]*(?i:password|passwd|secret|token|api[_-]?key|apikey|auth|authorization|credentials?|private[_-]?key)(?:[_.-][A-Za-z0-9]+)*`

// keySep separates a key from its value: '=' or ':' (a quoted key's colon,
// or one followed by a space), then an optional auth scheme.
const keySep = `(?:["']\s*[:=]\s*|\s*=\s*|\s*:\s+)(?:(?i:bearer|basic|digest|token)\s+)?`

var (
	// Each pattern keeps its first group and replaces the rest of the match.
	redactPatterns = []*regexp.Regexp{
		// Private key blocks, also when clipping cut off their end.
		regexp.MustCompile(`()-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)`),
		// key=value and key: value pairs whose key looks secret, first, so
		// that "Authorization: Bearer x" keeps its scheme. A quoted value
		// keeps its quotes. "auth_test.go:15:" (no space after the colon)
		// is a position, not a pair.
		regexp.MustCompile(`(\b` + secretKey + keySep + `")[^"\n]*(")`),
		regexp.MustCompile(`(\b` + secretKey + keySep + `')[^'\n]*(')`),
		regexp.MustCompile(`(\b` + secretKey + keySep + `)[^\s"',;&)}\[\]]+`),
		// Authorization headers and bearer/basic tokens.
		regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*`),
		// Passwords in URLs: scheme://user:password@host.
		regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*:)[^@\s/]+(@)`),
		// AWS access key ids.
		regexp.MustCompile(`()\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b`),
		// Well-known API key and token shapes.
		regexp.MustCompile(`()\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9\-_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|AIza[0-9A-Za-z\-_]{35}|npm_[A-Za-z0-9]{36}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`),
	}
	envKey = regexp.MustCompile(`^(?:` + secretKey + `|.*_(?i:key))$`)
)

// Redactor hides secrets in messages: bearer tokens, API keys, passwords in
// URLs, private key blocks, AWS-style keys, key=value pairs whose key looks
// secret, and the values of environment variables whose names look secret.
// It replaces the secret, not the whole message. A Redactor is safe for
// concurrent use.
type Redactor struct {
	env *strings.Replacer
}

// NewRedactor returns a Redactor that also hides the values of the
// secret-looking variables in environ ("NAME=value" entries, as os.Environ
// returns them).
func NewRedactor(environ []string) *Redactor {
	var values []string
	seen := map[string]bool{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || len(value) < minEnvSecret || seen[value] || !envKey.MatchString(name) {
			continue
		}
		seen[value] = true
		values = append(values, value)
	}
	r := &Redactor{}
	if len(values) > 0 {
		// Longest first, so a value that contains another is hidden whole.
		sort.Slice(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
		pairs := make([]string, 0, 2*len(values))
		for _, v := range values {
			pairs = append(pairs, v, Redacted)
		}
		r.env = strings.NewReplacer(pairs...)
	}
	return r
}

var (
	defaultRedactor     *Redactor
	defaultRedactorOnce sync.Once
)

// DefaultRedactor returns a Redactor over this process's environment, made
// once.
func DefaultRedactor() *Redactor {
	defaultRedactorOnce.Do(func() { defaultRedactor = NewRedactor(os.Environ()) })
	return defaultRedactor
}

// Redact returns s with its secrets replaced by Redacted.
func (r *Redactor) Redact(s string) string {
	if s == "" {
		return s
	}
	if r != nil && r.env != nil {
		s = r.env.Replace(s)
	}
	for _, re := range redactPatterns {
		s = re.ReplaceAllString(s, "${1}"+Redacted+"${2}")
	}
	return s
}

// Clip returns s cut to at most n characters (runes); a clipped string ends
// with "…" within those n. Invalid UTF-8 is replaced, so the result is always
// valid UTF-8.
func Clip(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i] + "…"
}
