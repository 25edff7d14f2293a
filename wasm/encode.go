//go:build js && wasm

package main

import (
	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/guardrail/jsonw"
)

// A small JSON encoder for the guardrail result types, producing exactly what
// encoding/json produces for them (web/wasm_diff_test.go checks this), so the
// guard links neither reflect-based encoding/json nor fmt. Adding a field to a
// type is one line in its append function: its key, as JSON writes it, with
// the punctuation before it, then its value.

type enc struct{ b []byte }

// raw appends s as it is: punctuation and keys.
func (e *enc) raw(s string) { e.b = append(e.b, s...) }

func (e *enc) integer(v int) { e.b = jsonw.AppendInt(e.b, int64(v)) }

func (e *enc) boolean(v bool) {
	if v {
		e.raw("true")
	} else {
		e.raw("false")
	}
}

// str appends s as a JSON string the way encoding/json does (HTML-safe).
func (e *enc) str(s string) { e.b = jsonw.AppendString(e.b, s, true) }

func (e *enc) number(n *guardrail.Number) {
	e.raw(`"text":`)
	e.str(n.Text)
	e.raw(`,"canonical":`)
	e.str(n.Canonical)
	e.raw(`,"kind":`)
	e.str(n.Kind.String())
	if n.Unit != 0 {
		e.raw(`,"unit":`)
		e.str(n.Unit.String())
	}
	if n.Period != 0 {
		e.raw(`,"period":`)
		e.str(n.Period.String())
	}
	e.raw(`,"start":`)
	e.integer(n.Start)
	e.raw(`,"end":`)
	e.integer(n.End)
}

func (e *enc) numbers(ns []guardrail.Number) {
	if ns == nil {
		e.raw("null")
		return
	}
	e.raw("[")
	for i := range ns {
		if i > 0 {
			e.raw(",")
		}
		e.raw("{")
		e.number(&ns[i])
		e.raw("}")
	}
	e.raw("]")
}

func (e *enc) numberVerdict(nv *guardrail.NumberVerdict) {
	e.raw("{")
	e.number(&nv.Number)
	e.raw(`,"state":`)
	e.str(nv.State.String())
	e.raw(`,"grounded":`)
	e.boolean(nv.Grounded)
	e.raw(`,"citation":`)
	e.integer(int(nv.Citation))
	if d := nv.Derivation; d != nil {
		e.raw(`,"formula":`)
		e.str(d.Formula)
		e.raw(`,"operands":[`)
		for i, o := range d.Operands {
			if i > 0 {
				e.raw(",")
			}
			e.integer(o)
		}
		e.raw("]")
	}
	e.raw("}")
}

func (e *enc) verdict(v guardrail.Verdict) {
	e.raw(`{"grounded":`)
	e.boolean(v.Grounded)
	e.raw(`,"numbers":`)
	if v.Numbers == nil {
		e.raw("null")
	} else {
		e.raw("[")
		for i := range v.Numbers {
			if i > 0 {
				e.raw(",")
			}
			e.numberVerdict(&v.Numbers[i])
		}
		e.raw("]")
	}
	e.raw("}")
}
