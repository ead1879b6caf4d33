// Package edges holds toolsets at the edges of what the generator writes.
package edges

import (
	"github.com/typeshift-go/typeshift/internal/emit/testdata/src/shapes/geo"
	"github.com/typeshift-go/typeshift/toolset"
)

// Empty declares no tools yet.
type Empty struct {
	toolset.Toolset
}

func (e *Empty) Declare() {
	e.WithDisplayName("Nothing yet")
}

// Places offers a function of this package and a method, each taking a type from another package.
type Places struct {
	toolset.Toolset
}

func (p *Places) Declare() {
	p.Toolset.AddTool(Origin).ReadOnly()
	p.AddTool(p.Distance).WithName("distance_km")
}

// Origin returns the point at latitude and longitude zero.
func Origin() geo.Point { return geo.Point{} }

// Distance is the rough distance between two points, in kilometres.
func (p *Places) Distance(in Pair) (float64, error) {
	dx, dy := in.A.Lat-in.B.Lat, in.A.Lng-in.B.Lng
	return (dx*dx + dy*dy) * 111, nil
}

// Pair is two points.
type Pair struct {
	A geo.Point `json:"a"`
	B geo.Point `json:"b"`
}
