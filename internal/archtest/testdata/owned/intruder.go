package owned

func intrude(r *run) int {
	r.n = 1           // not a part
	r.b = newBudget() // a field of run, which is no part
	r.b.take()        // through the owner's method
	x := r.b.left     // a read
	x++               // a local
	local := budget{} // built whole
	_ = local
	r.b.left = 2             // a violation
	r.b.retries["a"] = 1     // a violation, through an index
	(*r.m).total += x        // a violation, through a pointer
	delete(r.b.retries, "a") // a violation, by delete
	return r.b.retries["b"]
}
