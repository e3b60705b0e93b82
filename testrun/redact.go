package testrun

import (
	"os"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hangar-dev/testresults/internal/lazyre"
)

// Redacted replaces a secret in a message.
const Redacted = "[REDACTED]"

// minEnvSecret is the shortest environment value that is hidden: shorter
// values ("1", "true") would blank out ordinary words.
const minEnvSecret = 6

// secretWords are the words that make a key or a variable name look secret
// when a segment of the name (split at '_', '.', '-') ends with one:
// client_secret, GITHUB_TOKEN, accessToken, x-auth. "author" or "tokens" do
// not match.
var secretWords = []string{"password", "passwd", "secret", "token", "apikey", "auth", "authorization", "credential", "credentials", "privatekey",
	"secretkey", "accesskey", "accountkey", "signingkey", "encryptionkey", "masterkey", "sharedkey", "subscriptionkey"}

// keyQualifiers make a following "key" segment secret: api_key, private-key,
// SECRET_KEY, access_key, account.key.
var keyQualifiers = []string{"api", "private", "secret", "access", "account", "signing", "encryption", "master", "shared", "subscription"}

// secretName reports whether a key or variable name looks secret. api_key,
// api-key, private_key and access_key count as one word, as do the
// camel-case SecretAccessKey and AccountKey. It does not allocate.
func secretName(name string) bool {
	prev := "" // the segment before the current one
	for name != "" {
		i := strings.IndexAny(name, "_.-")
		seg := name
		if i >= 0 {
			seg, name = name[:i], name[i+1:]
		} else {
			name = ""
		}
		if strings.EqualFold(seg, "key") {
			for _, q := range keyQualifiers {
				if hasSuffixFold(prev, q) {
					return true
				}
			}
		}
		for _, w := range secretWords {
			if hasSuffixFold(seg, w) {
				return true
			}
		}
		prev = seg
	}
	return false
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// secretEnvName reports whether an environment variable's value is hidden:
// its name looks secret, or ends in _KEY.
func secretEnvName(name string) bool {
	return secretName(name) || strings.HasSuffix(strings.ToUpper(name), "_KEY")
}

// shape is a secret pattern with the cheap test that must hold before the
// pattern is worth running: the patterns cost far more per byte than a
// substring search.
type shape struct {
	re    *lazyre.Regexp // compiled the first time a message passes maybe
	maybe func(s string) bool
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// keyPrefixes are the words the API key and token shapes start with.
var keyPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "glcbt-", "glrt-", "gldt-", "glptt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "GR1348941",
	"xox", "sk-", "sk_live_", "sk_test_", "AIza", "npm_", "eyJ"}

// keyPairs has a bit set for the first two bytes of each of keyPrefixes,
// indexed by the pair as a 16-bit number.
var keyPairs = func() (set [1 << 16 / 64]uint64) {
	for _, p := range keyPrefixes {
		pair := uint16(p[0])<<8 | uint16(p[1])
		set[pair/64] |= 1 << (pair % 64)
	}
	return set
}()

// mayHoldKey reports whether s holds one of keyPrefixes. It is one pass
// over s, a table lookup a byte, looking further only where the bytes
// start like a prefix; fourteen substring searches cost several times
// that on a stack trace.
func mayHoldKey(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		pair := uint16(s[i])<<8 | uint16(s[i+1])
		if keyPairs[pair/64]&(1<<(pair%64)) == 0 {
			continue
		}
		for _, p := range keyPrefixes {
			if strings.HasPrefix(s[i:], p) {
				return true
			}
		}
	}
	return false
}

// containsFold reports whether s holds word (lower-case ASCII, a letter
// first) in any case, without making a lower-case copy of s. IndexByte
// finds the places its first letter stands, in either case.
func containsFold(s, word string) bool {
	for _, c := range [2]byte{word[0], word[0] &^ 0x20} {
		for i := 0; ; i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 || i+j+len(word) > len(s) {
				break
			}
			i += j
			if strings.EqualFold(s[i:i+len(word)], word) {
				return true
			}
		}
	}
	return false
}

// Each pattern keeps its first group (and its second, if any) and replaces
// the rest of the match.
var shapes = []shape{
	{ // Private key blocks, also when clipping cut off their end.
		lazyre.New(`()-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)`),
		func(s string) bool { return strings.Contains(s, "PRIVATE KEY") },
	},
	{ // Bearer tokens.
		lazyre.New(`(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*`),
		func(s string) bool { return containsFold(s, "bearer") },
	},
	{ // Passwords in URLs: scheme://user:password@host. A password may hold
		// an unescaped @ or / (up to the last @ of the URL, which ends at a
		// space or a quote); digits and a /, ? or # are a port and a path
		// (http://host:8080/@me, http://host:3000?next=/a@b).
		lazyre.New(`([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@"'<>]*:)(?:[^\s\d/?#"'<>][^\s"'<>]*|\d+[^\s\d/?#"'<>][^\s"'<>]*|\d+)(@)`),
		func(s string) bool { return strings.Contains(s, "://") && strings.Contains(s, "@") },
	},
	{ // Slack incoming webhooks: the path is the secret.
		lazyre.New(`(hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_\-]+`),
		func(s string) bool { return strings.Contains(s, "hooks.slack.com/") },
	},
	{ // AWS access key ids.
		lazyre.New(`()\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b`),
		func(s string) bool {
			return containsAny(s, "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA")
		},
	},
	{ // Well-known API key and token shapes.
		lazyre.New(`()\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|gl(?:pat|cbt|rt|dt|ptt|ft|imt|agent|oas|soat)-[A-Za-z0-9\-_]{20,}|GR1348941[A-Za-z0-9\-_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|AIza[0-9A-Za-z\-_]{35}|npm_[A-Za-z0-9]{36}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`),
		mayHoldKey,
	},
}

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
		if !ok || len(value) < minEnvSecret || seen[value] || !secretEnvName(name) {
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
	// Private key blocks first: a key=value pair would only hide the
	// block's first word.
	s = applyShape(shapes[0], s)
	s = redactPairs(s)
	s = redactFlags(s)
	for _, sh := range shapes[1:] {
		s = applyShape(sh, s)
	}
	return s
}

