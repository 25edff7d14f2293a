package guardrail

// StreamGuard checks an answer while it streams (hold mode, SPEC §4): it is
// fed the model's deltas as they arrive and returns at once the text that is
// safe to show. Prose passes straight through; text is held only while its
// end could still be (the start of) a number — "12" may become "12.5",
// "+46 8" a phone number, "twenty" "twenty-five" — until the number is
// complete. A grounded number is released; the first ungrounded one blocks
// the answer and nothing after it is released.
//
// Whatever the split of the text into deltas, the released text and the
// verdict are the same as for the whole text: when the answer is grounded
// the released text is the whole answer, otherwise it is the text before
// the first ungrounded number, and Close's verdict equals [Verify].
//
// A StreamGuard is used by one goroutine at a time.
type StreamGuard struct {
	sources []*Source
	// raw is every byte fed. It is only ever appended to: f.src, and the
	// texts Feed and Close return and the numbers hold, are slices of its
	// String, made without a copy natively (see textBuf).
	raw      textBuf
	decoded  int // bytes of raw folded into f
	f        folded
	scanned  int // rune index up to which numbers are final
	released int // byte offset up to which text was returned
	numbers  []NumberVerdict
	policy   Policy
	settled  int     // numbers whose verdict is final (see settle)
	d        deriver // derives the ungrounded numbers
	s        scanner // kept between calls for its buffers
	blocked  bool
	closed   bool
	quick    []quickSlot // the quick index of the sources (fast path, see quickTable)
}

// NewStreamGuard returns a guard for one answer verified against sources
// under the default policy.
func NewStreamGuard(sources []*Source) *StreamGuard {
	return Default.NewStreamGuard(sources)
}

// NewStreamGuard returns a guard for one answer verified against sources
// under p.
func (p Policy) NewStreamGuard(sources []*Source) *StreamGuard {
	if fast {
		sources = citable(sources)
	}
	return &StreamGuard{sources: sources, policy: p, d: deriver{sources: sources, from: -1}}
}

// Feed appends delta to the answer and returns the text that has become
// safe to show. ok is false once the answer holds an ungrounded number
// (see [StreamGuard.Blocked]); the caller should stop the stream then.
// Feeding after Close panics.
func (g *StreamGuard) Feed(delta string) (safe string, ok bool) {
	if g.closed {
		panic("guardrail: Feed after Close")
	}
	g.raw.WriteString(delta)
	g.decoded = g.f.appendBytes(g.raw.String(), g.decoded, false)
	return g.advance(false), !g.blocked
}

// Close ends the answer: whatever is still held is decided, and the rest of
// the safe text is returned with the verdict on the whole answer.
func (g *StreamGuard) Close() (safe string, v Verdict) {
	if !g.closed {
		g.closed = true
		g.decoded = g.f.appendBytes(g.raw.String(), g.decoded, true)
		safe = g.advance(true)
	}
	v = Verdict{Grounded: !g.blocked, Numbers: g.numbers}
	return safe, v
}

// Blocked returns the number that blocked the answer, if one did.
func (g *StreamGuard) Blocked() (NumberVerdict, bool) {
	if !g.blocked {
		return NumberVerdict{}, false
	}
	first, _ := Verdict{Numbers: g.numbers}.FirstBlocking(g.policy)
	return first, true
}

// verdicts adds the numbers the last scan found, with their verdicts
// (see settle for what they make of the answer).
func (g *StreamGuard) verdicts() {
	s := &g.s
	s.spans()
	if fast {
		g.quickVerdicts()
		return
	}
	from := len(g.numbers)
	for k := range s.toks {
		g.numbers = append(g.numbers, NumberVerdict{})
		s.fill(&g.numbers[len(g.numbers)-1].Number, &s.toks[k], g.f.src)
	}
	nvs := g.numbers[from:]
	s.setNouns(nvs) // before check, which reads them
	for k := range nvs {
		nv, t := &nvs[k], &s.toks[k]
		nv.check(g.sources, attrs{t.unit, t.period})
	}
	checkQualifiers(g.f.src, nvs, g.sources)
}

