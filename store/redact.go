package store

import (
	"net/url"
	"sort"
	"strings"

	"github.com/hangar-dev/testresults/internal/lazyre"
	"github.com/hangar-dev/testresults/testrun"
)

// masked replaces a credential in a message.
const masked = testrun.Redacted

// credentialWords make a connection parameter's key a credential when
// its lower-cased, percent-decoded form holds one: password, sslpassword,
// passfile, passwd, and what looks secret elsewhere.
var credentialWords = []string{"pass", "secret", "token", "credential", "apikey", "api_key", "privatekey", "private_key"}

func credentialKey(key string) bool {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	key = strings.ToLower(key)
	for _, w := range credentialWords {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

var (
	// A key=value setting of a PostgreSQL connection string (libpq's
	// keyword/value form): spaces may surround '=', a value is quoted
	// ('...', with \' and \\) or runs to the next space (with \ escapes).
	keywordValue = lazyre.New(`([A-Za-z_%][A-Za-z0-9_.%-]*)(\s*=\s*)('(?:[^'\\]|\\.)*'?|(?:[^\s\\]|\\.)*\\?)`)
	// A key=value pair of a URL's query.
	queryPair = lazyre.New(`([^&=?#\s]+)=([^&#\s]*)`)
)

// redactLocation returns location with every credential it can carry
// replaced by testrun.Redacted, whatever its form, well-formed or not:
//   - a URL (postgres://...): the password of its user information (the
//     user stays) and the value of each query parameter whose key names
//     a credential (password, sslpassword, passfile, any key holding
//     "pass", "secret", "token", ...; percent-encoded keys too);
//   - a key=value connection string (host=h password=...): the value of
//     each such key, quoted or not.
//
// A URL that does not parse cleanly may hide its password anywhere up to
// its last '@' (an unencoded '/', '?' or '#' in it): then everything
// from the first ':' of its authority to that '@' is masked. Every
// message of this package that shows a location shows redactLocation's.
func redactLocation(location string) string {
	prefix, rest, ok := splitScheme(location)
	if !ok {
		return redactKeywordValues(location)
	}
	var b strings.Builder
	b.WriteString(prefix)
	authEnd := strings.IndexAny(rest, "/?#")
	if authEnd < 0 {
		authEnd = len(rest)
	}
	if strings.HasSuffix(prefix, "//") && cleanURL(location) {
		// The user information ends at the authority's last '@'.
		if at := strings.LastIndexByte(rest[:authEnd], '@'); at >= 0 {
			user, _, hasPassword := strings.Cut(rest[:at], ":")
			b.WriteString(user)
			if hasPassword {
				b.WriteString(":" + masked)
			}
			rest = rest[at:]
		}
	} else if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		// Malformed: the password may run past the authority.
		if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
			b.WriteString(rest[:colon+1])
			b.WriteString(masked)
			rest = rest[at:]
		}
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		b.WriteString(rest[:q])
		rest = queryPair.Regexp().ReplaceAllStringFunc(rest[q:], func(pair string) string {
			k, _, _ := strings.Cut(pair, "=")
			if credentialKey(k) {
				return k + "=" + masked
			}
			return pair
		})
	}
	b.WriteString(rest)
	return b.String()
}

// splitScheme splits a URL after its "scheme://", or after the "scheme:"
// of a URL-like location with user information (name:user:pass@host).
func splitScheme(location string) (prefix, rest string, ok bool) {
	if i := strings.Index(location, "://"); i >= 0 {
		return location[:i+3], location[i+3:], true
	}
	if m := urlScheme.Regexp().FindString(location); m != "" && strings.Contains(location, "@") {
		return m, location[len(m):], true
	}
	return "", location, false
}

// cleanURL reports whether location parses as a URL with no fragment and
// a numeric port or none: its parts are then where they seem.
func cleanURL(location string) bool {
	u, err := url.Parse(location)
	if err != nil || u.Fragment != "" || strings.Contains(location, "#") {
		return false
	}
	for _, c := range u.Port() {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// redactKeywordValues masks the credential values of a key=value
// connection string.
func redactKeywordValues(s string) string {
	return keywordValue.Regexp().ReplaceAllStringFunc(s, func(kv string) string {
		m := keywordValue.Regexp().FindStringSubmatch(kv)
		if !credentialKey(m[1]) {
			return kv
		}
		return m[1] + m[2] + masked
	})
}

// credentials returns the credentials location carries, as written and
// decoded, longest first: what an error from a driver given location
// might repeat. Values shorter than 4 bytes are left out (hiding them
// would blank ordinary words); redactLocation masks them where the
// location itself is shown.
func credentials(location string) []string {
	var out []string
	add := func(v string) {
		out = append(out, v)
		if d, err := url.PathUnescape(v); err == nil {
			out = append(out, d)
		}
		if d, err := url.QueryUnescape(v); err == nil {
			out = append(out, d)
		}
		if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			out = append(out, strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(v[1:len(v)-1]))
		}
	}
	if _, rest, isURL := splitScheme(location); isURL {
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				add(pw)
			}
		}
		if u, err := url.Parse(location); err == nil {
			if pw, ok := u.User.Password(); ok {
				add(pw)
			}
		}
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			for _, m := range queryPair.Regexp().FindAllStringSubmatch(rest[q:], -1) {
				if credentialKey(m[1]) {
					add(m[2])
				}
			}
		}
	} else {
		for _, m := range keywordValue.Regexp().FindAllStringSubmatch(location, -1) {
			if credentialKey(m[1]) {
				add(m[3])
			}
		}
	}
	seen := map[string]bool{}
	kept := out[:0]
	for _, v := range out {
		if len(v) >= 4 && !seen[v] {
			seen[v] = true
			kept = append(kept, v)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return len(kept[i]) > len(kept[j]) })
	return kept
}

// redactor hides a location's credentials in error messages.
type redactor struct {
	r *strings.Replacer // nil when the location carries none
}

func newRedactor(location string) redactor {
	secrets := credentials(location)
	if len(secrets) == 0 {
		return redactor{}
	}
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, masked)
	}
	return redactor{r: strings.NewReplacer(pairs...)}
}

// redactedError is an error whose message had credentials hidden; it
// still wraps the original, for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// error returns err with the credentials hidden from its message (err
// itself when its message shows none).
func (r redactor) error(err error) error {
	if err == nil || r.r == nil {
		return err
	}
	msg := err.Error()
	if clean := r.r.Replace(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}
