//go:build !unix

package agent_test

import "time"

// cpuTime is not measured on this system: the added-cpu-ns metric reads 0.
func cpuTime() time.Duration { return 0 }
