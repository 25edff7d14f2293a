package lambda

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// withinEdits agrees with the optimal string alignment distance computed
// plainly, for short and long words (past its 32-letter buffers) and
// letters outside ASCII.
func TestWithinEdits(t *testing.T) {
	osa := func(a, b []rune) int {
		d := make([][]int, len(a)+1)
		for i := range d {
			d[i] = make([]int, len(b)+1)
			d[i][0] = i
		}
		for j := range d[0] {
			d[0][j] = j
		}
		for i := 1; i <= len(a); i++ {
			for j := 1; j <= len(b); j++ {
				cost := 1
				if a[i-1] == b[j-1] {
					cost = 0
				}
				d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
				if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
					d[i][j] = min(d[i][j], d[i-2][j-2]+1)
				}
			}
		}
		return d[len(a)][len(b)]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	letters := []rune("abcåäö")
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(letters[rng.IntN(len(letters))])
		}
		return b.String()
	}
	for i := 0; i < 20000; i++ {
		n := 1 + rng.IntN(8)
		if i%10 == 0 {
			n = 30 + rng.IntN(8)
		}
		a := word(n)
		b := []rune(a)
		for range rng.IntN(4) { // a few edits
			switch p := rng.IntN(len(b) + 1); rng.IntN(3) {
			case 0:
				b = append(b[:p], append([]rune{letters[rng.IntN(len(letters))]}, b[p:]...)...)
			case 1:
				if p < len(b) {
					b = append(b[:p], b[p+1:]...)
				}
			default:
				if p+1 < len(b) {
					b[p], b[p+1] = b[p+1], b[p]
				}
			}
		}
		want := osa([]rune(a), b)
		for k := 0; k <= 3; k++ {
			if got := withinEdits(a, string(b), k); got != (want <= k) {
				t.Fatalf("withinEdits(%q, %q, %d) = %v, distance %d", a, string(b), k, got, want)
			}
		}
	}
}