func applyShape(sh shape, s string) string {
	if !sh.maybe(s) {
		return s
	}
	return sh.re.Regexp().ReplaceAllString(s, "${1}"+Redacted+"${2}")
}

// authSchemes may stand between a secret key and its value
// ("Authorization: Bearer x") and are kept.
var authSchemes = []string{"bearer", "basic", "digest", "token"}

// redactPairs hides the values of key=value and key: value pairs whose key
// looks secret (secretName). The key may be quoted ("password": "x"); a
// quoted value keeps its quotes (backslash escapes inside are honoured).
// With a colon after an unquoted key, which ordinary prose uses too
// ("unexpected token: EOF", "TestAuth: auth_test.go:15: ..."), the value
// must look like a secret (secretLike); comparisons (==, !=, <=, >=) are not
// pairs. It is one pass over s: no backtracking over keys.
//
//nolint:gocyclo // one left-to-right scanner over key=value pairs; its states read together
func redactPairs(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '=' && c != ':' {
			continue
		}
		p := i + 1
		if c == '=' {
			if p < len(s) && (s[p] == '=' || s[p] == '~') {
				i++ // == and =~ compare
				continue
			}
			if i > 0 && strings.IndexByte("!<>=", s[i-1]) >= 0 {
				continue
			}
			if p < len(s) && s[p] == '>' {
				p++ // key => value
			}
		}
		k := i
		if c == '=' && k > 0 && s[k-1] == ':' {
			k-- // key := value
		}
		for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
			k--
		}
		quoted := k > 0 && (s[k-1] == '"' || s[k-1] == '\'')
		// tight is key:value with nothing between: a field as Go prints
		// a struct or a map ({Password:x}, map[token:y]), and also a file
		// position or a URL ("auth.go:12", "http://"), which are not pairs.
		tight := c == ':' && !quoted && (p >= len(s) || (s[p] != ' ' && s[p] != '\t'))
		if quoted {
			k--
		}
		keyEnd := k
		for k > 0 && isKeyByte(s[k-1]) {
			k--
		}
		if k == keyEnd || k < last || !secretName(s[k:keyEnd]) {
			continue
		}
		if tight && (p >= len(s) || s[p] == '=' || s[p] == ':' || strings.IndexByte(s[k:keyEnd], '.') >= 0 || k > 0 && strings.IndexByte("{[(, \t\n", s[k-1]) < 0) {
			continue
		}
		p = skipBlanks(s, p)
		for _, scheme := range authSchemes {
			if n := len(scheme); p+n < len(s) && strings.EqualFold(s[p:p+n], scheme) && (s[p+n] == ' ' || s[p+n] == '\t') {
				p = skipBlanks(s, p+n)
				break
			}
		}
		start, end := p, p
		if p < len(s) && (s[p] == '"' || s[p] == '\'') {
			close := quotedEnd(s, p)
			if close < 0 {
				continue
			}
			start, end = p+1, close
		} else {
			for end < len(s) && !isValueStop(s[end]) {
				end++
			}
			if end == start || (c == ':' && !quoted && !secretLike(s[start:end])) {
				continue
			}
			if tight && (allDigits(s[start:end]) || s[start] == '{' || strings.Contains(s[start:end], "//")) {
				continue // a port, a nested struct, a URL
			}
		}
		b.WriteString(s[last:start])
		b.WriteString(Redacted)
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// quotedEnd returns the index of the quote that closes the quoted value
// starting at s[p], skipping backslash escapes, or -1 when the line ends
// first.
func quotedEnd(s string, p int) int {
	q := s[p]
	for j := p + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\n':
			return -1
		case q:
			return j
		}
	}
	return -1
}

// filePosition matches "name.ext:line", which follows a colon in test
// output far more often than a secret does.
var filePosition = lazyre.New(`^[\w./\\-]+\.[A-Za-z]{1,5}:\d`)

// secretLike reports whether a value after "key: " looks like a secret
// rather than a word of prose: it holds a digit or a symbol, or is long,
// and is not a file position.
func secretLike(v string) bool {
	if filePosition.Regexp().MatchString(v) {
		return false
	}
	if len(v) >= 20 {
		return true
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= '0' && c <= '9' || strings.IndexByte("-_./+=~!@#$%^*", c) >= 0 {
			return true
		}
	}
	return false
}

// cliFlag matches a command-line flag and its value: --password hunter2.
var cliFlag = lazyre.New(`(^|\s)(--?([A-Za-z0-9][A-Za-z0-9_.-]*)[ \t]+)([^\s"'-][^\s"']*)`)

// redactFlags hides the values of command-line flags whose name looks
// secret ("--password hunter2", "-token abc"); "--password=x" is a pair.
func redactFlags(s string) string {
	if !strings.HasPrefix(s, "-") && !strings.Contains(s, " -") && !strings.Contains(s, "\t-") && !strings.Contains(s, "\n-") {
		return s
	}
	re := cliFlag.Regexp()
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if !secretName(sub[3]) {
			return m
		}
		return sub[1] + sub[2] + Redacted
	})
}

func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

func skipBlanks(s string, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// isValueStop ends an unquoted value.
func isValueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', ',', ';', '&', ')', '}', '[', ']':
		return true
	}
	return false
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
