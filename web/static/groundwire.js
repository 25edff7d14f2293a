// groundwire.js — the JavaScript API of the WASM number guard.
//
// guardrail.wasm (built from ./wasm) fills globalThis.groundwire._raw with
// bindings that return {json} or {error}. This module defines the public API
// on the same global object and turns errors into thrown JS Errors:
//
//   groundwire.extract(text)           → [{text, canonical, kind, unit?, start, end}]
//   groundwire.clean(text)             → text without the format controls that
//                                        change display (bidi overrides, …), as
//                                        the server removes them (guardrail.Clean)
//   groundwire.verify(answer, sources) → {grounded, numbers: [{…number, state, grounded, citation,
//                                        formula?, operands?}]}  (a derived number has formula, operands)
//   groundwire.newStreamGuard(sources) → guard
//     guard.feed(delta) → {safe, ok, blocked?}   show only `safe`; ok=false: stop
//     guard.close()     → {safe, verdict}        decide what is held; frees the guard
//     guard.release()                            free without deciding (cancelled)
//
// Results are JSON.parse of the encoding/json form of the native Go types,
// identical to what the server computes. Offsets (start, end) are UTF-8 byte
// offsets into the Go string, as in Go; use `text` to find a number in a
// JS string.
//
// In a browser, `await load()` fetches wasm_exec.js and guardrail.wasm from
// the page's origin and resolves to globalThis.groundwire once it is ready.
// Elsewhere (Node), run guardrail.wasm with wasm_exec.js yourself and import
// this module: the API works as soon as groundwire.ready is true.

const gw = (globalThis.groundwire ??= { ready: false });

function call(name, ...args) {
  const raw = gw._raw;
  if (!raw) {
    throw new Error(`groundwire.${name}: the WASM guard is not loaded`);
  }
  const r = raw[name](...args);
  if (r && typeof r.error === "string") {
    throw new Error(r.error);
  }
  return r;
}

function parsed(r) {
  return JSON.parse(r.json);
}

// Frees guards that were dropped without close() or release().
const finalizer =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((handle) => {
        if (gw._raw) gw._raw.release(handle);
      })
    : null;

class StreamGuard {
  #handle;
  #closed = false;

  constructor(handle) {
    this.#handle = handle;
    if (finalizer) finalizer.register(this, handle, this);
  }

  feed(delta) {
    if (this.#closed) throw new Error("groundwire.feed: stream guard is closed");
    if (typeof delta !== "string") throw new Error("groundwire.feed: delta must be a string");
    return parsed(call("feed", this.#handle, delta));
  }

  close() {
    if (this.#closed) throw new Error("groundwire.close: stream guard is closed");
    this.#closed = true;
    if (finalizer) finalizer.unregister(this);
    return parsed(call("close", this.#handle));
  }

  release() {
    if (this.#closed) return;
    this.#closed = true;
    if (finalizer) finalizer.unregister(this);
    if (gw._raw) gw._raw.release(this.#handle);
  }

  get closed() {
    return this.#closed;
  }
}

gw.extract = (text) => parsed(call("extract", text));
gw.clean = (text) => parsed(call("clean", text));
gw.verify = (answer, sources) => parsed(call("verify", answer, sources));
gw.newStreamGuard = (sources) => new StreamGuard(call("newStreamGuard", sources).handle);

export const groundwire = gw;

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.appendChild(s);
  });
}

async function fetchOK(url) {
  const resp = await fetch(url);
  if (!resp.ok) {
    const why = (await resp.text()).trim();
    throw new Error(why || `${url}: HTTP ${resp.status}`);
  }
  return resp;
}

let loading = null;

// load fetches and starts the guard once; later calls return the same promise.
export function load({ wasmURL = "guardrail.wasm", execURL = "wasm_exec.js" } = {}) {
  loading ??= (async () => {
    if (gw.ready && gw._raw) return gw;
    // Fetch the wasm first: when the server cannot build it, it answers 503
    // with the reason, which is then the error shown to the user.
    const resp = await fetchOK(wasmURL);
    if (typeof globalThis.Go !== "function") await loadScript(execURL);
    const go = new globalThis.Go();
    let instance;
    if (WebAssembly.instantiateStreaming) {
      ({ instance } = await WebAssembly.instantiateStreaming(resp, go.importObject));
    } else {
      ({ instance } = await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject));
    }
    const ready = new Promise((resolve) => {
      if (gw.ready) resolve();
      else globalThis.addEventListener("groundwire:ready", () => resolve(), { once: true });
    });
    go.run(instance).then(() => {
      gw.ready = false;
      delete gw._raw;
    });
    await ready;
    return gw;
  })();
  return loading;
}
