package guardrail

// Source is a cited snippet with its numbers extracted once, so that an
// answer can be verified against it without scanning the snippet again.
// A Source is immutable after [NewSource] and safe for concurrent use.
type Source struct {
	Text    string
	Numbers []Number
	keys    map[string]struct{}
}

// NewSource extracts the numbers of a snippet and indexes their canonical
// forms. A percent also indexes its bare value: a snippet saying "20%"
// grounds an answer saying "20".
func NewSource(text string) *Source {
	nums := Extract(text)
	s := &Source{Text: text, Numbers: nums, keys: make(map[string]struct{}, len(nums)+1)}
	for _, n := range nums {
		s.keys[n.Canonical] = struct{}{}
		if n.Kind == KindPercent {
			s.keys[n.Canonical[:len(n.Canonical)-1]] = struct{}{}
		}
	}
	return s
}

// NewSources is NewSource for each text, in order.
func NewSources(texts []string) []*Source {
	out := make([]*Source, len(texts))
	for i, t := range texts {
		out[i] = NewSource(t)
	}
	return out
}

// Grounds reports whether the snippet holds a number with the given
// canonical form.
func (s *Source) Grounds(canonical string) bool {
	_, ok := s.keys[canonical]
	return ok
}

// NumberVerdict is the verdict on one number of an answer.
type NumberVerdict struct {
	Number
	Grounded bool `json:"grounded"`
	// Citation is the index of the first source that grounds the number,
	// or -1 when none does.
	Citation int `json:"citation"`
}

// Verdict is the verdict on a whole answer. Grounded is true when every
// number of the answer is grounded (an answer without numbers is grounded).
type Verdict struct {
	Grounded bool            `json:"grounded"`
	Numbers  []NumberVerdict `json:"numbers"`
}

// FirstUngrounded returns the first number that no source grounds.
func (v Verdict) FirstUngrounded() (NumberVerdict, bool) {
	for _, n := range v.Numbers {
		if !n.Grounded {
			return n, true
		}
	}
	return NumberVerdict{}, false
}

// Check returns the verdict on one number against the sources.
func Check(n Number, sources []*Source) NumberVerdict {
	for i, s := range sources {
		if s != nil && s.Grounds(n.Canonical) {
			return NumberVerdict{Number: n, Grounded: true, Citation: i}
		}
	}
	return NumberVerdict{Number: n, Citation: -1}
}

// Verify checks every number of answer against the sources.
func Verify(answer string, sources []*Source) Verdict {
	return verdictOf(Extract(answer), sources)
}

// VerifyStrings is Verify with sources given as plain snippet texts.
func VerifyStrings(answer string, sources []string) Verdict {
	return Verify(answer, NewSources(sources))
}

func verdictOf(nums []Number, sources []*Source) Verdict {
	v := Verdict{Grounded: true, Numbers: make([]NumberVerdict, 0, len(nums))}
	for _, n := range nums {
		nv := Check(n, sources)
		if !nv.Grounded {
			v.Grounded = false
		}
		v.Numbers = append(v.Numbers, nv)
	}
	return v
}
