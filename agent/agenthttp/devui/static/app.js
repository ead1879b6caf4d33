// The dev UI: it talks only to the public agenthttp API, as any client could.
import * as api from './api.js';
import { el, append, clear, listen, pretty, shortID } from './dom.js';
import { Transcript } from './transcript.js';
import { SchemaForm } from './schemaform.js';

const $ = (id) => document.getElementById(id);

const state = {
  agents: [],
  agent: null, // the agent described
  conversation: null, // its id, or null for a new one
  mode: '',
  pending: [],
  running: false,
  watch: null, // {abort: AbortController}
  settings: null, // {form, etag}
  evalCases: false, // the API makes eval cases of conversations
};

const transcript = new Transcript($('transcript'));

// banner shows an error (or a notice) above the page.
function banner(text, kind = 'error') {
  const b = $('banner');
  b.hidden = !text;
  b.className = 'banner ' + kind;
  b.textContent = text || '';
}

function problemText(err) {
  if (!(err instanceof api.ApiError)) return String(err && err.message ? err.message : err);
  const p = err.problem;
  let t = `${err.status} ${p.title || ''}${p.detail ? ': ' + p.detail : ''}`;
  if (p.type) t += ` (${err.type})`;
  return t;
}

// ---- agents and tools

async function loadAgents() {
  const { data } = await api.json('/agents');
  state.agents = data.agents;
  const sel = clear($('agent'));
  for (const a of state.agents) append(sel, el('option', { value: a.name }, a.name));
  const want = localStorage.getItem('typeshift.agent');
  if (want && state.agents.some((a) => a.name === want)) sel.value = want;
  selectAgent(sel.value);
}

function selectAgent(name) {
  state.agent = state.agents.find((a) => a.name === name) || null;
  if (!state.agent) return;
  localStorage.setItem('typeshift.agent', name);
  transcript.answerType = state.agent.answer ? state.agent.answer.name : '';
  renderTools();
  loadSettings();
}

function renderTools() {
  const list = clear($('tools'));
  const ans = state.agent.answer;
  if (ans) {
    // An agent that answers with a typed value: its answer type first, as the tools are shown.
    append(list, el('li', { class: 'tool answer-type', 'data-answer': ans.name },
      el('p', {}, 'Answers with ', el('code', {}, ans.name)),
      el('p', { class: 'description' }, ans.description || ''),
      el('details', {}, el('summary', {}, 'Answer schema'), el('pre', {}, pretty(ans.schema)))));
  }
  for (const t of state.agent.tools) {
    const marks = el('span', { class: 'marks' });
    if (t.read_only) append(marks, el('span', { class: 'badge ok' }, 'read-only'));
    if (t.requires_approval) append(marks, el('span', { class: 'badge warn' }, 'needs approval'));
    append(list, el('li', { class: 'tool', 'data-tool': t.name },
      el('p', {}, el('code', { class: 'tool-name' }, t.name), ' ', marks),
      el('p', { class: 'description' }, t.description || ''),
      el('details', {}, el('summary', {}, 'Input schema'), el('pre', {}, pretty(t.input_schema)))));
  }
}

// ---- conversations

async function loadConversations() {
  const list = clear($('conversation-list'));
  try {
    const { data } = await api.json('/conversations?limit=50');
    for (const c of data.conversations) {
      const b = el('button', { type: 'button', class: 'link', 'data-id': c.id,
        'aria-current': c.id === state.conversation ? 'true' : undefined },
        el('span', { class: 'id' }, shortID(c.id)), ' ',
        el('time', { datetime: c.updated_at, class: 'muted' }, new Date(c.updated_at).toLocaleString()));
      listen(b, 'click', () => go(c.id));
      append(list, el('li', {}, b));
    }
    if (data.conversations.length === 0) append(list, el('li', { class: 'muted empty' }, 'No conversations yet.'));
  } catch (err) {
    append(list, el('li', { class: 'error' }, problemText(err)));
  }
}

// go opens a conversation (or a new one, with null) through the address, so that a reload or a second tab opens
// the same.
function go(id) {
  const hash = id ? '#c=' + id : '';
  if (location.hash === hash || (!id && location.hash === '')) {
    route();
  } else {
    location.hash = hash;
  }
}

