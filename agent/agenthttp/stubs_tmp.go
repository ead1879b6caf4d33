package agenthttp

import "net/http"

func (h *Handler) agui(w http.ResponseWriter, r *http.Request) error            { return errRoute }
func (h *Handler) uiMessageStream(w http.ResponseWriter, r *http.Request) error { return errRoute }
func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request) error         { return errRoute }
