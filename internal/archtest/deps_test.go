package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// servers are the packages a production server links to serve agents; testTooling the packages they must not
// link with them: package eval runs cases under go test (it imports testing and the OpenTelemetry SDK), and a
// server asks for it only by setting agenthttp.Options.EvalCase to evalhttp.Case.
var (
	servers     = []string{"./agent/agenthttp", "./agent/agenthttp/devui"}
	testTooling = []string{"testing", "github.com/typeshift-go/typeshift/agent/eval",
		"github.com/typeshift-go/typeshift/agent/eval/evalhttp", "go.opentelemetry.io/otel/sdk/trace"}
)

// TestServersDoNotLinkTestTooling asks go list, whose reading go test's cache does not see: run it with -count=1
// after changing a server's imports.
func TestServersDoNotLinkTestTooling(t *testing.T) {
	for _, pkg := range servers {
		t.Run(strings.TrimPrefix(pkg, "./"), func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", pkg)
			cmd.Dir = "../.."
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", pkg, err)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 10 {
				t.Fatalf("go list -deps %s lists %d packages", pkg, len(deps))
			}
			for _, bad := range testTooling {
				if slices.Contains(deps, bad) {
					t.Errorf("%s links %s, which only a test or a server that asks for eval cases should", pkg, bad)
				}
			}
		})
	}
}
