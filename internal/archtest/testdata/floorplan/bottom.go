package floorplan

var helper = 1

func bottom(t Top) int { return t.n + helper }