// quickVerdicts is verdicts for the fast path: it fills and grounds the
// numbers as Verify's fast path does, with the guard's quick index.
func (g *StreamGuard) quickVerdicts() {
	s := &g.s
	from, n := len(g.numbers), len(s.toks)
	if n <= cap(g.numbers)-from {
		// The verdicts past the end are zero as append made them: the
		// guard writes none but those it adds.
		g.numbers = g.numbers[:from+n]
	} else {
		g.numbers = append(g.numbers, make([]NumberVerdict, n)...)
	}
	nvs := g.numbers[from:]
	s.fillVerdicts(nvs, g.f.src)
	if len(s.counts) != 0 {
		s.setNouns(nvs)
	}
	if !citeQuick(nvs, g.quickTable()) {
		g.policy.checkRest(s, nvs, g.sources)
	}
	checkQualifiers(g.f.src, nvs, g.sources)
}

// settle makes final, in order, the verdicts of the numbers found: an
// ungrounded number is derived once the text decoded shows the end of its
// sentence, and its numbers are final up to it (up to read, or all of the
// text when final). It returns the
// byte offset where the text safe to show ends for now — where the first
// number that blocks the answer starts, or the first that waits for its
// sentence — or -1 when none does.
func (g *StreamGuard) settle(read int, final bool) int {
	for ; g.settled < len(g.numbers); g.settled++ {
		nv := &g.numbers[g.settled]
		if nv.State == Grounded && taxedValue(g.sources, nv.Canonical, nv.Unit) {
			// Its tax is said after it ("399 kr exkl. moms"): it waits
			// for the words that may say it (see qualifiers.go).
			if !final && qualifierPending(g.f.src, nv.End) {
				if g.blocked {
					return -1
				}
				return nv.Start
			}
			checkQualifiers(g.f.src, g.numbers[g.settled:g.settled+1], g.sources)
		}
		if nv.State != Ungrounded && falseStep(g.f.src, g.numbers, g.settled, g.sources) {
			// a printed step that does not hold (see steps.go)
			unground(nv)
		}
		if nv.State == Ungrounded && !g.d.derive(g.f.src, g.numbers, g.settled, read, g.decoded, final) {
			if g.blocked {
				return -1
			}
			return nv.Start
		}
		if g.policy.Blocks(nv.State) && !g.blocked {
			g.blocked = true
			g.settled++
			g.settle(read, final) // the later numbers' verdicts, for Close
			return nv.Start
		}
	}
	return -1
}

// quickTable returns the quick index of the guard's sources, or nil while
// it would not pay: it is made once, when the numbers found so far are
// enough for Verify to make it for them (see scanner.quickTable), so that
// a guard spends at most about as much on the numbers it checks before as
// the index costs.
func (g *StreamGuard) quickTable() []quickSlot {
	if g.quick == nil {
		g.quick = g.s.quickTable(g.sources, len(g.numbers))
	}
	return g.quick
}

// Text returns everything fed so far.
func (g *StreamGuard) Text() string { return g.raw.String() }

// advance scans the text that is not final yet and returns what became
// safe to show.
func (g *StreamGuard) advance(final bool) string {
	s := &g.s
	s.f, s.final, s.prefix, s.toks, s.counts = &g.f, final, 0, s.toks[:0], s.counts[:0]
	stop, open := s.scan(g.scanned)
	if len(s.toks) > 0 {
		g.verdicts()
	}
	g.scanned = stop
	read := g.decoded // what the numbers found are final up to
	if open {
		read = g.f.start(stop)
	}
	wasBlocked := g.blocked
	limit := g.settle(read, final) // where the text safe to show ends, if before
	end := g.decoded
	switch {
	case wasBlocked:
		return ""
	case limit >= 0:
		end = limit
	case g.blocked:
		return ""
	case open:
		end = g.f.start(stop)
	}
	if end <= g.released {
		return ""
	}
	safe := g.f.src[g.released:end] // made in place (see appendBytes)
	g.released = end
	return safe
}
