// Runs an agent through the AI SDK: the default chat transport posts what useChat posts, and readUIMessageStream
// parses the UI message stream into messages. The first message waits for approval; the second request carries
// the approval, as useChat sends it after addToolApprovalResponse. Prints what the client saw as JSON on stdout.
//
//	node aisdk.mjs BASE_URL TOKEN
import { DefaultChatTransport, readUIMessageStream } from "ai";

const [base, token] = process.argv.slice(2);
const transport = new DefaultChatTransport({
  api: `${base}/agents/Desk/ui-message-stream`,
  headers: { Authorization: `Bearer ${token}` },
});
const chatId = `chat-${Date.now()}`;

async function send(messages, message) {
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  let last;
  const errors = [];
  for await (const m of readUIMessageStream({ stream, message, onError: (e) => errors.push(String(e)) })) {
    last = structuredClone(m);
  }
  return { message: last, errors };
}

const user = { id: "u1", role: "user", parts: [{ type: "text", text: "close 4711" }] };
const first = await send([user]);
const answered = structuredClone(first.message);
for (const part of answered.parts) {
  if (part.state === "approval-requested") {
    part.state = "approval-responded";
    part.approval = { ...part.approval, approved: true };
  }
}
const second = await send([user, answered], answered);
process.stdout.write(JSON.stringify({ chatId, first, second }));
