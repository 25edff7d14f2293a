package lambda

import (
	"strconv"

	"github.com/groundwire/groundwire/guardrail/jsonw"
)

// jsonAppender is a frame that appends its JSON encoding to b, byte for
// byte what json.Marshal gives, without reflection: the frames of every
// answer (sources, stream…, stream_end, response). TestAnswerFramesJSON
// fills every field of these types, so a field added to them without its
// encoding here fails it.
type jsonAppender interface {
	appendJSON(b []byte) []byte
	// sizeHint is about the length of the encoding (escapes can add a
	// few bytes), so that a frame is encoded into one allocation.
	sizeHint() int
}

// hint adds the slack for escapes to a frame's length without them.
func hint(n int) int { return n + n/16 + 16 }

func (f StreamFrame) sizeHint() int { return hint(32 + len(f.Type) + len(f.ID) + len(f.Delta)) }

func (f StreamEndFrame) sizeHint() int { return hint(32 + len(f.Type) + len(f.ID) + len(f.Reason)) }

func (f SourcesFrame) sizeHint() int {
	return hint(48 + len(f.Type) + len(f.ID) + citationsSize(f.Citations) + len(f.Confidence))
}

func (f ResponseFrame) sizeHint() int {
	n := 64 + len(f.Type) + len(f.ID) + len(f.Text) + citationsSize(f.Citations) + len(f.Status) + len(f.Error)
	for _, v := range f.Numbers {
		n += 96 + len(v.Text) + len(v.Canonical) + len(v.Kind) + len(v.State) + len(v.Formula) + 8*len(v.Operands)
	}
	return hint(n)
}

// citationsSize is about the length of cs encoded, escapes left out.
func citationsSize(cs []Citation) int {
	n := 4
	for _, c := range cs {
		n += 40 + len(c.File) + len(c.Snippet)
	}
	return n
}

func (f StreamFrame) appendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, f.Type)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, f.ID)
	b = append(b, `,"delta":`...)
	b = appendJSONString(b, f.Delta)
	return append(b, '}')
}

func (f StreamEndFrame) appendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, f.Type)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, f.ID)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, f.Reason)
	return append(b, '}')
}

func (f SourcesFrame) appendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, f.Type)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, f.ID)
	b = append(b, `,"citations":`...)
	b = appendCitations(b, f.Citations)
	if f.Confidence != "" {
		b = append(b, `,"confidence":`...)
		b = appendJSONString(b, string(f.Confidence))
	}
	return append(b, '}')
}

func (f ResponseFrame) appendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, f.Type)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, f.ID)
	b = append(b, `,"text":`...)
	b = appendJSONString(b, f.Text)
	b = append(b, `,"citations":`...)
	b = appendCitations(b, f.Citations)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, f.Status)
	b = append(b, `,"numbers":`...)
	if f.Numbers == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, n := range f.Numbers {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"text":`...)
			b = appendJSONString(b, n.Text)
			b = append(b, `,"canonical":`...)
			b = appendJSONString(b, n.Canonical)
			b = append(b, `,"kind":`...)
			b = appendJSONString(b, n.Kind)
			b = append(b, `,"state":`...)
			b = appendJSONString(b, n.State)
			b = append(b, `,"grounded":`...)
			b = strconv.AppendBool(b, n.Grounded)
			b = append(b, `,"citation":`...)
			b = strconv.AppendInt(b, int64(n.Citation), 10)
			if n.Formula != "" {
				b = append(b, `,"formula":`...)
				b = appendJSONString(b, n.Formula)
			}
			if len(n.Operands) > 0 {
				b = append(b, `,"operands":[`...)
				for j, o := range n.Operands {
					if j > 0 {
						b = append(b, ',')
					}
					b = strconv.AppendInt(b, int64(o), 10)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if f.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, f.Error)
	}
	return append(b, '}')
}

// appendCitations appends cs as json.Marshal does (null when nil).
func appendCitations(b []byte, cs []Citation) []byte {
	if cs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"file":`...)
		b = appendJSONString(b, c.File)
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(c.Line), 10)
		b = append(b, `,"snippet":`...)
		b = appendJSONString(b, c.Snippet)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONString appends s as a JSON string as json.Marshal writes it
// (HTML escaped).
func appendJSONString(b []byte, s string) []byte { return jsonw.AppendString(b, s, true) }
