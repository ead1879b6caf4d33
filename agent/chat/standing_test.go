package chat_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
)

func TestParseStanding(t *testing.T) {
	tests := []struct {
		in   string
		want chat.Standing
		ok   bool
	}{
		{"", chat.Once, true},
		{"once", chat.Once, true},
		{"tool", chat.ForTool, true},
		{"arguments", chat.ForArguments, true},
		{"Tool", chat.Once, false},
		{"always", chat.Once, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			got, err := chat.ParseStanding(tt.in)
			is.Equal(err == nil, tt.ok)
			is.Equal(got, tt.want)
		})
	}
}
