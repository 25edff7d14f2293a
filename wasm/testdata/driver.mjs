// driver.mjs runs guardrail.wasm under Node for the differential test
// (web/wasm_diff_test.go) through the same JS API the page uses.
//
//   node driver.mjs WASM_EXEC_JS GUARDRAIL_WASM GROUNDWIRE_JS CASES_JSON OUT_JSON
//
// CASES_JSON: [{answer, sources: [string], deltas: [string]}]
// OUT_JSON:   {results: [{extract, verify, feeds: [{safe, ok, blocked?}], close, clean}],
//              errors: {name: message thrown}}
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [execJS, wasmPath, apiJS, casesPath, outPath] = process.argv.slice(2);
const require = createRequire(import.meta.url);
require(execJS); // defines globalThis.Go

const go = new globalThis.Go();
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), go.importObject);
go.run(instance);
const { groundwire } = await import(pathToFileURL(apiJS).href);
if (!groundwire.ready) throw new Error("groundwire.ready is not true after main ran");

const cases = JSON.parse(readFileSync(casesPath, "utf8"));
const results = cases.map((c) => {
  const guard = groundwire.newStreamGuard(c.sources);
  const feeds = c.deltas.map((d) => guard.feed(d));
  return {
    extract: groundwire.extract(c.answer),
    verify: groundwire.verify(c.answer, c.sources),
    feeds,
    close: guard.close(),
    clean: groundwire.clean(c.answer),
  };
});

function thrown(f) {
  try {
    f();
    return "";
  } catch (e) {
    return e instanceof Error ? e.message : `non-Error thrown: ${e}`;
  }
}
const closed = groundwire.newStreamGuard([]);
closed.close();
const errors = {
  extractNumber: thrown(() => groundwire.extract(42)),
  cleanNumber: thrown(() => groundwire.clean(42)),
  verifyNoSources: thrown(() => groundwire.verify("a")),
  verifyBadSources: thrown(() => groundwire.verify("a", ["ok", 1])),
  verifyAnswer: thrown(() => groundwire.verify(null, [])),
  guardSources: thrown(() => groundwire.newStreamGuard("x")),
  feedDelta: thrown(() => groundwire.newStreamGuard([]).feed(7)),
  feedClosed: thrown(() => closed.feed("x")),
  closeClosed: thrown(() => closed.close()),
};
writeFileSync(outPath, JSON.stringify({ results, errors }));
process.exit(0);
