package streambench

import (
	"slices"
	"sync"
	"time"
)

// Sample gathers durations from many goroutines and gives their quantiles.
type Sample struct {
	mu sync.Mutex
	d  []time.Duration
}

// Add records durations.
func (s *Sample) Add(d ...time.Duration) {
	s.mu.Lock()
	s.d = append(s.d, d...)
	s.mu.Unlock()
}

// Len is how many durations were recorded.
func (s *Sample) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.d)
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of the recorded durations, the nearest rank, or 0 when none was.
func (s *Sample) Quantile(q float64) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.d) == 0 {
		return 0
	}
	slices.Sort(s.d)
	i := int(q*float64(len(s.d))+0.5) - 1
	return s.d[min(max(i, 0), len(s.d)-1)]
}

// Ms returns the q-quantile in milliseconds, for b.ReportMetric.
func (s *Sample) Ms(q float64) float64 { return float64(s.Quantile(q).Nanoseconds()) / 1e6 }
