package guardrail

import (
	"math/bits"
)

// dec is an exact decimal, c × 10^e, for the arithmetic of derived numbers
// (see derive.go). Every operation is exact or reports that it is not
// (overflow of the 63-bit coefficient): a derivation that cannot be
// computed exactly is not made.
type dec struct {
	c int64
	e int32
}

// maxExp bounds the exponents of the decimals derive compares: a value
// further from 1 than 10^±maxExp is not an operand.
const maxExp = 30

// parseDec reads a canonical value ("4788", "12.5", "-5", "1500000",
// "20%"'s "20"): an optional '-', digits, an optional '.' and digits. It
// reports false for anything else or for more than 18 significant digits.
func parseDec(s string) (dec, bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if s == "" {
		return dec{}, false
	}
	var c int64
	var e int32
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == '.' && !dot && i > 0 && i+1 < len(s):
			dot = true
		case b >= '0' && b <= '9':
			if c == 0 && b == '0' {
				if dot {
					e--
				}
				continue
			}
			if digits++; digits > 18 {
				return dec{}, false
			}
			c = c*10 + int64(b-'0')
			if dot {
				e--
			}
		default:
			return dec{}, false
		}
	}
	if neg {
		c = -c
	}
	return dec{c, e}.norm(), true
}

// norm strips trailing zeros of the coefficient into the exponent (zero
// is 0 × 10^0), so that equal values are equal decs.
func (d dec) norm() dec {
	if d.c == 0 {
		return dec{}
	}
	for d.c%10 == 0 {
		d.c /= 10
		d.e++
	}
	return d
}

// pow10 returns 10^n for 0 ≤ n ≤ 18.
func pow10(n int32) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

// mulInt returns a × b, or false on overflow.
func mulInt(a, b int64) (int64, bool) {
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > 1<<63-1 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

// scaled returns d's coefficient written with exponent e ≤ d.e, or false
// on overflow.
func (d dec) scaled(e int32) (int64, bool) {
	k := d.e - e
	if k > 18 {
		return 0, d.c == 0
	}
	return mulInt(d.c, pow10(k))
}

// add returns a + b exactly, or false.
func (a dec) add(b dec) (dec, bool) {
	e := min(a.e, b.e)
	x, ok1 := a.scaled(e)
	y, ok2 := b.scaled(e)
	s := x + y
	if !ok1 || !ok2 || (x > 0) == (y > 0) && x != 0 && y != 0 && (s > 0) != (x > 0) {
		return dec{}, false
	}
	return dec{s, e}.norm(), true
}

// neg returns −a.
func (a dec) neg() dec { return dec{-a.c, a.e} }

// sub returns a − b exactly, or false.
func (a dec) sub(b dec) (dec, bool) { return a.add(b.neg()) }

// mul returns a × b exactly, or false.
func (a dec) mul(b dec) (dec, bool) {
	c, ok := mulInt(a.c, b.c)
	e := a.e + b.e
	if !ok || e > maxExp*2 || e < -maxExp*2 {
		return dec{}, false
	}
	return dec{c, e}.norm(), true
}

// cmp compares a and b: -1, 0 or +1; ok is false when they cannot be
// aligned exactly (then they are far apart, and the sign of their
// difference is still right: see cmpFar).
func (a dec) cmp(b dec) int {
	e := min(a.e, b.e)
	x, ok1 := a.scaled(e)
	y, ok2 := b.scaled(e)
	if !ok1 || !ok2 {
		return cmpFar(a, b)
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// cmpFar compares two decimals too far apart in magnitude to align: the
// one with more digits before its point is the larger in magnitude.
func cmpFar(a, b dec) int {
	if (a.c < 0) != (b.c < 0) || a.c == 0 || b.c == 0 {
		return sign(a.c) - sign(b.c)
	}
	m := magnitude(a) - magnitude(b)
	if a.c < 0 {
		m = -m
	}
	return int(sign(int64(m)))
}

func sign(x int64) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// magnitude returns the position of d's leading digit: 0 for 1–9, 3 for
// 1000–9999, −1 for 0.1–0.9.
func magnitude(d dec) int32 {
	n := int32(0)
	for c := d.c; c >= 10 || c <= -10; c /= 10 {
		n++
	}
	return n + d.e
}

// abs returns |a|.
func (a dec) abs() dec {
	if a.c < 0 {
		return a.neg()
	}
	return a
}

// float returns d as a float64, for the coarse search of candidates.
func (d dec) float() float64 {
	f := float64(d.c)
	for e := d.e; e > 0; e-- {
		f *= 10
	}
	for e := d.e; e < 0; e++ {
		f /= 10
	}
	return f
}

// within reports whether the exact value n/den (den > 0) rounds to v at
// a precision of unit, half up: v − unit/2 ≤ n/den < v + unit/2 (with unit
// 0: n/den = v). It reports false when that cannot be computed exactly.
func within(n, den, v, unit dec) bool {
	vd, ok1 := v.mul(den)
	diff, ok2 := n.sub(vd)
	if !ok1 || !ok2 {
		return false
	}
	if unit.c == 0 {
		return diff.c == 0
	}
	half, ok3 := unit.mul(den)
	two, ok4 := diff.mul(dec{2, 0})
	return ok3 && ok4 && two.cmp(half.neg()) >= 0 && two.cmp(half) < 0
}

// quo returns n ÷ d when it is a decimal of at most 18 digits.
func quo(n, d dec) (dec, bool) {
	if d.c == 0 {
		return dec{}, false
	}
	for k := int32(0); k <= 18; k++ {
		x, ok := mulInt(n.c, pow10(k))
		if !ok {
			return dec{}, false
		}
		if x%d.c == 0 {
			return dec{x / d.c, n.e - d.e - k}.norm(), true
		}
	}
	return dec{}, false
}

// String writes d in plain decimal notation: "12", "0.3048", "1500000".
func (d dec) String() string {
	neg := d.c < 0
	digits := itoa(d.abs().c)
	for e := d.e; e > 0; e-- {
		digits += "0"
	}
	if k := int(-d.e); k > 0 {
		for len(digits) <= k {
			digits = "0" + digits
		}
		digits = digits[:len(digits)-k] + "." + digits[len(digits)-k:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}
