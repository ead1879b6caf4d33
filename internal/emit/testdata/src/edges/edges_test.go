package edges

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/toolset"
)

func TestEmptyToolset(t *testing.T) {
	is := is.New(t)
	e := &Empty{}
	tools, err := e.Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(len(tools), 0)
	is.Equal(e.DisplayName(), "Nothing yet")
	is.Equal(e.SourceName(), "Empty")
}

func TestImportedTypes(t *testing.T) {
	is := is.New(t)
	p := &Places{}
	tools, err := p.Tools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(len(tools), 2)
	is.Equal(tools[0].Name, "origin")
	is.True(tools[0].ReadOnly)
	out, err := tools[0].Call(context.Background(), &toolset.Call{})
	is.NoErr(err)
	is.Equal(string(out), `{"lat":0,"lng":0}`)
	out, err = tools[1].Call(context.Background(), &toolset.Call{Arguments: json.RawMessage(`{"a":{"lat":1,"lng":0},"b":{"lat":0,"lng":0}}`)})
	is.NoErr(err)
	is.Equal(string(out), "111")
	_, err = tools[1].Call(context.Background(), &toolset.Call{Arguments: json.RawMessage(`{"a":{"lat":100,"lng":0},"b":{"lat":0,"lng":0}}`)})
	is.Equal(err.Error(), `"a.lat" must be at most 90, got 100`)
}
