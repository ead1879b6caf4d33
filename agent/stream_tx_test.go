package agent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/internal/streambench"
)

// TestStreamTransactions checks that a streamed run with nobody watching sends Postgres as many transactions for
// 5,000 text deltas as for 500: its own entries, nothing a token. Each size runs twice, in new conversations, and
// the fewer of the two counts is kept, so that a sweep of expired events that falls in one run does not count.
func TestStreamTransactions(t *testing.T) {
	is := is.New(t)
	pg := streambench.OpenPostgres(t, &streambench.PGOptions{AsyncCommit: true})
	ctx := context.Background()
	counts := map[int]streambench.Counts{}
	for _, deltas := range []int{500, 5000} {
		h := host(streambench.Paced{Tokens: deltas}, agent.Config{Store: pg.Store})
		for i := range 2 {
			before := pg.Counter.Settle(100*time.Millisecond, 5*time.Second)
			var res agent.Result
			for _, err := range h.RunStream(ctx, agent.Text("go on"), agent.SettingsID(tenant), agent.Conversation(fmt.Sprintf("c-%d-%d", deltas, i)), agent.ResultInto(&res)) {
				is.NoErr(err)
			}
			is.Equal(streambench.Stamps(res.Text()), deltas) // the whole answer was streamed
			got := pg.Counter.Settle(100*time.Millisecond, 5*time.Second).Sub(before)
			if c, ok := counts[deltas]; !ok || got.Tx < c.Tx {
				counts[deltas] = got
			}
		}
	}
	t.Logf("transactions of a streamed run: %d for 500 deltas, %d for 5,000", counts[500].Tx, counts[5000].Tx)
	is.Equal(counts[500].Tx, counts[5000].Tx) // the transactions do not grow with the tokens
}
