//go:build js && wasm

// Command wasm is the number guard compiled for the browser (GOOS=js
// GOARCH=wasm). It is the thin entry point exposing package guardrail to
// JavaScript; all logic stays in guardrail, which knows nothing of syscall/js.
//
// It fills one global object, globalThis.groundwire, with the raw bindings
// under groundwire._raw and sets groundwire.ready = true; it then dispatches a
// "groundwire:ready" event on globalThis when globalThis is an EventTarget
// (a browser window). The public API — groundwire.extract, groundwire.verify
// and groundwire.newStreamGuard — is defined by the small JavaScript module
// web/static/groundwire.js, which throws a JS Error on a bad argument and
// JSON.parses the results. A Go function called from JavaScript cannot throw,
// so every raw binding returns an object {json: string} on success or
// {error: string} on failure, and the module turns the latter into a throw.
//
// Results are the encoding/json form of the native guardrail types (written
// by the small encoder in encode.go, so the guard links neither fmt nor
// reflect), so a browser sees exactly what the server computes:
//
//	_raw.extract(text)            → {json: "[Number…]"}
//	_raw.verify(answer, sources)  → {json: "Verdict"}
//	_raw.newStreamGuard(sources)  → {handle: number}
//	_raw.feed(handle, delta)      → {json: "{safe, ok, blocked?}"}
//	_raw.close(handle)            → {json: "{safe, verdict}"}  (frees the guard)
//	_raw.release(handle)          → frees the guard without deciding
//
// Every call is synchronous and fast; main blocks forever after registering
// so the bindings stay alive.
package main

import (
	"syscall/js"

	"github.com/groundwire/groundwire/guardrail"
)

// guards holds the live stream guards by handle. JavaScript is single
// threaded and every binding runs on the event loop, so no lock is needed.
var (
	guards guardTable
)

type guard struct {
	g *guardrail.StreamGuard
}

func main() {
	global := js.Global()
	gw := global.Get("groundwire")
	if gw.Type() != js.TypeObject {
		gw = global.Get("Object").New()
		global.Set("groundwire", gw)
	}
	raw := global.Get("Object").New()
	raw.Set("extract", js.FuncOf(extract))
	raw.Set("clean", js.FuncOf(clean))
	raw.Set("verify", js.FuncOf(verify))
	raw.Set("newStreamGuard", js.FuncOf(newStreamGuard))
	raw.Set("feed", js.FuncOf(feed))
	raw.Set("close", js.FuncOf(closeGuard))
	raw.Set("release", js.FuncOf(release))
	gw.Set("_raw", raw)
	gw.Set("ready", true)

	if global.Get("dispatchEvent").Type() == js.TypeFunction && global.Get("Event").Type() == js.TypeFunction {
		global.Call("dispatchEvent", global.Get("Event").New("groundwire:ready"))
	}
	select {}
}

// object returns a new JavaScript object {key: value}.
func object(key string, value any) js.Value {
	o := js.Global().Get("Object").New()
	o.Set(key, value)
	return o
}

func fail(msg string) any { return object("error", msg) }

func result(e *enc) any { return object("json", string(e.b)) }

// stringArg returns args[i] as a string, or an error message naming fn and what.
func stringArg(fn, what string, args []js.Value, i int) (string, string) {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return "", "groundwire." + fn + ": " + what + " must be a string"
	}
	return args[i].String(), ""
}

// sourcesArg returns args[i] as a slice of strings.
func sourcesArg(fn string, args []js.Value, i int) ([]string, string) {
	msg := "groundwire." + fn + ": sources must be an array of strings"
	if i >= len(args) || !js.Global().Get("Array").Call("isArray", args[i]).Bool() {
		return nil, msg
	}
	n := args[i].Length()
	out := make([]string, n)
	for j := range n {
		v := args[i].Index(j)
		if v.Type() != js.TypeString {
			return nil, msg
		}
		out[j] = v.String()
	}
	return out, ""
}

