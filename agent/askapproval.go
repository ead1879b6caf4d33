package agent

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// AskApproval leaves an approval request for call, a call of the host's tool whose identity is toolID, open in
// the tenant's conversation, as a run that stopped for approval would: the conversation's next run binds the
// user's answer to it ([Approve], [Reject], or a protocol's answer), runs the call when it is approved, exactly as
// the request shows it, and answers it as rejected otherwise. [Host.LoadConversation] lists it among the pending
// requests. The request's id is bound to the call under Config.ApprovalKey, as every request's is.
//
// It is for requests that arise outside the conversation's runs, such as those of an agent working in the
// background for it. It claims the conversation for one write, so it fails with a *ConversationError wrapping
// storage.ErrConversationBusy while a run holds it; try again when the run has ended. call.ID must be unique in
// the conversation.
func (h *Host) AskApproval(ctx context.Context, settingsID, conversationID string, call chat.ToolCall, toolID string) (chat.ApprovalRequest, error) {
	switch {
	case h.cfg.Store == nil:
		return chat.ApprovalRequest{}, ErrNoStore
	case settingsID == "":
		return chat.ApprovalRequest{}, ErrNoSettingsID
	}
	req := chat.ApprovalRequest{ID: h.requestID(call, toolID), Call: call, ToolID: toolID}
	data, err := chat.MarshalMessages([]chat.Message{{Role: chat.RoleAssistant, AuthorName: h.decl.Name, Parts: []chat.Part{req}}})
	if err != nil {
		return chat.ApprovalRequest{}, fmt.Errorf("agent: approval request: %w", err)
	}
	store := h.cfg.Store
	c, err := store.Claim(ctx, settingsID, conversationID, h.owner(), h.leaseTTL())
	if err != nil {
		return chat.ApprovalRequest{}, &ConversationError{ConversationID: conversationID, Op: "claiming the conversation", Err: err}
	}
	_, err = store.Append(ctx, c, storage.Entry{Type: storage.EntryApprovalRequests, Agent: h.decl.Name, Author: h.decl.Name, Data: data})
	if rerr := store.Release(context.WithoutCancel(ctx), c); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return chat.ApprovalRequest{}, &ConversationError{ConversationID: conversationID, Op: "storing the approval request", Err: err}
	}
	return req, nil
}