function hashConversation() {
  const m = /^#c=([^&]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

async function route() {
  const id = hashConversation();
  if (state.running && id === state.conversation) return; // the run's own new conversation
  await openConversation(id);
}

function setMode(mode) {
  state.mode = mode || '';
  $('mode').textContent = 'mode: ' + (state.mode || 'default');
  $('mode').dataset.mode = state.mode || 'default';
  $('run-mode').value = state.mode === 'plan' ? 'plan' : '';
}

async function openConversation(id) {
  stopWatch();
  state.conversation = id;
  state.pending = [];
  transcript.reset();
  clear($('approvals'));
  clear($('timeline'));
  renderUsage();
  banner('');
  $('chat-heading').textContent = id ? 'Conversation ' + shortID(id) : 'New conversation';
  $('delete-conversation').hidden = !id;
  $('reload-conversation').hidden = !id;
  $('save-eval-case').hidden = !id || !state.evalCases;
  for (const b of document.querySelectorAll('#conversation-list button')) {
    if (b.dataset.id === id) b.setAttribute('aria-current', 'true');
    else b.removeAttribute('aria-current');
  }
  if (!id) {
    setMode('');
    return;
  }
  try {
    const { data } = await api.json('/conversations/' + encodeURIComponent(id));
    if (state.conversation !== id) return;
    setMode(data.mode);
    transcript.entries(data.entries, data.pending);
    state.pending = data.pending;
    renderApprovals();
    renderTimeline(data.entries);
    renderUsage(data.entries);
    $('transcript').scrollTop = $('transcript').scrollHeight;
    if (data.agent && data.agent !== state.agent?.name && state.agents.some((a) => a.name === data.agent)) {
      $('agent').value = data.agent;
      selectAgent(data.agent);
    }
    startWatch(id);
  } catch (err) {
    if (state.conversation !== id) return;
    if (err instanceof api.ApiError && err.status === 404) {
      transcript.note('No such conversation in this tenant.', 'error');
    } else {
      transcript.note(problemText(err), 'error');
    }
  }
}

async function deleteConversation() {
  const id = state.conversation;
  if (!id) return;
  try {
    await api.json('/conversations/' + encodeURIComponent(id), { method: 'DELETE' });
    history.replaceState(null, '', location.pathname + location.search);
    await openConversation(null);
    await loadConversations();
    banner('Deleted conversation ' + shortID(id) + '.', 'notice');
  } catch (err) {
    banner(problemText(err));
  }
}

// saveEvalCase downloads the case the API makes of the open conversation's last turn, as the file the API names.
async function saveEvalCase() {
  const id = state.conversation;
  if (!id) return;
  try {
    const resp = await api.request('/conversations/' + encodeURIComponent(id) + '/eval-case');
    if (!resp.ok) throw await api.fail(resp);
    const disposition = resp.headers.get('Content-Disposition') || '';
    const m = /filename="?([^";]+)"?/.exec(disposition);
    const file = m ? m[1] : 'eval-case.json';
    const url = URL.createObjectURL(new Blob([await resp.text()], { type: 'application/json' }));
    const a = el('a', { href: url, download: file, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    document.body.dataset.savedCase = file;
    banner('Saved the last turn as eval case ' + file + ': put it in your cases directory and edit its expectations.', 'notice');
  } catch (err) {
    banner('Not saved as an eval case: ' + problemText(err));
  }
}

// ---- timeline and usage

function renderTimeline(entries) {
  const list = clear($('timeline'));
  let run = null;
  let steps = null;
  for (const e of entries) {
    if (e.run_id !== run) {
      run = e.run_id;
      steps = el('ol', { class: 'steps' });
      append(list, el('li', { class: 'run' }, el('span', {}, 'Run ' + shortID(run || '?') + ' · ' + new Date(e.time).toLocaleTimeString()), steps));
    }
    let what = e.type.replace('_', ' ');
    if (e.type === 'run_end') {
      const d = e.data || {};
      what += d.pending ? ` (${d.pending} waiting for approval)` : '';
      if (d.mode) what += ` · mode ${d.mode}`;
      if (d.usage) what += ` · ${d.usage.input_tokens} in, ${d.usage.output_tokens} out`;
      if (d.cost) what += ' · ' + costText(d.cost);
      if (d.error) what += ' · failed: ' + d.error;
    }
    if (e.type === 'response' || e.type === 'tool_results') {
      const names = [];
      for (const m of e.data || []) for (const p of m.parts || []) if (p.type === 'tool_call') names.push(p.name);
      if (names.length) what += ': ' + names.join(', ');
    }
    append(steps, el('li', { 'data-type': e.type }, el('span', { class: 'seq' }, '#' + e.seq), ' ', what));
  }
}

// costText shows a cost as the run's end entry stores it: its amount and currency, marked as a lower bound when
// some calls had no price, and "unknown" when none had.
function costText(c) {
  if (!c) return '—';
  const priced = c.currency ? `${Number(c.amount).toFixed(6)} ${c.currency}` : '';
  if (!c.unpriced_calls) return priced;
  return priced ? `≥ ${priced} (${c.unpriced_calls} unpriced)` : 'unknown';
}

// renderUsage shows the tokens and the cost of each stored run, from its end entry, and the conversation's total.
function renderUsage(entries = []) {
  const body = clear($('usage').querySelector('tbody'));
  const foot = clear($('usage').querySelector('tfoot'));
  let n = 0;
  const total = { nanos: 0, currency: '', unpriced_calls: 0, tokens: 0 };
  let costed = false;
  for (const e of entries) {
    if (e.type !== 'run_end' || !e.data || !e.data.usage) continue;
    const u = e.data.usage;
    const c = e.data.cost;
    n++;
    total.tokens += u.total_tokens;
    if (c) {
      costed = true;
      total.nanos += c.nanos || 0;
      total.currency = total.currency || c.currency || '';
      total.unpriced_calls += c.unpriced_calls || 0;
    }
    append(body, el('tr', { class: 'usage-row', 'data-run': e.run_id || '' },
      el('td', { title: e.run_id || '' }, String(n) + ' · ' + shortID(e.run_id || '?')),
      el('td', {}, String(u.input_tokens)), el('td', {}, String(u.output_tokens)), el('td', {}, String(u.total_tokens)),
      el('td', { class: 'cost' }, costText(c))));
  }
  if (n === 0) {
    append(body, el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'No run has ended yet.')));
    return;
  }
  const sum = costed ? costText({ amount: total.nanos / 1e9, currency: total.currency, unpriced_calls: total.unpriced_calls }) : '—';
  append(foot, el('tr', { class: 'usage-total' }, el('th', { scope: 'row' }, 'Conversation'),
    el('td', {}), el('td', {}), el('td', {}, String(total.tokens)), el('td', { class: 'cost' }, sum)));
}

