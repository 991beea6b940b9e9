package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// MaxLine is the longest JSON-RPC message the bridge relays, in bytes
// without the newline; the daemon refuses larger bodies too.
const MaxLine = 10 << 20

// oversizeHead is how much of an oversized line is kept to find its id.
const oversizeHead = 64 << 10

// lineReader splits stdin into newline-delimited messages. A line longer
// than max is consumed and reported as oversized without being buffered
// whole. It is not safe for concurrent use.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-blank line, trimmed of surrounding white space,
// in a slice the caller owns. For a line longer than max it returns
// oversized true and at most oversizeHead bytes of the line's start. At the
// end of input it returns io.EOF; a last line without a newline is returned
// first.
func (lr *lineReader) next() (line []byte, oversized bool, err error) {
	for {
		line, oversized, err = lr.readLine()
		if oversized {
			return line, true, nil
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) > 0 {
			return trimmed, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// readLine reads one line. err is non-nil only when no more lines follow.
func (lr *lineReader) readLine() (line []byte, oversized bool, err error) {
	frag, err := lr.r.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(frag) > 0) {
		// The common case: the whole line fits in the buffer.
		if len(bytes.TrimRight(frag, "\r\n")) > lr.max {
			return headOf(bytes.TrimRight(frag, "\r\n")), true, nil
		}
		return bytes.Clone(frag), false, eofOnly(err)
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, false, err
	}
	acc := bytes.Clone(frag)
	for {
		frag, err = lr.r.ReadSlice('\n')
		n := len(acc) + len(frag)
		if errors.Is(err, bufio.ErrBufferFull) {
			n-- // the last byte may be a '\r' before the newline
		} else {
			n = len(acc) + len(bytes.TrimRight(frag, "\r\n"))
		}
		if n > lr.max {
			head := headOf(acc)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = lr.r.ReadSlice('\n')
			}
			return head, true, nil
		}
		acc = append(acc, frag...)
		switch {
		case err == nil:
			return acc, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return acc, false, err
		}
	}
}

func headOf(b []byte) []byte {
	return bytes.Clone(b[:min(len(b), oversizeHead)])
}

func eofOnly(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	return nil
}

// idFromHead finds the top-level "id" of a JSON object from the start of a
// message too large to decode whole. It returns nil when the id cannot be
// read (it comes after a value that does not fit in head).
func idFromHead(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			return v
		}
	}
	return nil
}
