// Serves an agent over A2A 0.3 (JSON-RPC) with the official A2A JavaScript SDK's server (its request handler and
// task store, through its 0.3 compatibility handler), for the tests of the call side. It prints its base URL as
// its first line of stdout and serves until stdin closes.
//
//	node server.mjs TOKEN
//
// Requests without "Authorization: Bearer TOKEN" get HTTP 401. The agent reads the first words of a message:
//
//	stream TEXT  answers "Echo: TEXT" in three artifact chunks, reporting its usage and cost in metadata
//	delete NAME  asks (input-required) whether it may delete NAME; an answer {"approval": {"approved": bool,
//	             "reason"}} as a data part (or the text "yes") makes it answer "Deleted NAME." or "Kept NAME: REASON"
//	slow         works until it is cancelled
//
// GET /_test/cancelled lists the ids of the tasks cancelled, GET /_test/answers what the answered deletes ended with.
import http from "node:http";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  ServerCallContext,
  UnauthenticatedUser,
} from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";

const token = process.argv[2];
const cancelled = [];
const answers = []; // what the answered deletes ended with
const waiting = new Map(); // task id -> resolve of a slow task

const TASK = { WORKING: 2, COMPLETED: 3, CANCELED: 5, INPUT_REQUIRED: 6 };
const text = (value) => ({ content: { $case: "text", value }, mediaType: "", filename: "", metadata: undefined });
const agentMessage = (ctx, parts) => ({
  messageId: `srv-${Math.random().toString(36).slice(2)}`,
  contextId: ctx.contextId,
  taskId: ctx.taskId,
  role: 2,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const status = (state, message) => ({ state, message, timestamp: new Date().toISOString() });

// words reads a message's text, and the approval answer of its data part, if any.
function read(message) {
  let words = "";
  let answer;
  for (const p of message.parts || []) {
    if (p.content?.$case === "text") words += p.content.value;
    if (p.content?.$case === "data" && p.content.value?.approval) answer = p.content.value.approval;
  }
  return { words: words.trim(), answer };
}

const executor = {
  async execute(ctx, bus) {
    const { words, answer } = read(ctx.userMessage);
    const task = ctx.task ?? {
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: status(TASK.WORKING),
      artifacts: [],
      history: [ctx.userMessage],
      metadata: words.startsWith("delete ") ? { name: words.slice(7) } : undefined,
    };
    bus.publish(AgentEvent.task(task));
    const update = (state, message, metadata) =>
      bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: status(state, message), metadata }));

    if (ctx.task) {
      // The answer to the question of a delete.
      const name = ctx.task.metadata?.name ?? "it";
      const approved = answer ? answer.approved === true : /^yes/i.test(words);
      const reason = answer?.reason || words;
      answers.push(approved ? `Deleted ${name}.` : `Kept ${name}: ${reason}`);
      update(TASK.COMPLETED, agentMessage(ctx, [text(answers[answers.length - 1])]));
      bus.finished();
      return;
    }
    if (words.startsWith("stream ")) {
      const reply = `Echo: ${words.slice(7)}`;
      const pieces = [reply.slice(0, 4), reply.slice(4, 9), reply.slice(9)];
      for (const [i, piece] of pieces.entries()) {
        bus.publish(AgentEvent.artifactUpdate({
          taskId: ctx.taskId, contextId: ctx.contextId, append: i > 0, lastChunk: i === pieces.length - 1, metadata: undefined,
          artifact: { artifactId: "answer", name: "answer", description: "", parts: [text(piece)], metadata: undefined, extensions: [] },
        }));
        await new Promise((r) => setTimeout(r, 20));
      }
      update(TASK.COMPLETED, undefined, { usage: { inputTokens: 11, outputTokens: 5 }, cost: { amount: 0.002, currency: "USD" } });
      bus.finished();
      return;
    }
    if (words.startsWith("delete ")) {
      update(TASK.INPUT_REQUIRED, agentMessage(ctx, [text(`May I delete ${words.slice(7)}?`)]));
      bus.finished();
      return;
    }
    if (words.startsWith("slow")) {
      update(TASK.WORKING);
      await new Promise((resolve) => {
        waiting.set(ctx.taskId, resolve);
        setTimeout(resolve, 30000);
      });
      return;
    }
    update(TASK.COMPLETED, agentMessage(ctx, [text(`You said: ${words}`)]));
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    cancelled.push(taskId);
    const t = await store.load(taskId);
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: t?.contextId ?? "", status: status(TASK.CANCELED), metadata: undefined }));
    bus.finished();
    waiting.get(taskId)?.();
  },
};

const card = (url) => ({
  name: "Helper",
  description: "Echoes, deletes with permission, and works slowly.",
  version: "1",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "" }],
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [
    { id: "echo", name: "echo", description: "Echoes a text", tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
    { id: "delete", name: "delete", description: "Deletes a file, asking first", tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
  ],
  signatures: [],
});

// legacyCard is the same card as A2A 0.3 has it, which the Go client reads.
const legacyCard = (url) => ({
  name: "Helper",
  description: "Echoes, deletes with permission, and works slowly.",
  url,
  version: "1",
  protocolVersion: "0.3.0",
  preferredTransport: "JSONRPC",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [
    { id: "echo", name: "echo", description: "Echoes a text", tags: [] },
    { id: "delete", name: "delete", description: "Deletes a file, asking first", tags: [] },
  ],
});

const store = new InMemoryTaskStore();
let rpc;
let base;

const server = http.createServer(async (req, res) => {
  if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(legacyCard(`${base}/`)));
    return;
  }
  if (req.method === "GET" && req.url === "/_test/cancelled") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(cancelled));
    return;
  }
  if (req.method === "GET" && req.url === "/_test/answers") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(answers));
    return;
  }
  if (req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401, { "Content-Type": "application/json" });
    res.end(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not authenticated"}}`);
    return;
  }
  let body = "";
  for await (const chunk of req) body += chunk;
  const context = new ServerCallContext({ user: new UnauthenticatedUser(), requestedVersion: "0.3" });
  let out;
  try {
    out = await rpc.handle(body, context);
  } catch (err) {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: String(err?.message ?? err) } }));
    return;
  }
  if (out && typeof out[Symbol.asyncIterator] === "function") {
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    try {
      for await (const ev of out) {
        res.write(`data: ${JSON.stringify(ev)}\n\n`);
      }
    } catch (err) {
      console.error(err);
    }
    res.end();
    return;
  }
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(out));
});

server.listen(0, "127.0.0.1", () => {
  base = `http://127.0.0.1:${server.address().port}`;
  rpc = new LegacyJsonRpcTransportHandler(new DefaultRequestHandler(card(`${base}/`), store, executor));
  console.log(base);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