// ---- approvals

function renderApprovals() {
  const box = clear($('approvals'));
  for (const r of state.pending) {
    const plan = r.tool === 'exit_plan_mode';
    const reasonID = 'reason-' + r.id;
    const reason = el('input', { id: reasonID, type: 'text', name: 'reason', autocomplete: 'off' });
    const card = el('section', { class: 'approval' + (plan ? ' plan' : ''), 'data-request': r.id, tabindex: '-1',
      'aria-label': plan ? 'Plan for approval' : 'Approval for ' + r.tool },
      el('h3', {}, plan ? 'The plan, for your approval' : 'Approve ', plan ? '' : el('code', {}, r.tool), plan ? '' : '?'));
    if (plan && r.arguments && typeof r.arguments.plan === 'string') {
      append(card, el('pre', { class: 'plan-text' }, r.arguments.plan));
    } else {
      append(card, el('pre', { class: 'arguments' }, pretty(r.arguments)));
    }
    const approve = el('button', { type: 'button', class: 'approve' }, plan ? 'Approve the plan' : 'Approve');
    const always = el('button', { type: 'button', class: 'always' }, 'Approve always');
    const deny = el('button', { type: 'button', class: 'deny' }, plan ? 'Keep planning' : 'Deny');
    listen(approve, 'click', () => answer(r, { approved: true }));
    listen(always, 'click', () => answer(r, { approved: true, always: 'tool' }));
    listen(deny, 'click', () => answer(r, { approved: false, reason: reason.value || undefined }));
    append(card, el('div', { class: 'row' }, el('label', { for: reasonID }, 'Reason for denying'), reason),
      el('div', { class: 'row' }, approve, plan ? '' : always, deny));
    append(box, card);
  }
  for (const b of box.querySelectorAll('button')) b.disabled = state.running;
}

