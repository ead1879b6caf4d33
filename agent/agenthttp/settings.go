package agenthttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/typeshift-go/typeshift/storage"
)

// settingsJSON is a tenant's settings document of one agent.
type settingsJSON struct {
	Kind          string          `json:"kind"`
	SchemaVersion int             `json:"schema_version"`
	Revision      int64           `json:"revision"`
	Data          json.RawMessage `json:"data"`
	UpdatedAt     time.Time       `json:"updated_at"`
}

func etag(revision int64) string { return `"` + strconv.FormatInt(revision, 10) + `"` }

// parseETag reads an If-Match value of one ETag this API wrote; ok is false for anything else.
func parseETag(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if len(v) < 3 || v[0] != '"' || v[len(v)-1] != '"' {
		return 0, false
	}
	n, err := strconv.ParseInt(v[1:len(v)-1], 10, 64)
	return n, err == nil && n > 0
}

func writeSettings(w http.ResponseWriter, status int, doc storage.Document) error {
	w.Header().Set("ETag", etag(doc.Revision))
	return writeJSON(w, status, settingsJSON{Kind: doc.Kind, SchemaVersion: doc.SchemaVersion, Revision: doc.Revision,
		Data: doc.Data, UpdatedAt: doc.UpdatedAt})
}

func (h *Handler) getSettings(w http.ResponseWriter, r *http.Request) error {
	host, err := h.host(r.PathValue("agent"))
	if err != nil {
		return err
	}
	doc, err := h.opts.Store.GetSettings(r.Context(), principal(r).SettingsID, host.Declaration().SettingsKind)
	if err != nil {
		return err
	}
	return writeSettings(w, http.StatusOK, doc)
}

// putSettings writes the tenant's settings of an agent: the body is the settings document, validated against the
// agent's settings schema. If-Match with the ETag read replaces it; If-None-Match: * creates it.
func (h *Handler) putSettings(w http.ResponseWriter, r *http.Request) error {
	host, err := h.host(r.PathValue("agent"))
	if err != nil {
		return err
	}
	var expect int64
	switch im, inm := r.Header.Get("If-Match"), r.Header.Get("If-None-Match"); {
	case im != "":
		rev, ok := parseETag(im)
		if !ok {
			return errStale // an ETag this API never wrote matches no revision
		}
		expect = rev
	case strings.TrimSpace(inm) == "*":
		expect = 0
	default:
		return errIfMatchRequired
	}
	data, err := readBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		return err
	}
	var probe any
	if err := decodeStrict(data, &probe); err != nil {
		return err
	}
	p := principal(r)
	var stored []byte
	if expect != 0 {
		// The document the write replaces, read for the operator's settings: the write is refused unless it
		// still has the revision read here.
		old, err := h.opts.Store.GetSettings(r.Context(), p.SettingsID, host.Declaration().SettingsKind)
		if err != nil || old.Revision != expect {
			return errStale
		}
		stored = old.Data
	}
	if err := h.checkOperatorSettings(r, host.Declaration().SettingsKind, stored, data); err != nil {
		return err
	}
	schema, err := host.SettingsSchema(r.Context(), p.SettingsID)
	if err != nil {
		return err
	}
	if err := validateAgainst(schema, data); err != nil {
		return err
	}
	d := host.Declaration()
	doc, err := h.opts.Store.PutSettings(r.Context(), storage.Document{SettingsID: p.SettingsID, Kind: d.SettingsKind,
		SchemaVersion: d.SettingsVersion, Data: data}, expect)
	if err != nil {
		if errors.Is(err, storage.ErrConflict) {
			return errStale
		}
		return err
	}
	status := http.StatusOK
	if expect == 0 {
		status = http.StatusCreated
	}
	return writeSettings(w, status, doc)
}

func (h *Handler) deleteSettings(w http.ResponseWriter, r *http.Request) error {
	host, err := h.host(r.PathValue("agent"))
	if err != nil {
		return err
	}
	p, kind := principal(r), host.Declaration().SettingsKind
	im := r.Header.Get("If-Match")
	if im == "" {
		return errIfMatchRequired
	}
	doc, err := h.opts.Store.GetSettings(r.Context(), p.SettingsID, kind)
	if err != nil {
		return err
	}
	if rev, ok := parseETag(im); !ok || rev != doc.Revision {
		return errStale
	}
	if err := h.checkOperatorSettings(r, kind, doc.Data, nil); err != nil {
		return err
	}
	if err := h.opts.Store.DeleteSettings(r.Context(), p.SettingsID, kind); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// validateAgainst validates a JSON document against a JSON Schema, reporting each fault with the JSON pointer of
// its place.
func validateAgainst(schema json.RawMessage, data []byte) error {
	sdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("reading the settings schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("settings.schema.json", sdoc); err != nil {
		return fmt.Errorf("adding the settings schema: %w", err)
	}
	sch, err := c.Compile("settings.schema.json")
	if err != nil {
		return fmt.Errorf("compiling the settings schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return badRequest("the body is not JSON: %v", err)
	}
	err = sch.Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var faults validationError
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if u.Error != nil {
			faults = append(faults, FieldError{Pointer: u.InstanceLocation, Detail: u.Error.String()})
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.BasicOutput())
	if len(faults) == 0 {
		faults = append(faults, FieldError{Pointer: "", Detail: ve.Error()})
	}
	return faults
}
