// Package streambench holds what the streaming benchmarks and tests of the agent packages share: a model that
// streams at a fixed pace and stamps each delta with the moment it yielded it ([Paced]), a pgx tracer that counts
// the transactions and statements a pool sends ([Counter]), quantiles of durations ([Sample]), and a Postgres
// fixture with durable commits and a plain table for the pgx baseline ([OpenPostgres]).
//
// The figures it produces, and the commands that produce them, are in docs/performance-streaming.md.
package streambench