function answer(r, a) {
  if (state.running) return;
  state.pending = state.pending.filter((p) => p.id !== r.id);
  renderApprovals();
  transcript.answer(r.call_id, a.approved ? 'approved' + (a.always ? ' always' : '') : 'denied' + (a.reason ? ': ' + a.reason : ''));
  run({ approvals: [{ request_id: r.id, ...a }] });
}

// ---- runs

// Live renders the events of a run (its own stream, or the watch stream) into the transcript.
class Live {
  constructor() {
    this.steps = el('ol', { class: 'steps live' });
    this.started = performance.now();
    append($('timeline'), el('li', { class: 'run live' }, el('span', {}, 'Live run · ' + new Date().toLocaleTimeString()), this.steps));
  }

  step(text, type) {
    const ms = Math.round(performance.now() - this.started);
    append(this.steps, el('li', { 'data-type': type }, el('span', { class: 'seq' }, `+${ms} ms`), ' ', text));
  }

  handle(ev) {
    const d = ev.data || {};
    switch (ev.event) {
      case 'text':
        if (!this.inText) this.step('text', 'text');
        this.inText = true;
        this.inReasoning = false;
        transcript.delta(d.delta, state.agent?.name);
        return;
      case 'reasoning':
        if (!this.inReasoning) this.step('reasoning', 'reasoning');
        this.inReasoning = true;
        transcript.reasoningDelta(d.delta, state.agent?.name);
        return;
      case 'steering':
        transcript.takenSteering(d.text);
        this.step('steering taken in', 'steering');
        break;
      case 'answer':
        if (d.final) this.step('answer accepted: ' + (d.type || 'answer'), 'answer');
        else if (!this.inAnswer) this.step('answer', 'answer');
        this.inAnswer = !d.final;
        transcript.typedAnswer(d.type, d.value, d.final);
        this.inText = false;
        this.inReasoning = false;
        return;
      case 'tool_call':
        transcript.call(d.id, d.name, d.arguments);
        this.step('tool call: ' + d.name, 'tool_call');
        break;
      case 'tool_result':
        transcript.result(d.call_id, d.result, d.error);
        this.step('tool result' + (d.error ? ' (error)' : ''), 'tool_result');
        break;
      case 'approval_request':
        transcript.waiting(d.call_id, d.tool, d.arguments);
        this.step('waiting for approval: ' + d.tool, 'approval_request');
        if (!state.pending.some((p) => p.id === d.id)) state.pending.push(d);
        renderApprovals();
        break;
      case 'usage':
        transcript.endText();
        this.step(`model call: ${d.input_tokens} in, ${d.output_tokens} out`, 'usage');
        break;
      case 'mode':
        setMode(d.mode);
        this.step('mode: ' + (d.mode || 'default'), 'mode');
        break;
      case 'end':
        this.step('end' + (d.finish_reason ? ': ' + d.finish_reason : ''), 'end');
        break;
      case 'error':
        transcript.note('The run failed: ' + (d.detail || d.title || 'error'), 'error');
        this.step('error', 'error');
        break;
      case 'reset':
        this.step('reset', 'reset');
        break;
      case 'run_end':
        transcript.endText();
        this.step('run ended' + (d.error ? ': ' + d.error : ''), 'run_end');
        break;
    }
    this.inText = false;
    this.inReasoning = false;
  }
}

function setRunning(on) {
  state.running = on;
  $('run-state').textContent = on ? 'running' : 'idle';
  $('run-state').dataset.state = on ? 'running' : 'idle';
  $('send').disabled = on;
  $('steer').disabled = !on;
  for (const b of document.querySelectorAll('.approval button')) b.disabled = on;
}

