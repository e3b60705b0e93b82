// Package xmlsafe is the hardened, streaming XML reader the report parsers
// share, with the limits and typed errors that package report re-exports.
//
// It reads untrusted documents through a bounded, growing window: nothing is
// expanded (entity declarations and undefined entity references are refused,
// no DTD is fetched, an internal DTD subset is checked and never applied),
// element count, nesting depth and total size are capped,
// and text is handed out in chunks so that callers keep only what they need.
package xmlsafe
