package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The Node project in testdata/npm pins the reference MCP inspector CLI and the reference servers. CI installs
// it with `npm ci`; the tests that use it skip without it, and fail under CI=true.
const npmDir = "testdata/npm"

// npmBin returns the path of a program the Node project installs, or skips (fails under CI) when node or the
// installed project is missing.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	how := "install Node.js 20 or later and run `npm ci` in agent/mcp/" + npmDir
	if _, err := exec.LookPath("node"); err != nil {
		missing(t, "node is not on PATH: "+how)
	}
	bin, err := filepath.Abs(filepath.Join(npmDir, "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		missing(t, name+" is not installed: "+how)
	}
	return bin
}

func missing(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// inspector runs the reference inspector's CLI with args and decodes the JSON it prints.
func inspector(t *testing.T, env []string, args ...string) map[string]any {
	t.Helper()
	bin := npmBin(t, "mcp-inspector-cli")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--cli"}, args...)...)
	// The CLI finds its own package.json relative to the working directory: run it one level inside the project.
	cmd.Dir = filepath.Join(npmDir, "node_modules")
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("inspector %v printed no JSON object: %v\n%s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	return out
}
