// Package telemetry instruments runs with OpenTelemetry, following the GenAI semantic conventions.
//
// [Instrumentation.Client] wraps a [chat.Client] so that every call opens a "chat {model}" span (kind CLIENT)
// and records the metrics gen_ai.client.token.usage and gen_ai.client.operation.duration. The run pipeline opens
// the surrounding spans with [Instrumentation.StartAgent] ("invoke_agent {agent}") and, for each tool call,
// [Instrumentation.StartTool] ("execute_tool {tool}"), both INTERNAL.
//
// Token usage is counted once, by the chat spans and metrics; the agent span carries the run's total as
// attributes but records no metric.
//
// Message content (the messages sent and received, the instructions, tool arguments and results) may hold
// personal data, so it is recorded only when the environment variable
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is "true" or [Options.CaptureContent] is set.
//
// Tracer and meter come from [Options]; by default, the providers registered with go.opentelemetry.io/otel.
package telemetry
