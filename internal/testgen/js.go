package testgen

import (
	"fmt"
	"strings"
)

// Every string from the page (names, locators, values, URLs, error
// messages) enters a generated file through one of these, chosen by where
// it goes: q inside code, jsComment inside a // comment. Nothing from the
// page is concatenated into a line any other way (FuzzEscape).

// q is s as a single-quoted TypeScript string. s may come from the page
// (untrusted): every control and line-terminator character is escaped
// (U+2028 and U+2029 end a line in a comment), the backtick and "${" too,
// and "*/" is broken up, so the literal stays one literal wherever it is
// pasted (code, a template, a comment).
func q(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	prev := rune(0)
	for _, r := range s {
		switch {
		case r == '\'' || r == '\\' || r == '`':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case (r == '{' && prev == '$') || (r == '/' && prev == '*'):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	b.WriteByte('\'')
	return b.String()
}

// jsComment is s made safe as the text of a // comment: a line terminator
// (\n, \r, U+2028, U+2029) would end the comment and make the rest code,
// so every control and line-terminator character becomes its \u escape,
// and "*/" is broken up should the comment ever sit in a block.
func jsComment(s string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		switch {
		case isControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '/' && prev == '*':
			b.WriteString(` /`)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// isControl reports the characters escaped in any context: C0 and C1
// controls, DEL, the line and paragraph separators, and the bidi
// overrides and isolates that reorder what a reviewer reads (Trojan
// Source).
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == '\u2028' || r == '\u2029' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\ufeff'
}
