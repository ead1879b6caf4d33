package chat

// Collect reads a stream to its end and assembles the whole response: consecutive text deltas join into one
// Text part, consecutive reasoning deltas into one Reasoning part (see [JoinReasoning]), other parts are kept
// in order.
func Collect(updates func(yield func(Update, error) bool)) (*Response, error) {
	resp := &Response{}
	var msg *Message
	for u, err := range updates {
		if err != nil {
			return resp, err
		}
		if u.ResponseID != "" {
			resp.ID = u.ResponseID
		}
		if u.Model != "" {
			resp.Model = u.Model
		}
		if u.FinishReason != "" {
			resp.FinishReason = u.FinishReason
		}
		if u.Progress != nil || u.Steering {
			continue // a report about a running call, or input taken in: not a piece of the response
		}
		for _, p := range u.Parts {
			if up, ok := p.(UsagePart); ok {
				resp.Usage = resp.Usage.Add(up.Usage)
				continue
			}
			if msg == nil || (u.Role != "" && u.Role != msg.Role) {
				role := u.Role
				if role == "" {
					role = RoleAssistant
				}
				resp.Messages = append(resp.Messages, Message{Role: role, AuthorName: u.AuthorName})
				msg = &resp.Messages[len(resp.Messages)-1]
			}
			if t, ok := p.(Text); ok && len(msg.Parts) > 0 {
				if last, ok := msg.Parts[len(msg.Parts)-1].(Text); ok {
					msg.Parts[len(msg.Parts)-1] = Text{Text: last.Text + t.Text}
					continue
				}
			}
			if r, ok := p.(Reasoning); ok && len(msg.Parts) > 0 {
				if last, ok := msg.Parts[len(msg.Parts)-1].(Reasoning); ok {
					if joined, ok := JoinReasoning(last, r); ok {
						msg.Parts[len(msg.Parts)-1] = joined
						continue
					}
				}
			}
			msg.Parts = append(msg.Parts, p)
		}
	}
	return resp, nil
}

// JoinReasoning joins a streamed reasoning delta next to the part before it, prev, and reports whether it did.
// A delta continues prev when both come from the same provider, prev is not finished (it has neither a
// Signature nor an Encrypted form yet) and their IDs agree (or one is empty): the texts concatenate, and the
// other fields take the delta's value where prev has none. Otherwise the delta begins a new part.
func JoinReasoning(prev, next Reasoning) (Reasoning, bool) {
	if prev.Provider != next.Provider || prev.Signature != "" || prev.Encrypted != "" ||
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
