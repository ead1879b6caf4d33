package agent

import (
	"iter"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// partsOf yields the parts of msgs that are a T, in order: the one way the package picks parts of one type out of
// messages.
func partsOf[T chat.Part](msgs []chat.Message) iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, m := range msgs {
			for _, p := range m.Parts {
				if v, ok := p.(T); ok && !yield(v) {
					return
				}
			}
		}
	}
}

// findTool returns the tool called name among tools.
func findTool(tools []*toolset.Tool, name string) *toolset.Tool {
	for _, t := range tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// findToolID returns the tool whose identity is id among tools.
func findToolID(tools []*toolset.Tool, id string) *toolset.Tool {
	for _, t := range tools {
		if toolID(t) == id {
			return t
		}
	}
	return nil
}

// toolID is a tool's identity; hand-built tools without an ID are known by their name.
func toolID(t *toolset.Tool) string {
	if t.ID != "" {
		return t.ID
	}
	return t.Name
}
