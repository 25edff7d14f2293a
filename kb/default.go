package kb

import (
	"embed"
	"io/fs"
	"sync"
)

// defaultFS holds the default knowledge base: a support knowledge base of
// the fictional Swedish cloud storage service Molnlagret, in English (en/)
// and Swedish (sv/).
//
//go:embed en sv
var defaultFS embed.FS

// DefaultFS returns the embedded default knowledge base as a file system
// (paths like "en/pricing.md").
func DefaultFS() fs.FS { return defaultFS }

var defaultBase = sync.OnceValues(loadDefault)

func loadDefault() (*Base, error) {
	return Load(defaultFS, WithPrefix("kb"))
}

// Default returns the embedded default knowledge base; snippet files are
// named as in this repository ("kb/en/pricing.md"). It is loaded once and
// shared (a Base is immutable).
func Default() (*Base, error) { return defaultBase() }
