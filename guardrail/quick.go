package guardrail

// quickSlot is a value one of the sources states, in the index that
// Verify's fast path looks the numbers of an answer up in (see citeQuick):
// the print of the value's key (see quickPrint) and, in one word, what
// grounds most numbers of that value without a look at the attrs of each
// number of it. A key of more than 16 bytes has no quick slot.
type quickSlot struct {
	head, tail uint64 // quickPrint(key)
	// info is, from the lowest byte up: len(key) (0 in an empty slot);
	// quickMany when the source prints the key with several attrs, none
	// empty; else the unit and period it prints it with (none: it agrees
	// with any); and from bit 32 on, the index of the source — in the
	// slots a Source keeps to be merged (keys), the key's hash instead
	// (quickHash), which addQuick places it by.
	info uint64
}

// quickMany is the bit of quickSlot.info set when only the attrs of each
// number of the key tell whether they agree.
const quickMany = 1 << 8

// quickInfo returns the info of a quick slot for a key of n bytes that a
// source prints with as, not empty.
func quickInfo(n int, as []attrs) uint64 {
	for _, a := range as {
		if a == (attrs{}) {
			return uint64(n) // agrees with any
		}
	}
	a := as[0]
	for _, b := range as[1:] {
		if b != a {
			return uint64(n) | quickMany
		}
	}
	return uint64(n) | uint64(a.unit)<<16 | uint64(a.period)<<24
}

// quickPrint returns the print of a key of 1 to 16 bytes, which holds all
// of its bytes: its first 8 bytes in head and its last 8 in tail when it
// is longer (else 0); a key of 4 to 8 bytes has its first 4 and its last 4
// in head, a shorter one its first, its last and (of 3) its middle byte.
// Two keys of the same length with the same print are equal.
func quickPrint(key string) (head, tail uint64) {
	switch n := len(key); n {
	case 9, 10, 11, 12, 13, 14, 15, 16:
		head, tail = le64s(key), le64s(key[n-8:])
	case 4, 5, 6, 7, 8:
		head = uint64(le32(key)) | uint64(le32(key[n-4:]))<<32
	case 1, 2:
		head = uint64(key[0]) | uint64(key[n-1])<<8
	case 3:
		head = uint64(key[0]) | uint64(key[2])<<8 | uint64(key[1])<<16
	}
	return head, tail
}

// quickHash returns the hash of a key of n bytes and print head, tail that
// places it in a quick index.
func quickHash(head, tail uint64, n int) uint32 {
	return uint32((head ^ tail*keyMul ^ uint64(n)) * keyMul >> 32)
}

// quickMix is quickHash(head, tail, n) from x = head ^ tail*keyMul, which
// is head for a key of up to 8 bytes (its tail is 0): citeQuick hashes
// such a key without a multiplication of its tail. (TestCiteQuick holds
// the two to the same hash.)
func quickMix(x uint64, n int) uint32 {
	return uint32((x ^ uint64(n)) * keyMul >> 32)
}

// addQuick puts the slots of keys (a Source's, with their hashes), with
// cite in place of their hashes, in the quick index tbl (a power of 2
// long, at most half full), each unless a slot holds its key already.
func addQuick(tbl, keys []quickSlot, cite uint64) {
	if len(tbl) == 0 {
		return // (which also tells the compiler that tbl[j&mask] is in range)
	}
	mask := uint(len(tbl) - 1)
	for x := range keys {
		q := &keys[x]
		for j := uint(q.info >> 32); ; j++ {
			m := &tbl[j&mask]
			if m.info == 0 {
				m.head, m.tail, m.info = q.head, q.tail, uint64(uint32(q.info))|cite
				break
			}
			if m.head == q.head && m.tail == q.tail && uint8(m.info) == uint8(q.info) {
				break // a source before states it
			}
		}
	}
}

// quickIndex makes s.quick and s.keys from s.index: a quick slot for each
// key of 1 to 16 bytes. Both are as long as the index at most (half of it
// for the keys, which fill at most half), and share one allocation.
func (s *Source) quickIndex() {
	size := len(s.index)
	all := make([]quickSlot, size+size/2)
	s.quick, s.keys = all[:size:size], all[size:size]
	for j := range s.index {
		sl := &s.index[j]
		if n := len(sl.key); sl.attrs != nil && n > 0 && n <= 16 {
			var q quickSlot
			q.head, q.tail = quickPrint(sl.key)
			q.info = quickInfo(n, sl.attrs) | uint64(quickHash(q.head, q.tail, n))<<32
			s.keys = append(s.keys, q)
		}
	}
	addQuick(s.quick, s.keys, 0)
}

// quickTable returns the quick index of sources for the n numbers of an
// answer: that of the source when there is one, else one made in s.quick
// from theirs, where each key has the slot of the first source that states
// it (the source citeQuick cites) — or none (nil) when the sources state
// too many values for a few numbers to pay for it, or when a Source was
// made other than by NewSource. The index it made last is kept with the
// sources it is of, and is the index of the same sources (the same
// pointers, in the same order: Sources do not change) when asked again, as
// a server verifying answers against the snippets it cited, or batch
// verifying lines that cite the same, does.
func (s *scanner) quickTable(sources []*Source, n int) []quickSlot {
	if len(sources) == 1 && sources[0] != nil {
		return sources[0].quick
	}
	if s.quickFor != nil && sameSources(s.quickFor, sources) {
		return s.quickTbl
	}
	keys := 0
	for _, src := range sources {
		if src != nil {
			keys += len(src.keys)
		}
	}
	if keys > 4*n {
		// Each number looked up in the index spares about as many
		// instructions as it takes to put four keys in it.
		return nil
	}
	size := 2
	for size < 2*keys { // at most half full
		size <<= 1
	}
	if cap(s.quick) < size {
		s.quick = make([]quickSlot, size)
	}
	tbl := s.quick[:size]
	clear(tbl)
	for i, src := range sources {
		if src != nil {
			addQuick(tbl, src.keys, uint64(i)<<32)
		}
	}
	s.quickFor, s.quickTbl = append(s.quickFor[:0], sources...), tbl
	return tbl
}

