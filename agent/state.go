package agent

import (
	"github.com/typeshift-go/typeshift/toolset"
)

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
