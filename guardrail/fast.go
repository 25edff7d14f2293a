//go:build !js && !guardrail_general

package guardrail

// fast is true where the scanner takes its fast paths: ways of reading the
// common cases (prose, plain integers, …) that give exactly what the
// general path gives, only sooner. The WASM guard is built without them
// (fast_general.go), since in the browser the size of the code counts for
// more than its speed; `go test -tags guardrail_general` runs the native
// tests on the general path, whose results TestGolden holds to the same
// digest.
const fast = true
