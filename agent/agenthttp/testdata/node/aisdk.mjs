// Runs one flow through the AI SDK's Chat, the class useChat wraps (here over a plain state instead of React's),
// with the default transport and the automatic resend after approval answers, and prints the chat's state at its
// end as JSON on stdout: its messages, status and error.
//
//	node aisdk.mjs BASE_URL TOKEN FLOW CHAT_ID
//
// FLOW is one of think, answer, triage, approve, deny, auto, plan, steer, resume, error, refused.
import { AbstractChat, DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";

const [base, token, flow, id] = process.argv.slice(2);

// state keeps the chat's messages as React's state would.
class State {
  status = "ready";
  error = undefined;
  messages = [];
  pushMessage = (m) => { this.messages = this.messages.concat(m); };
  popMessage = () => { this.messages = this.messages.slice(0, -1); };
  replaceMessage = (i, m) => { this.messages = [...this.messages.slice(0, i), m, ...this.messages.slice(i + 1)]; };
  snapshot = (v) => structuredClone(v);
}

let finished; // resolves when the chat's next request ends
const errors = [];
class Chat extends AbstractChat {
  constructor(init, messages = []) {
    const state = new State();
    state.messages = messages;
    super({ ...init, state });
  }
}
// newChat makes a chat of the conversation id, holding messages, as a page that loads it would.
function newChat(messages) {
  return new Chat({
    id,
    transport: new DefaultChatTransport({
      api: `${base}/agents/Desk/ui-message-stream`,
      headers: { Authorization: `Bearer ${token}` },
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onError: (e) => errors.push(String(e && e.message ? e.message : e)),
    onFinish: () => finished && finished.resolve(),
  }, messages);
}
let chat = newChat([]);
const extra = {};

function nextFinish() {
  let resolve;
  const p = new Promise((r) => { resolve = r; });
  finished = { resolve };
  return p;
}

async function say(text, body) {
  await chat.sendMessage({ text }, body ? { body } : undefined);
}

// answer answers every approval request the chat holds and waits for the automatic resend to end.
async function answer(approved, reason) {
  const open = chat.messages.flatMap((m) => m.parts).filter((p) => p.state === "approval-requested");
  if (open.length === 0) {
    throw new Error("no approval request to answer");
  }
  const done = nextFinish();
  for (const p of open) {
    await chat.addToolApprovalResponse({ id: p.approval.id, approved, reason });
  }
  await done;
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
    await answer(true);
    break;
  case "deny":
    await say("close 4711");
    await answer(false, "not before Friday");
    break;
  case "auto":
    await say("close 4712");
    break;
  case "plan":
    await say("plan Close 4711 and tell the customer.", { mode: "plan" });
    await answer(true);
    break;
  case "steer":
    await say("wait");
    break;
  case "resume": {
    // A chat sends a message whose run waits; a second chat of the conversation, as a page loaded again while
    // the answer streams, holds the user's message and resumes the stream (the test's server lets the run go on
    // once the resumed stream is open). Its state is what is printed; the first chat must end the same.
    const first = chat;
    const sent = first.sendMessage({ text: "wait" });
    for (;;) { // the run holds the conversation once its input is stored
      const r = await fetch(`${base}/conversations/${encodeURIComponent(id)}`, { headers: { Authorization: `Bearer ${token}` } });
      if (r.ok) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    chat = newChat(structuredClone(first.messages.filter((m) => m.role === "user")));
    await chat.resumeStream();
    await sent;
    extra.first = { messages: first.messages, status: first.status };
    extra.resumed = { messages: chat.messages, status: chat.status };
    // Once the run has ended there is nothing to resume: a third chat is left as it was.
    const third = newChat(structuredClone(chat.messages));
    await third.resumeStream();
    extra.after = { messages: third.messages, status: third.status };
    break;
  }
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
process.stdout.write(JSON.stringify({ chatId: chat.id, messages: chat.messages, status: chat.status,
  error: chat.error ? String(chat.error.message || chat.error) : null, errors, ...extra }));
