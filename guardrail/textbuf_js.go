package guardrail

// textBuf is textbuf.go's for the WASM guard, without package strings:
// its String copies the bytes, which in the browser's short answers costs
// less than the code it saves.
type textBuf struct{ b []byte }

func (t *textBuf) WriteString(s string) { t.b = append(t.b, s...) }
func (t *textBuf) String() string       { return string(t.b) }

// WriteByte appends c; its error, for go vet, is always nil.
func (t *textBuf) WriteByte(c byte) error {
	t.b = append(t.b, c)
	return nil
}

func (t *textBuf) Len() int { return len(t.b) }
func (t *textBuf) Cap() int { return cap(t.b) }
func (t *textBuf) Reset()   { t.b = nil }

// Grow makes room for n more bytes.
func (t *textBuf) Grow(n int) {
	if cap(t.b)-len(t.b) < n {
		t.b = append(make([]byte, 0, len(t.b)+n), t.b...)
	}
}
