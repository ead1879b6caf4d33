// Runs an agent through AG-UI's HttpAgent: a run that ends with an approval interrupt, then the run that resumes
// it. Prints what the client saw as JSON on stdout.
//
//	node agui.mjs BASE_URL TOKEN
import { HttpAgent } from "@ag-ui/client";

const [base, token] = process.argv.slice(2);
const agent = new HttpAgent({
  url: `${base}/agents/Desk/agui`,
  headers: { Authorization: `Bearer ${token}` },
  threadId: `thread-${Date.now()}`,
  initialMessages: [{ id: "m1", role: "user", content: "close 4711" }],
});

async function run(params) {
  const events = [];
  let failure = null;
  try {
    await agent.runAgent(params, {
      onEvent({ event }) {
        events.push(event);
      },
    });
  } catch (err) {
    failure = String(err && err.message ? err.message : err);
  }
  return { types: events.map((e) => e.type), events, failure };
}

const first = await run({ runId: "run-1" });
const interrupts = agent.pendingInterrupts.map((i) => ({ id: i.id, reason: i.reason, toolCallId: i.toolCallId }));
const second = await run({
  runId: "run-2",
  resume: interrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })),
});
const messages = agent.messages.map((m) => ({ role: m.role, content: m.content, toolCalls: m.toolCalls, toolCallId: m.toolCallId }));
process.stdout.write(JSON.stringify({ threadId: agent.threadId, first, interrupts, second, messages, pendingAfter: agent.pendingInterrupts.length }));
