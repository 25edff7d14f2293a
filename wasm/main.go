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
// Results are the encoding/json form of the native guardrail types, so a
// browser sees exactly what the server computes:
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
	"encoding/json"
	"fmt"
	"syscall/js"

	"github.com/groundwire/groundwire/guardrail"
)

// guards holds the live stream guards by handle. JavaScript is single
// threaded and every binding runs on the event loop, so no lock is needed.
var (
	guards     = map[int]*guard{}
	nextHandle = 1
)

type guard struct {
	g *guardrail.StreamGuard
}

type feedResult struct {
	Safe    string                   `json:"safe"`
	OK      bool                     `json:"ok"`
	Blocked *guardrail.NumberVerdict `json:"blocked,omitempty"`
}

type closeResult struct {
	Safe    string            `json:"safe"`
	Verdict guardrail.Verdict `json:"verdict"`
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

func fail(format string, args ...any) any {
	return map[string]any{"error": fmt.Sprintf(format, args...)}
}

func result(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fail("groundwire: encoding result: %v", err)
	}
	return map[string]any{"json": string(b)}
}

// stringArg returns args[i] as a string, or an error message naming fn and what.
func stringArg(fn, what string, args []js.Value, i int) (string, string) {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return "", fmt.Sprintf("groundwire.%s: %s must be a string", fn, what)
	}
	return args[i].String(), ""
}

// sourcesArg returns args[i] as a slice of strings.
func sourcesArg(fn string, args []js.Value, i int) ([]string, string) {
	msg := fmt.Sprintf("groundwire.%s: sources must be an array of strings", fn)
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
		return 0, nil, fmt.Sprintf("groundwire.%s: bad stream guard handle", fn)
	}
	h := args[0].Int()
	g, ok := guards[h]
	if !ok {
		return h, nil, fmt.Sprintf("groundwire.%s: stream guard is closed", fn)
	}
	return h, g, ""
}

func extract(_ js.Value, args []js.Value) any {
	text, bad := stringArg("extract", "text", args, 0)
	if bad != "" {
		return fail("%s", bad)
	}
	nums := guardrail.Extract(text)
	if nums == nil {
		nums = []guardrail.Number{}
	}
	return result(nums)
}

func verify(_ js.Value, args []js.Value) any {
	answer, bad := stringArg("verify", "answer", args, 0)
	if bad != "" {
		return fail("%s", bad)
	}
	sources, bad := sourcesArg("verify", args, 1)
	if bad != "" {
		return fail("%s", bad)
	}
	return result(guardrail.VerifyStrings(answer, sources))
}

func newStreamGuard(_ js.Value, args []js.Value) any {
	sources, bad := sourcesArg("newStreamGuard", args, 0)
	if bad != "" {
		return fail("%s", bad)
	}
	h := nextHandle
	nextHandle++
	guards[h] = &guard{g: guardrail.NewStreamGuard(guardrail.NewSources(sources))}
	return map[string]any{"handle": h}
}

func feed(_ js.Value, args []js.Value) any {
	_, g, bad := handleArg("feed", args)
	if bad != "" {
		return fail("%s", bad)
	}
	delta, bad := stringArg("feed", "delta", args, 1)
	if bad != "" {
		return fail("%s", bad)
	}
	safe, ok := g.g.Feed(delta)
	r := feedResult{Safe: safe, OK: ok}
	if nv, blocked := g.g.Blocked(); blocked {
		r.Blocked = &nv
	}
	return result(r)
}

func closeGuard(_ js.Value, args []js.Value) any {
	h, g, bad := handleArg("close", args)
	if bad != "" {
		return fail("%s", bad)
	}
	delete(guards, h)
	safe, v := g.g.Close()
	return result(closeResult{Safe: safe, Verdict: v})
}

func release(_ js.Value, args []js.Value) any {
	if len(args) > 0 && args[0].Type() == js.TypeNumber {
		delete(guards, args[0].Int())
	}
	return nil
}