func handleArg(fn string, args []js.Value) (int, *guard, string) {
	if len(args) == 0 || args[0].Type() != js.TypeNumber {
		return 0, nil, "groundwire." + fn + ": bad stream guard handle"
	}
	h := args[0].Int()
	g, ok := guards.get(h)
	if !ok {
		return h, nil, "groundwire." + fn + ": stream guard is closed"
	}
	return h, g, ""
}

func extract(_ js.Value, args []js.Value) any {
	text, bad := stringArg("extract", "text", args, 0)
	if bad != "" {
		return fail(bad)
	}
	nums := guardrail.Extract(text)
	if nums == nil {
		nums = []guardrail.Number{}
	}
	var e enc
	e.numbers(nums)
	return result(&e)
}

// clean is guardrail.Clean.
func clean(_ js.Value, args []js.Value) any {
	text, bad := stringArg("clean", "text", args, 0)
	if bad != "" {
		return fail(bad)
	}
	var e enc
	e.str(guardrail.Clean(text))
	return result(&e)
}

func verify(_ js.Value, args []js.Value) any {
	answer, bad := stringArg("verify", "answer", args, 0)
	if bad != "" {
		return fail(bad)
	}
	sources, bad := sourcesArg("verify", args, 1)
	if bad != "" {
		return fail(bad)
	}
	var e enc
	e.verdict(guardrail.VerifyStrings(answer, sources))
	return result(&e)
}

func newStreamGuard(_ js.Value, args []js.Value) any {
	sources, bad := sourcesArg("newStreamGuard", args, 0)
	if bad != "" {
		return fail(bad)
	}
	h := guards.add(&guard{g: guardrail.NewStreamGuard(guardrail.NewSources(sources))})
	return object("handle", h)
}

func feed(_ js.Value, args []js.Value) any {
	_, g, bad := handleArg("feed", args)
	if bad != "" {
		return fail(bad)
	}
	delta, bad := stringArg("feed", "delta", args, 1)
	if bad != "" {
		return fail(bad)
	}
	safe, ok := g.g.Feed(delta)
	var e enc
	e.raw(`{"safe":`)
	e.str(safe)
	e.raw(`,"ok":`)
	e.boolean(ok)
	if nv, blocked := g.g.Blocked(); blocked {
		e.raw(`,"blocked":`)
		e.numberVerdict(&nv)
	}
	e.raw("}")
	return result(&e)
}

func closeGuard(_ js.Value, args []js.Value) any {
	h, g, bad := handleArg("close", args)
	if bad != "" {
		return fail(bad)
	}
	guards.remove(h)
	safe, v := g.g.Close()
	var e enc
	e.raw(`{"safe":`)
	e.str(safe)
	e.raw(`,"verdict":`)
	e.verdict(v)
	e.raw("}")
	return result(&e)
}

func release(_ js.Value, args []js.Value) any {
	if len(args) > 0 && args[0].Type() == js.TypeNumber {
		guards.remove(args[0].Int())
	}
	return nil
}

// guardTable holds guards by handle. Handles are never reused (a stale
// handle names no guard): slots[i] has handle first+i, and once no guard is
// live the slots are dropped and numbering goes on after them. A slice, not
// a map, keeps the map code of int keys out of the WASM guard.
type guardTable struct {
	slots []*guard
	first int // the handle of slots[0]; handles start at 1
	live  int
}

func (t *guardTable) add(g *guard) int {
	if t.first == 0 {
		t.first = 1
	}
	t.slots = append(t.slots, g)
	t.live++
	return t.first + len(t.slots) - 1
}

func (t *guardTable) get(h int) (*guard, bool) {
	i := h - t.first
	if t.first == 0 || i < 0 || i >= len(t.slots) || t.slots[i] == nil {
		return nil, false
	}
	return t.slots[i], true
}

func (t *guardTable) remove(h int) {
	if _, ok := t.get(h); !ok {
		return
	}
	t.slots[h-t.first] = nil
	if t.live--; t.live == 0 {
		t.first += len(t.slots)
		t.slots = t.slots[:0]
	}
}
