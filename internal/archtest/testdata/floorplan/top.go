// Package floorplan is a package of three files for the floor plan's test: top uses middle and bottom; bottom uses
// top's name, an arrow back up.
package floorplan

// Top is used by bottom.go, below it.
type Top struct{ n int }

func run() int { return middle() + bottom(Top{}) }