async function run(input) {
  if (!state.agent) return;
  stopWatch();
  setRunning(true);
  banner('');
  const id = state.conversation;
  const body = { agent: state.agent.name, ...input };
  const mode = $('run-mode').value;
  if (input.text !== undefined && mode !== state.mode) body.mode = mode;
  let conversation = id;
  let failure = '';
  try {
    const resp = await api.request(id ? `/conversations/${encodeURIComponent(id)}/runs` : '/conversations',
      { method: 'POST', body, accept: 'text/event-stream' });
    if (!resp.ok) throw await api.fail(resp);
    if (!id) {
      const loc = resp.headers.get('Location') || '';
      conversation = loc.slice(loc.lastIndexOf('/') + 1);
      state.conversation = conversation;
      $('chat-heading').textContent = 'Conversation ' + shortID(conversation);
      history.replaceState(null, '', '#c=' + conversation);
      $('delete-conversation').hidden = false;
      $('reload-conversation').hidden = false;
      $('save-eval-case').hidden = !state.evalCases;
    }
    const live = new Live();
    for await (const ev of api.events(resp)) live.handle(ev);
  } catch (err) {
    failure = problemText(err);
    if (err instanceof api.ApiError && err.problem.errors) {
      failure += ': ' + err.problem.errors.map((e) => `${e.pointer || '/'} ${e.detail}`).join('; ');
    }
  } finally {
    setRunning(false);
  }
  if (conversation) {
    await openConversation(conversation);
    await loadConversations();
  }
  if (failure) banner(failure); // after the reload, which clears the banner
  // Keyboard users go on where the run left them: at the first call waiting for an answer, or at the message box
  // (the Send button they pressed was disabled while the run went, which took the focus away).
  const card = document.querySelector('#approvals .approval');
  if (card) card.focus();
  else if (!document.activeElement || document.activeElement === document.body) $('message').focus();
  // For whoever watches the page (its tests): how many runs it has finished.
  document.body.dataset.runs = String(Number(document.body.dataset.runs || 0) + 1);
}

async function send(ev) {
  ev.preventDefault();
  const text = $('message').value.trim();
  if (!text || state.running) return;
  $('message').value = '';
  transcript.user(text);
  await run({ text });
}

async function steer() {
  const text = $('message').value.trim();
  if (!text || !state.running || !state.conversation) return;
  try {
    await api.json(`/conversations/${encodeURIComponent(state.conversation)}/steering`,
      { method: 'POST', body: { agent: state.agent.name, text } });
    $('message').value = '';
    transcript.sentSteering(text);
  } catch (err) {
    banner(problemText(err));
  }
}

// ---- following a conversation: the watch stream, resumed with Last-Event-ID after a dropped connection

function stopWatch() {
  if (state.watch) state.watch.abort.abort();
  state.watch = null;
  $('watch-state').textContent = 'not following';
  $('watch-state').dataset.state = 'off';
}

function startWatch(id) {
  stopWatch();
  const w = { abort: new AbortController(), last: null, reconnects: 0 };
  state.watch = w;
  watchLoop(id, w);
}

function watchState(text, s) {
  $('watch-state').textContent = text;
  $('watch-state').dataset.state = s;
}

async function watchLoop(id, w) {
  let live = null;
  while (!w.abort.signal.aborted) {
    // Events arrive in groups, one per stored update: the last of a group carries its id. A group is shown only
    // when it is whole, so that a connection dropped in the middle of one neither loses nor doubles an event.
    let group = [];
    try {
      const headers = w.last !== null ? { 'Last-Event-ID': w.last } : {};
      const resp = await api.request(`/conversations/${encodeURIComponent(id)}/events`,
        { accept: 'text/event-stream', headers, signal: w.abort.signal });
      if (!resp.ok) {
        const err = await api.fail(resp);
        watchState('not following: ' + err.status, 'off');
        if (resp.status === 404 || resp.status === 401) return;
      } else {
        watchState(w.last !== null ? `following (resumed after event ${w.last})` : 'following', 'on');
        for await (const ev of api.events(resp)) {
          if (ev.event === 'reset') {
            group = [];
            if (state.watch === w && !state.running) await openConversation(id);
            return;
          }
          group.push(ev);
          if (ev.id === null) continue;
          if (!live) live = new Live();
          for (const g of group) live.handle(g);
          if (ev.event === 'run_end') live = null; // the next run gets a timeline entry of its own
          group = [];
          w.last = ev.id;
          document.body.dataset.watchLast = ev.id;
        }
      }
    } catch (err) {
      if (w.abort.signal.aborted) return;
    }
    if (w.abort.signal.aborted) return;
    w.reconnects++;
    document.body.dataset.watchReconnects = String(w.reconnects);
    watchState('reconnecting…', 'retry');
    await new Promise((r) => setTimeout(r, 300));
  }
}

