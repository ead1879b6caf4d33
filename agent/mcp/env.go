package mcp

import (
	"errors"
	"io"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MinimalEnv returns the environment [Connect] gives a subprocess server by default: this process's PATH and
// HOME, followed by extra ("KEY=value" entries, such as the token a server needs), which win over them. Set it
// as the command's Env to pass a server more than the default.
func MinimalEnv(extra ...string) []string {
	env := make([]string, 0, 2+len(extra))
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, extra...)
}

// restrictEnv gives a subprocess server whose command leaves Env nil, which os/exec reads as "inherit
// everything", the minimal environment instead: a server, or a dependency of one, that logs or echoes its
// environment must not see the service's secrets.
func restrictEnv(t sdk.Transport) {
	if ct, ok := t.(*sdk.CommandTransport); ok && ct.Command != nil && ct.Command.Env == nil {
		ct.Command.Env = MinimalEnv()
	}
}

// connectionClosed reports whether err says the session's connection ended: the SDK reports a subprocess that
// exited as the end of its output, and a connection closed under a call as ErrConnectionClosed.
func connectionClosed(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
