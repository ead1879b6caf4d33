package toolset_test

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/toolset"
)

func ExampleCombined_ToolsHidden() {
	isAdmin := func(ctx context.Context, run *toolset.Run, t *toolset.Tool) (bool, error) {
		return ctx.Value(roleKeyType{}) == "admin", nil
	}
	all := toolset.Combine(weather, toolset.Prefix(toolset.Filter(tickets, isAdmin), "db"))

	for _, role := range []string{"admin", "user"} {
		ctx := context.WithValue(context.Background(), roleKeyType{}, role)
		tools, hidden, err := all.ToolsHidden(ctx, &toolset.Run{})
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		fmt.Printf("%s: offered %v, hidden %v\n", role, names, hidden)
	}
	// Output:
	// admin: offered [get_temp get_conditions db_query db_close_ticket], hidden []
	// user: offered [get_temp get_conditions], hidden [db_query db_close_ticket]
}
