//go:build js || guardrail_general

package guardrail

// fast is false: the scanner reads everything the general way (see fast.go).
const fast = false