// ---- settings

async function loadSettings() {
  const a = state.agent;
  const form = $('settings');
  const sf = new SchemaForm(form, a.settings_schema || { type: 'object' });
  const status = el('p', { class: 'status', id: 'settings-status', role: 'status' });
  const save = el('button', { type: 'submit', id: 'save-settings' }, 'Save settings');
  const reload = el('button', { type: 'button', id: 'reload-settings' }, 'Reload');
  append(form, el('div', { class: 'row' }, save, reload), status);
  listen(reload, 'click', () => loadSettings());
  state.settings = { form: sf, etag: null, status };
  try {
    const resp = await api.request(`/agents/${encodeURIComponent(a.name)}/settings`);
    if (resp.status === 404) {
      status.textContent = 'This tenant has no settings yet: saving creates them.';
      return;
    }
    if (!resp.ok) throw await api.fail(resp);
    const doc = await resp.json();
    state.settings.etag = resp.headers.get('ETag');
    sf.fill(doc.data);
    status.textContent = `Revision ${doc.revision}, saved ${new Date(doc.updated_at).toLocaleString()}.`;
  } catch (err) {
    status.textContent = problemText(err);
  }
}

async function saveSettings(ev) {
  ev.preventDefault();
  const s = state.settings;
  if (!s) return;
  s.form.clearErrors();
  const headers = s.etag ? { 'If-Match': s.etag } : { 'If-None-Match': '*' };
  try {
    const resp = await api.request(`/agents/${encodeURIComponent(state.agent.name)}/settings`,
      { method: 'PUT', body: s.form.read(), headers });
    if (!resp.ok) throw await api.fail(resp);
    const doc = await resp.json();
    s.etag = resp.headers.get('ETag');
    s.status.className = 'status ok';
    s.status.textContent = `Saved: revision ${doc.revision}.`;
  } catch (err) {
    s.status.className = 'status error';
    if (err instanceof api.ApiError && err.status === 412) {
      s.status.textContent = 'Conflict: these settings were changed elsewhere since you loaded them. Reload to see the current ones; your edit was not saved.';
    } else if (err instanceof api.ApiError && err.type === 'validation') {
      s.status.textContent = 'The server refused the settings: see the marked fields.';
      s.form.showErrors(err.problem.errors || []);
    } else {
      s.status.textContent = problemText(err);
    }
  }
}

// ---- start

async function main() {
  const cfg = await (await fetch('config.json', { cache: 'no-store' })).json();
  api.configure(cfg);
  state.evalCases = cfg.eval_cases === true;
  if (cfg.tenant_header) {
    const q = new URLSearchParams(location.search).get('tenant');
    const t = q || localStorage.getItem('typeshift.tenant') || 'demo';
    localStorage.setItem('typeshift.tenant', t);
    api.setTenant(t);
    $('tenant').value = t;
    $('tenant-label').hidden = false;
    listen($('tenant'), 'change', async () => {
      const v = $('tenant').value.trim();
      if (!v) return;
      localStorage.setItem('typeshift.tenant', v);
      api.setTenant(v);
      await loadAgents();
      await loadConversations();
      go(null);
    });
  }
  listen($('agent'), 'change', () => selectAgent($('agent').value));
  listen($('new-conversation'), 'click', () => go(null));
  listen($('refresh-conversations'), 'click', () => loadConversations());
  listen($('reload-conversation'), 'click', () => openConversation(state.conversation));
  listen($('delete-conversation'), 'click', () => deleteConversation());
  listen($('save-eval-case'), 'click', () => saveEvalCase());
  listen($('composer'), 'submit', send);
  listen($('steer'), 'click', steer);
  listen($('message'), 'keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      if (state.running) steer();
      else $('composer').requestSubmit();
    }
  });
  listen($('settings'), 'submit', saveSettings);
  window.addEventListener('hashchange', route);
  try {
    await loadAgents();
  } catch (err) {
    banner('The API did not answer: ' + problemText(err));
    return;
  }
  await loadConversations();
  await route();
  document.body.dataset.ready = 'true';
}

main();
