package chat

import "strings"

// Collect reads a stream to its end and assembles the whole response: consecutive text deltas join into one
// Text part, consecutive reasoning deltas into one Reasoning part (see [JoinReasoning]), other parts are kept
// in order. Joining costs time linear in the text: the deltas of a part are gathered in one buffer and the
// part's text is made once, when the part ends.
func Collect(updates func(yield func(Update, error) bool)) (*Response, error) {
	c := collector{resp: &Response{}}
	for u, err := range updates {
		if err != nil {
			c.flush()
			return c.resp, err
		}
		c.add(u)
	}
	c.flush()
	return c.resp, nil
}

// collector assembles a response for Collect. The text of the last part of msg, when it joins more than one
// delta, is gathered in text until flush sets it on the part.
type collector struct {
	resp    *Response
	msg     *Message
	text    strings.Builder
	joining bool // the last part of msg is a Text or Reasoning whose text is in text
}

func (c *collector) add(u Update) {
	resp := c.resp
	if u.ResponseID != "" {
		resp.ID = u.ResponseID
	}
	if u.Model != "" {
		resp.Model = u.Model
	}
	if u.FinishReason != "" {
		resp.FinishReason = u.FinishReason
	}
	if u.Progress != nil || u.Steering || u.Answer != nil {
		return // a report about a running call, or input taken in: not a piece of the response
	}
	for _, p := range u.Parts {
		if up, ok := p.(UsagePart); ok {
			resp.Usage = resp.Usage.Add(up.Usage)
			continue
		}
		if c.msg == nil || (u.Role != "" && u.Role != c.msg.Role) {
			c.flush()
			role := u.Role
			if role == "" {
				role = RoleAssistant
			}
			resp.Messages = append(resp.Messages, Message{Role: role, AuthorName: u.AuthorName})
			c.msg = &resp.Messages[len(resp.Messages)-1]
		}
		parts := c.msg.Parts
		if t, ok := p.(Text); ok && len(parts) > 0 {
			if last, ok := parts[len(parts)-1].(Text); ok {
				c.join(last.Text, t.Text)
				continue
			}
		}
		if r, ok := p.(Reasoning); ok && len(parts) > 0 {
			if last, ok := parts[len(parts)-1].(Reasoning); ok {
				lastText, text := last.Text, r.Text
				last.Text, r.Text = "", ""
				if joined, ok := JoinReasoning(last, r); ok {
					c.join(lastText, text)
					parts[len(parts)-1] = joined
					continue
				}
				last.Text = lastText // JoinReasoning returned last unchanged
				parts[len(parts)-1] = last
				r.Text = text
				p = r
			}
		}
		c.flush()
		c.msg.Parts = append(c.msg.Parts, p)
	}
}

// join adds next to the text of the last part, whose text is last until the first join.
func (c *collector) join(last, next string) {
	if !c.joining {
		c.joining = true
		c.text.Grow(2 * (len(last) + len(next)))
		c.text.WriteString(last)
	}
	c.text.WriteString(next)
}

// flush sets the text joined so far on the last part of the message.
func (c *collector) flush() {
	if !c.joining {
		return
	}
	c.joining = false
	text := c.text.String()
	c.text = strings.Builder{}
	parts := c.msg.Parts
	switch last := parts[len(parts)-1].(type) {
	case Text:
		last.Text = text
		parts[len(parts)-1] = last
	case Reasoning:
		last.Text = text
		parts[len(parts)-1] = last
	}
}

// JoinReasoning joins a streamed reasoning delta next to the part before it, prev, and reports whether it did.
// A delta continues prev when both come from the same provider, prev is not finished (it has neither a
// Signature nor an Encrypted form yet), their IDs agree (or one is empty) and so do their Index: the texts concatenate, and the
// other fields take the delta's value where prev has none. Otherwise the delta begins a new part.
func JoinReasoning(prev, next Reasoning) (Reasoning, bool) {
	if prev.Provider != next.Provider || prev.Index != next.Index || prev.Signature != "" || prev.Encrypted != "" ||
		(prev.ID != "" && next.ID != "" && prev.ID != next.ID) {
		return prev, false
	}
	prev.Text += next.Text
	if prev.ID == "" {
		prev.ID = next.ID
	}
	prev.Encrypted = next.Encrypted
	prev.Signature = next.Signature
	return prev, true
}
