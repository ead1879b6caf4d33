//go:build tools

package typeshift

import (
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/matryer/is"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "go.opentelemetry.io/otel"
	_ "go.opentelemetry.io/otel/sdk/trace"
	_ "go.opentelemetry.io/otel/sdk/metric"
	_ "golang.org/x/tools/go/analysis"
	_ "golang.org/x/tools/go/packages"
)
