package serve

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// DefaultCacheBytes bounds the rendered responses a server keeps.
const DefaultCacheBytes = 64 << 20

// Stored runs never change: a response rendered from them is the same until
// the store's fingerprint of the job or session (store.RunStore.JobVersion)
// changes. The server keeps each response it rendered, with its gzip form
// and a strong ETag (the body's SHA-256), under the request's path and
// query, and answers the next request of the same fingerprint from it.

// rendered is one response as the server keeps it.
type rendered struct {
	key, version string
	header       [][2]string // Content-Type, Link, ...
	data, gz     []byte      // gz is nil when gzip saves nothing
	etag, gzTag  string
}

func (b *rendered) size() int { return len(b.key) + len(b.version) + len(b.data) + len(b.gz) + 256 }

// render makes a rendered response of data, its gzip form and its ETags.
func render(key, version string, data []byte, header ...[2]string) *rendered {
	sum := sha256.Sum256(data)
	tag := hex.EncodeToString(sum[:])
	b := &rendered{key: key, version: version, header: header, data: data, etag: `"` + tag + `"`}
	if len(data) > 512 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
		_, _ = zw.Write(data)
		_ = zw.Close()
		if buf.Len() < len(data) {
			// Another representation: another strong validator.
			b.gz, b.gzTag = buf.Bytes(), `"`+tag+`-gzip"`
		}
	}
	return b
}

// serve answers r with b: 304 when If-None-Match holds its ETag, the gzip
// form when the client accepts it.
func (b *rendered) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for _, kv := range b.header {
		h.Set(kv[0], kv[1])
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	data, tag := b.data, b.etag
	gz := b.gz != nil && acceptsGzip(r.Header.Values("Accept-Encoding"))
	if gz {
		data, tag = b.gz, b.gzTag
	}
	h.Set("ETag", tag)
	if noneMatch := r.Header.Values("If-None-Match"); len(noneMatch) > 0 && etagMatches(noneMatch, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}

// acceptsGzip reports whether Accept-Encoding values accept gzip (a q of 0
// refuses it; "*" accepts it unless gzip is named).
func acceptsGzip(values []string) bool {
	star := false
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "x-gzip" && name != "*" {
				continue
			}
			ok := true
			for _, p := range strings.Split(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					q, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
					ok = err == nil && q > 0
				}
			}
			if name == "*" {
				star = ok
				continue
			}
			return ok
		}
	}
	return star
}

// etagMatches is the weak comparison of If-None-Match (RFC 9110 13.1.2)
// of the header's values with tag.
func etagMatches(values []string, tag string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == tag {
				return true
			}
		}
	}
	return false
}

// bodyCache keeps rendered responses, least recently used out first, within
// max bytes; a response bigger than a quarter of that is not kept.
type bodyCache struct {
	mu    sync.Mutex
	max   int
	size  int
	byKey map[string]*list.Element
	order list.List // of *rendered, most recent first
}

func newBodyCache(max int) *bodyCache {
	return &bodyCache{max: max, byKey: map[string]*list.Element{}}
}

// get returns the response kept under key for version, nil when none is.
func (c *bodyCache) get(key, version string) *rendered {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil
	}
	b := e.Value.(*rendered)
	if b.version != version {
		// Rendered from runs as they were: never answered again.
		c.remove(e)
		return nil
	}
	c.order.MoveToFront(e)
	return b
}

// fits reports whether a body of n bytes can be kept.
func (c *bodyCache) fits(n int) bool { return c != nil && n <= c.max/4 }

func (c *bodyCache) put(b *rendered) {
	if !c.fits(b.size()) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[b.key]; ok {
		c.remove(e)
	}
	c.byKey[b.key] = c.order.PushFront(b)
	c.size += b.size()
	for c.size > c.max {
		c.remove(c.order.Back())
	}
}

func (c *bodyCache) remove(e *list.Element) {
	b := e.Value.(*rendered)
	c.order.Remove(e)
	delete(c.byKey, b.key)
	c.size -= b.size()
}

// len is how many responses are kept (tests).
func (c *bodyCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}
