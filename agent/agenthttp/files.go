package agenthttp

import (
	"encoding/base64"
	"mime"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// fileJSON is a file in the native API's input: its bytes in standard base64 with their media type, or an https
// URL (or a provider's file reference) the model's provider fetches. The server never fetches a URL itself.
type fileJSON struct {
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
	Name      string `json:"name,omitempty"`
}

// maxFiles bounds the files of one input; the body's size bounds their bytes.
const maxFiles = 32

// fileOf checks one file of a client's input, at the JSON pointer at. data is base64; url is an https URL, a
// data URL (its bytes are decoded, as when data was given) or, with a provider's own scheme, a file reference.
func fileOf(at, mediaType, data, url, name string) (chat.File, error) {
	f := chat.File{MediaType: mediaType, Name: name}
	if strings.HasPrefix(url, "data:") {
		mt, b64, ok := parseDataURL(url)
		if !ok {
			return f, &fieldError{Pointer: at + "/url", Detail: "a data URL must be data:<media type>;base64,<data>"}
		}
		if f.MediaType == "" {
			f.MediaType = mt
		}
		data, url = b64, ""
	}
	switch {
	case data != "" && url != "":
		return f, &fieldError{Pointer: at, Detail: "give the file's data or its URL, not both"}
	case data != "":
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return f, &fieldError{Pointer: at + "/data", Detail: "must be standard base64"}
		}
		if len(b) == 0 {
			return f, &fieldError{Pointer: at + "/data", Detail: "the file is empty"}
		}
		if f.MediaType == "" {
			return f, &fieldError{Pointer: at + "/media_type", Detail: "required with the file's data"}
		}
		f.Data = b
	case url != "":
		if strings.HasPrefix(url, "http:") || strings.HasPrefix(url, "file:") || strings.ContainsAny(url, " \t\r\n") {
			return f, &fieldError{Pointer: at + "/url", Detail: "must be an https URL or a provider's file reference"}
		}
		f.URL = url
	default:
		return f, &fieldError{Pointer: at, Detail: "give the file's data or its URL"}
	}
	if f.MediaType != "" {
		if mt, _, err := mime.ParseMediaType(f.MediaType); err != nil || !strings.Contains(mt, "/") {
			return f, &fieldError{Pointer: at + "/media_type", Detail: "not a media type"}
		}
	}
	return f, nil
}

// parseDataURL splits data:<media type>;base64,<data>.
func parseDataURL(u string) (mediaType, data string, ok bool) {
	head, data, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok {
		return "", "", false
	}
	mediaType, ok = strings.CutSuffix(head, ";base64")
	return mediaType, data, ok
}

// filesOf checks the native API's files.
func filesOf(list []fileJSON) ([]chat.File, error) {
	if len(list) > maxFiles {
		return nil, &fieldError{Pointer: "/files", Detail: "at most " + itoa(maxFiles) + " files"}
	}
	out := make([]chat.File, 0, len(list))
	for i, f := range list {
		file, err := fileOf("/files/"+itoa(i), f.MediaType, f.Data, f.URL, f.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, file)
	}
	return out, nil
}
