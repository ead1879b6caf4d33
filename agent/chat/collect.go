package chat

// Collect reads a stream to its end and assembles the whole response: consecutive text deltas join into one
// Text part, other parts are kept in order.
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
		if u.Progress != nil {
			continue // a report about a running call, not a piece of the response
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
			msg.Parts = append(msg.Parts, p)
		}
	}
	return resp, nil
}