// fillVerdicts is fillAll for the numbers of nvs, from the tokens of the
// scan s of answer. (Verify fills them before it looks them up, in
// citeQuick: one loop for both keeps more values on the stack than two.)
// check writes the Citation of every number citeQuick leaves.
func (s *scanner) fillVerdicts(nvs []NumberVerdict, answer string) {
	toks := s.toks[:len(nvs)]
	for k := range toks {
		nv, t := &nvs[k], &toks[k]
		start, end := t.start, t.end
		nv.Start, nv.End, nv.Kind, nv.Unit, nv.Period = start, end, t.kind, Unit(t.unit), Unit(t.period)
		printed := answer[start:end]
		canon := printed
		if c, m := t.canon, int(t.canon.n); c.at != int32(start) || uint(m) > uint(len(printed)) {
			canon = s.str(c)
		} else {
			canon = printed[:m]
		}
		nv.Text, nv.Canonical = printed, canon
	}
}

// setNouns sets what each small count among nvs, the numbers of the scan
// s, counts, as numbers does.
func (s *scanner) setNouns(nvs []NumberVerdict) {
	if len(s.counts) == 0 {
		return
	}
	nouns := s.nounStrings()
	for k, c := range s.counts {
		if c.tok < len(nvs) && nouns[k] != "" {
			nvs[c.tok].noun = &nouns[k]
		}
	}
}

// citeQuick grounds each number of nvs, filled by fillVerdicts, that tbl,
// the quick index of the sources (see quickTable), grounds at once: a key
// of 1 to 16 bytes that a source states, printed with no unit and no
// period, or with attrs that agree with the one set the first source that
// states it prints it with. It cites that source, as cite would, and
// reports whether it grounded all (none without tbl); checkRest checks the
// others as the general path does.
func citeQuick(nvs []NumberVerdict, tbl []quickSlot) bool {
	if len(tbl) == 0 {
		return false // (which also tells the compiler that tbl[j&mask] is in range)
	}
	mask := uint(len(tbl) - 1)
	all := true
	for k := range nvs {
		nv := &nvs[k]
		key := nv.Canonical
		n := len(key)
		// quickPrint(key) and quickHash's head ^ tail*keyMul (x), written
		// out (inlined, they would take a call's place): a key of up to 8
		// bytes has no tail to multiply.
		var head, tail uint64
		var x uint64
		switch n {
		case 9, 10, 11, 12, 13, 14, 15, 16:
			head, tail = le64s(key), le64s(key[n-8:])
			x = head ^ tail*keyMul
		case 4, 5, 6, 7, 8:
			head = uint64(le32(key)) | uint64(le32(key[n-4:]))<<32
			x = head
		case 1, 2:
			head = uint64(key[0]) | uint64(key[n-1])<<8
			x = head
		case 3:
			head = uint64(key[0]) | uint64(key[2])<<8 | uint64(key[1])<<16
			x = head
		default: // none, or more than 16 bytes
			all = false
			continue
		}
		for j := uint(quickMix(x, n)); ; j++ {
			q := &tbl[j&mask]
			info := q.info
			if uint8(info) == uint8(n) && q.head == head && q.tail == tail {
				// A number that prints no unit and no period (codes 0)
				// agrees with any attrs, and one that prints those the
				// slot names with those (the commonest of the others).
				if want := uint16(nv.Unit) | uint16(nv.Period)<<8; want == 0 || want == uint16(info>>16) && uint8(want) != unknownCurrency && uint8(want>>8) != irregular || agrees(info, attrs{uint8(want), uint8(want >> 8)}) {
					nv.State, nv.Grounded, nv.Citation = Grounded, true, int32(info>>32)
				} else {
					all = false
				}
				break
			}
			if info == 0 { // (the length in an empty slot, 0, is no key's)
				all = false
				break
			}
		}
	}
	return all
}

// checkRest checks each number of nvs, the numbers of the scan s, that
// citeQuick left without a verdict, and reports whether none blocks the
// answer under p.
func (p Policy) checkRest(s *scanner, nvs []NumberVerdict, sources []*Source) bool {
	grounded := true
	for k := range nvs {
		if nv := &nvs[k]; nv.State == 0 {
			t := &s.toks[k]
			if nv.check(sources, attrs{t.unit, t.period}); p.Blocks(nv.State) {
				grounded = false
			}
		}
	}
	return grounded
}

// agrees reports whether a number printed with want agrees with the
// attrs of the quick slot whose info is info, when that tells.
func agrees(info uint64, want attrs) bool {
	unit, period := uint8(info>>16), uint8(info>>24)
	return info&quickMany == 0 &&
		(unit == 0 || want.unit == 0 || unit == want.unit && unit != unknownCurrency) &&
		periodAgrees(period, want.period)
}

// VerifyStrings is Verify with sources given as plain snippet texts.
func VerifyStrings(answer string, sources []string) Verdict {
	return Verify(answer, NewSources(sources))
}

// sameSources reports whether a and b hold the same sources in the same
// order.
func sameSources(a, b []*Source) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
