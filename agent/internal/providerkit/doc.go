// Package providerkit holds what the provider clients (agent/openai, agent/anthropic, agent/gemini) share and
// no user needs: the SDK options that leave retries to the host ([RetriesOff]), merging [chat.Options.Extra] into a request without letting it replace what the library set
// ([Merge], [ExtraFields]), reading Retry-After ([RetryAfter]), strict-mode tool schemas and the restoring of
// their arguments ([Restorers]), a tool result's text ([ResultText]), the mapping between reasoning efforts and
// token budgets ([Budget], [Effort]), the user turn that begins a history that would not begin with one
// ([StartText]) and the rough token estimate of the test servers ([EstimateTokens]).
package providerkit
