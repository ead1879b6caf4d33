// Drives one flow through the official A2A JavaScript client against the served agent and prints, as the last
// line of stdout, the client's state at its end as JSON: the tasks it holds (each as the events and answers it
// received built it up), and the errors it met.
//
//	node a2a.mjs BASE_URL TOKEN FLOW [ARG]
//
// BASE_URL is where the handler is mounted (its card is at BASE_URL/.well-known/agent-card.json). FLOW is one of
// card, send, stream, approve, deny, resubscribe, cancel, get (ARG: a task id), forged (ARG: a request id of
// another task).
//
// The client speaks A2A 1.0; the server speaks 0.3, which the client reaches through its compatibility layer.
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";

const [base, token, flow, arg] = process.argv.slice(2);
const legacyCompat = { enabled: true };
const authed = (url, init = {}) =>
  fetch(url, { ...init, headers: { ...(init.headers || {}), Authorization: `Bearer ${token}` } });
const resolver = new DefaultAgentCardResolver({ legacyCompat });
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ legacyCompat, fetchImpl: authed })],
    cardResolver: resolver,
  }),
);
const client = await factory.createFromUrl(`${base}/`, ".well-known/agent-card.json");

// The task states of the 1.0 client, by the 0.3 names the server sends.
const states = ["unknown", "submitted", "working", "completed", "failed", "canceled", "input-required", "rejected", "auth-required"];
const tasks = {};
const errors = [];
// failed records an error with the protocol's data, which says why.
const failed = (err) => errors.push(String(err?.message ?? err) + (err?.data ? ` ${JSON.stringify(err.data)}` : ""));
const out = { tasks, errors };

const text = (value) => ({ content: { $case: "text", value }, mediaType: "", filename: "" });
const data = (value) => ({ content: { $case: "data", value }, mediaType: "", filename: "" });
let n = 0;
const message = (parts, extra = {}) => ({ messageId: `js-${++n}`, role: 1, parts, contextId: "", taskId: "", ...extra });

// plain turns the client's parts into what the Go test compares: text, data and files.
function plain(parts) {
  return (parts || []).map((p) => {
    switch (p.content?.$case) {
      case "text":
        return { text: p.content.value };
      case "data":
        return { data: p.content.value };
      case "raw":
        return { file: { mediaType: p.mediaType, bytes: Buffer.from(p.content.value).toString("base64") } };
      case "url":
        return { file: { mediaType: p.mediaType, url: p.content.value } };
    }
    return { unknown: p };
  });
}

function status(s) {
  return { state: states[s.state] ?? String(s.state), message: s.message ? plain(s.message.parts) : null };
}

// keep records a whole task as the client received it.
function keep(t) {
  tasks[t.id] = {
    id: t.id,
    contextId: t.contextId,
    status: status(t.status),
    history: (t.history || []).map((m) => ({ role: m.role === 1 ? "user" : "agent", parts: plain(m.parts) })),
    artifacts: Object.fromEntries((t.artifacts || []).map((a) => [a.artifactId, plain(a.parts)])),
    events: tasks[t.id]?.events ?? [], // a task received again (a resubscription) keeps what came before
  };
  return tasks[t.id];
}

// apply builds a task up from a stream's event, as a client following the stream does.
function apply(ev) {
  const { $case, value } = ev.payload;
  switch ($case) {
    case "task":
      keep(value).events.push("task");
      return value;
    case "statusUpdate": {
      const t = tasks[value.taskId];
      t.status = status(value.status);
      t.events.push(`status:${t.status.state}`);
      return value;
    }
    case "artifactUpdate": {
      const t = tasks[value.taskId];
      const id = value.artifact.artifactId;
      const parts = plain(value.artifact.parts);
      if (value.append && t.artifacts[id]) {
        const last = t.artifacts[id][t.artifacts[id].length - 1];
        if (last?.text !== undefined && parts.length === 1 && parts[0].text !== undefined) {
          last.text += parts[0].text;
        } else {
          t.artifacts[id].push(...parts);
        }
      } else {
        t.artifacts[id] = parts;
      }
      t.events.push(value.lastChunk ? "artifact:last" : value.append ? "artifact:append" : "artifact");
      return value;
    }
    case "message":
      return value;
  }
}

