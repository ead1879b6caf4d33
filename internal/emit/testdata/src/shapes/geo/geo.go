// Package geo holds types the shapes fixture imports from another package.
package geo

// Point is a place on a map.
type Point struct {
	// Lat is the latitude in degrees.
	Lat float64 `json:"lat" jsonschema:"minimum=-90,maximum=90"`
	// Lng is the longitude in degrees.
	Lng float64 `json:"lng" jsonschema:"minimum=-180,maximum=180"`
}
