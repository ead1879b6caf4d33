// Runs one flow through AG-UI's HttpAgent and prints the client's state at its end as JSON on stdout: its
// messages, its state (the server's STATE_SNAPSHOT), the interrupts it holds and the failures of its runs.
//
//	node agui.mjs BASE_URL TOKEN FLOW THREAD_ID
//
// FLOW is one of think, answer, triage, approve, deny, always, plan, steer, error, refused.
import { HttpAgent } from "@ag-ui/client";

const [base, token, flow, id] = process.argv.slice(2);
const agent = new HttpAgent({
  url: `${base}/agents/Desk/agui`,
  headers: { Authorization: `Bearer ${token}` },
  threadId: id,
});
const failures = [];
let runs = 0;

// say adds the user's message and runs the agent on it.
async function say(text, forwardedProps) {
  agent.addMessage({ id: `u${runs}`, role: "user", content: text });
  await run({ forwardedProps });
}

// answer resumes the interrupts the client holds with payload.
async function answer(payload) {
  const resume = agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload }));
  if (resume.length === 0) {
    throw new Error("no interrupt to answer");
  }
  await run({ resume });
}

async function run(params) {
  runs++;
  try {
    await agent.runAgent({ runId: `run-${runs}`, ...params });
  } catch (err) {
    failures.push(String(err && err.message ? err.message : err));
  }
}

switch (flow) {
  case "think":
    await say("think about the printer");
    break;
  case "answer":
    await say("hello there");
    break;
  case "triage": // an agent that answers with a typed value
    await say("triage 4711");
    break;
  case "approve":
    await say("close 4711");
    await answer({ approved: true });
    break;
  case "deny":
    await say("close 4711");
    await answer({ approved: false, reason: "not before Friday" });
    break;
  case "always":
    // The standing approval lets the next call run within its run, after the request went out.
    await say("close 4711");
    await answer({ approved: true, always: "tool" });
    await say("close 4714");
    break;
  case "auto":
    await say("close 4712");
    break;
  case "plan":
    await say("plan Close 4711 and tell the customer.", { mode: "plan" });
    await answer({ approved: true });
    break;
  case "steer":
    await say("wait");
    break;
  case "error":
    await say("get 99999");
    break;
  case "refused":
    await say("hello there");
    await say("once more", { mode: "no-such-mode" });
    break;
  default:
    throw new Error(`unknown flow ${flow}`);
}
process.stdout.write(JSON.stringify({
  threadId: agent.threadId,
  messages: agent.messages,
  state: agent.state,
  interrupts: agent.pendingInterrupts.map((i) => ({ id: i.id, reason: i.reason, toolCallId: i.toolCallId })),
  failures,
}));
