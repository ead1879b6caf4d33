package agent

import (
	"encoding/json"
	"strings"
)

// partialObject follows a JSON object as its text streams in, and gives the object of its members complete so
// far: a typed answer's partial value. A member is complete at the comma after it or at the object's closing
// brace, so no member of a partial value changes later. Text before the object's opening brace (a Markdown
// fence, in prompted mode) is skipped. Each byte is scanned once, however the text is split.
type partialObject struct {
	buf      []byte // the text from the object's opening brace on
	scanned  int    // how much of buf is scanned
	started  bool   // the opening brace was seen
	depth    int
	inString bool
	escaped  bool
	done     bool // the object closed
	broken   bool // a member is not valid JSON: nothing more is given
	whole    bool // complete is the whole object's end
	complete int  // buf[:complete] ends after the last complete member (before its comma), or is the whole object
	given    int  // complete when add last returned a value
}

// add appends text and returns the object of the members complete so far when it has more than add last
// returned, and nil otherwise. What it returns is a valid JSON object; text that is not one gives nothing from
// the first member that breaks it on.
func (p *partialObject) add(text string) json.RawMessage {
	if p.done {
		return nil
	}
	if !p.started {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			return nil
		}
		p.started, text = true, text[i:]
	}
	p.buf = append(p.buf, text...)
	for ; p.scanned < len(p.buf) && !p.done; p.scanned++ {
		c := p.buf[p.scanned]
		if p.inString {
			switch {
			case p.escaped:
				p.escaped = false
			case c == '\\':
				p.escaped = true
			case c == '"':
				p.inString = false
			}
			continue
		}
		switch c {
		case '"':
			p.inString = true
		case '{', '[':
			p.depth++
		case '}', ']':
			p.depth--
			if p.depth <= 0 {
				p.done = true
				p.member(p.scanned+1, true)
			}
		case ',':
			if p.depth == 1 {
				p.member(p.scanned, false)
			}
		}
	}
	if p.complete <= p.given {
		return nil
	}
	p.given = p.complete
	return p.value(p.complete, p.whole)
}

// member records that a member ends at end, when the object up to it is valid JSON. At the first that is not,
// the object is broken and gives nothing more: what it gives does not depend on how the text was split.
func (p *partialObject) member(end int, whole bool) {
	if p.broken {
		return
	}
	if json.Valid(p.value(end, whole)) {
		p.complete, p.whole = end, whole
	} else {
		p.broken = true
	}
}

// value is the object of the members before end, which is the whole object's end when whole.
func (p *partialObject) value(end int, whole bool) json.RawMessage {
	v := make([]byte, 0, end+1)
	v = append(v, p.buf[:end]...)
	if !whole {
		v = append(v, '}')
	}
	return v
}

// reset starts over, for the next answer.
func (p *partialObject) reset() { *p = partialObject{buf: p.buf[:0]} }