async function stream(msg, onEvent) {
  try {
    for await (const ev of client.sendMessageStream({ message: msg })) {
      const v = apply(ev);
      if (onEvent && (await onEvent(ev, v)) === false) {
        break;
      }
    }
  } catch (err) {
    failed(err);
  }
}

async function send(msg) {
  try {
    const res = await client.sendMessage({ message: msg });
    if (res.status) {
      return keep(res);
    }
    errors.push("not a task");
  } catch (err) {
    failed(err);
  }
  return null;
}

// answer sends approval answers for the requests the task waits for.
async function answer(task, approved, extra = {}) {
  const parts = task.status.message
    .filter((p) => p.data?.approvalRequest)
    .map((p) => data({ approval: { requestId: p.data.approvalRequest.requestId, approved, ...extra } }));
  return send(message(parts, { taskId: task.id, contextId: task.contextId }));
}

function firstTask() {
  return Object.values(tasks)[0];
}

switch (flow) {
  case "card": {
    const card = await client.getAgentCard();
    out.card = {
      name: card.name,
      streaming: card.capabilities?.streaming ?? false,
      skills: card.skills.map((s) => s.name).sort(),
      securitySchemes: Object.keys(card.securitySchemes || {}),
      protocolVersion: client.protocolVersion,
    };
    break;
  }
  case "send":
    await send(message([text("hello")]));
    break;
  case "stream":
    await stream(message([text("hello there")]));
    break;
  case "approve":
  case "deny": {
    await stream(message([text("close 4711")]));
    const t = firstTask();
    if (t?.status.state === "input-required") {
      await answer(t, flow === "approve", flow === "deny" ? { reason: "not before Friday" } : {});
    }
    break;
  }
  case "resubscribe": {
    // The first connection is cut as soon as the task is known; a second one follows the run to its end.
    const controller = new AbortController();
    let id;
    try {
      for await (const ev of client.sendMessageStream({ message: message([text("wait for it")]) }, { signal: controller.signal })) {
        apply(ev);
        id = ev.payload.value.id ?? ev.payload.value.taskId;
        controller.abort();
        break;
      }
    } catch (err) {
      if (err?.name !== "AbortError") failed(err);
    }
    tasks[id].events.push("cut");
    try {
      let told = false;
      for await (const ev of client.resubscribeTask({ id })) {
        apply(ev);
        if (!told) {
          console.log("resubscribed"); // the test lets the model answer now
          told = true;
        }
      }
    } catch (err) {
      failed(err);
    }
    break;
  }
  case "cancel":
    // The task is cancelled once the test says its run is under way (a line on stdin).
    await stream(message([text("wait to be cancelled")]), async (ev) => {
      if (ev.payload.$case !== "task") return true;
      await new Promise((resolve) => process.stdin.once("data", resolve));
      process.stdin.pause();
      try {
        const t = await client.cancelTask({ id: ev.payload.value.id });
        out.cancelled = status(t.status);
      } catch (err) {
        failed(err);
      }
      return true;
    });
    break;
  case "get":
    try {
      keep(await client.getTask({ id: arg }));
    } catch (err) {
      failed(err);
    }
    break;
  case "forged": {
    // An answer naming another task's request, sent to a task of this client's own.
    await stream(message([text("close 4712")]));
    const t = firstTask();
    await send(message([data({ approval: { requestId: arg, approved: true } })], { taskId: t.id, contextId: t.contextId }));
    break;
  }
  default:
    errors.push(`unknown flow ${flow}`);
}
console.log(JSON.stringify(out));
