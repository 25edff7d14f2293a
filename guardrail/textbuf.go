//go:build !js

package guardrail

import "strings"

// textBuf is a text that is only appended to, whose String is made without
// a copy (a stream's text and its folded form, read again after every
// delta): strings.Builder natively. The WASM guard has its own
// (textbuf_js.go), since importing package strings links packages io and
// errors and their initialisation into it (about 6 KB gzipped).
type textBuf = strings.Builder
