package output

import (
	"sort"
	"unicode/utf8"
)

// runeStride is the distance, in characters, between two marks of a
// runeIndex: a lookup decodes at most runeStride-1 characters.
const runeStride = 256

// runeIndex converts between character and byte offsets of one string in
// about constant time, for strings under 2 GiB. It is immutable once built.
type runeIndex struct {
	n     int     // characters in the string
	ascii bool    // every character is one byte: offsets are identical
	marks []int32 // marks[k] is the byte offset of character k*runeStride
}

func newRuneIndex(s string) runeIndex {
	if isASCII(s) {
		return runeIndex{n: len(s), ascii: true}
	}
	marks := make([]int32, 0, len(s)/runeStride+1)
	r := 0
	for i := range s {
		if r%runeStride == 0 {
			marks = append(marks, int32(i))
		}
		r++
	}
	return runeIndex{n: r, marks: marks}
}

// byteAt returns the byte offset in s of character r, clamped to [0, len(s)].
func (x *runeIndex) byteAt(s string, r int) int {
	switch {
	case r <= 0:
		return 0
	case r >= x.n:
		return len(s)
	case x.ascii:
		return r
	}
	b := int(x.marks[r/runeStride])
	for rem := r % runeStride; rem > 0; rem-- {
		if s[b] < utf8.RuneSelf {
			b++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[b:])
		b += w
	}
	return b
}

// runeAt returns the character offset of byte offset b, which must be at a
// character boundary of s.
func (x *runeIndex) runeAt(s string, b int) int {
	if x.ascii || b <= 0 {
		return max(b, 0)
	}
	k := sort.Search(len(x.marks), func(i int) bool { return int(x.marks[i]) > b }) - 1
	return k*runeStride + utf8.RuneCountInString(s[x.marks[k]:b])
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
