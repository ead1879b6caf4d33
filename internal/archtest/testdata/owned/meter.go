package owned

//typeshift:owned
type meter struct{ total int }

// run holds the parts, and is no part itself: anyone may assign its fields.
type run struct {
	b budget
	m *meter
	n int
}
