// Package memo keeps the results of a pure function of words in a bounded
// map: the word analysis kb's index and lambda's mock model repeat for
// every message.
package memo

import "sync"

// Get returns (*m)[k], read under mu, or f's value, which it keeps; a map
// holding max entries is emptied first. f runs without mu held, so two
// callers may compute the same value (both keep it: f must be pure).
func Get[K comparable, V any](mu *sync.Mutex, m *map[K]V, max int, k K, f func() V) V {
	mu.Lock()
	v, ok := (*m)[k]
	mu.Unlock()
	if ok {
		return v
	}
	v = f()
	mu.Lock()
	if *m == nil || len(*m) >= max {
		*m = make(map[K]V)
	}
	(*m)[k] = v
	mu.Unlock()
	return v
}
