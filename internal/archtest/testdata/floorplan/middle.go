package floorplan

func middle() int { return helper }
