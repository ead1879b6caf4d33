package owned

// budget is a part: only this file assigns its fields.
//
//typeshift:owned
type budget struct {
	left    int
	retries map[string]int
}

func (b *budget) take() { b.left-- }

func newBudget() budget { return budget{left: 3, retries: map[string]int{}} }
