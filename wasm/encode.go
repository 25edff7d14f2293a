//go:build js && wasm

package main

import (
	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/guardrail/jsonw"
)

// A small JSON encoder for the guardrail result types, producing exactly what
// encoding/json produces for them (web/wasm_diff_test.go checks this), so the
// guard links neither reflect-based encoding/json nor fmt. Adding a field to a
// type is one line in its append function.

type enc struct{ b []byte }

func (e *enc) key(k string, first bool) {
	if !first {
		e.b = append(e.b, ',')
	}
	e.str(k)
	e.b = append(e.b, ':')
}

func (e *enc) integer(v int) { e.b = jsonw.AppendInt(e.b, int64(v)) }

func (e *enc) boolean(v bool) {
	if v {
		e.b = append(e.b, "true"...)
	} else {
		e.b = append(e.b, "false"...)
	}
}

// str appends s as a JSON string the way encoding/json does (HTML-safe).
func (e *enc) str(s string) { e.b = jsonw.AppendString(e.b, s, true) }

func (e *enc) number(n *guardrail.Number) {
	e.key("text", true)
	e.str(n.Text)
	e.key("canonical", false)
	e.str(n.Canonical)
	e.key("kind", false)
	e.str(n.Kind.String())
	if n.Unit != 0 {
		e.key("unit", false)
		e.str(n.Unit.String())
	}
	if n.Period != 0 {
		e.key("period", false)
		e.str(n.Period.String())
	}
	e.key("start", false)
	e.integer(n.Start)
	e.key("end", false)
	e.integer(n.End)
}

func (e *enc) numbers(ns []guardrail.Number) {
	if ns == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i := range ns {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, '{')
		e.number(&ns[i])
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

func (e *enc) numberVerdict(nv *guardrail.NumberVerdict) {
	e.b = append(e.b, '{')
	e.number(&nv.Number)
	e.key("state", false)
	e.str(nv.State.String())
	e.key("grounded", false)
	e.boolean(nv.Grounded)
	e.key("citation", false)
	e.integer(nv.Citation)
	if d := nv.Derivation; d != nil {
		e.key("formula", false)
		e.str(d.Formula)
		e.key("operands", false)
		e.b = append(e.b, '[')
		for i, o := range d.Operands {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.integer(o)
		}
		e.b = append(e.b, ']')
	}
	e.b = append(e.b, '}')
}

func (e *enc) verdict(v guardrail.Verdict) {
	e.b = append(e.b, '{')
	e.key("grounded", true)
	e.boolean(v.Grounded)
	e.key("numbers", false)
	if v.Numbers == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.b = append(e.b, '[')
		for i := range v.Numbers {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.numberVerdict(&v.Numbers[i])
		}
		e.b = append(e.b, ']')
	}
	e.b = append(e.b, '}')
}
