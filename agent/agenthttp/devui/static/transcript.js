// The transcript of a conversation: the user's messages, the model's text, each tool call with its arguments and
// result, steering, notes. The stored entries and the live events of a run go through the same methods.
import { el, append, clear, pretty } from './dom.js';

// Results longer than this are collapsed.
const collapseAt = 400;

export class Transcript {
  constructor(list) {
    this.list = list;
    this.calls = new Map(); // call id -> card
    this.bubble = null; // the assistant text being streamed into
    this.thought = null; // the reasoning text being streamed into
    this.answerCard = null; // the typed answer being filled in
    this.answerType = ''; // the agent's answer type, when it answers with a typed value
    this.steered = []; // steering texts this page sent and showed, not yet taken in by the run
  }

  reset() {
    clear(this.list);
    this.calls.clear();
    this.bubble = null;
    this.thought = null;
    this.answerCard = null;
    this.steered = [];
  }

  item(cls, ...children) {
    const li = el('li', { class: 'item ' + cls }, ...children);
    append(this.list, li);
    li.scrollIntoView({ block: 'nearest' });
    return li;
  }

  user(text) {
    this.bubble = null;
    this.item('user', el('span', { class: 'who' }, 'You'), el('p', { class: 'text' }, text));
  }

  // file shows a file the user gave: its name, media type and size, or its URL; never its content.
  file(p) {
    this.bubble = null;
    const b64 = p.bytes || '';
    const size = Math.floor(b64.length * 3 / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
    const what = p.url ? p.url : `${size} bytes`;
    this.item('file', el('span', { class: 'who' }, 'File'),
      el('p', { class: 'text' }, `${p.name || 'unnamed'} (${p.media_type || 'image'}, ${what})`));
  }

  // reasoning shows the model's reasoning text, folded; its signature is the provider's and is not shown.
  reasoning(text, author) {
    if (!text) return;
    this.bubble = null;
    this.item('reasoning', el('span', { class: 'who' }, (author || 'Assistant') + ' reasoning'),
      el('details', {}, el('summary', {}, 'Reasoning'), el('p', { class: 'text' }, text)));
  }

  // reasoningDelta appends a piece of the model's reasoning, as a run streams it, to the reasoning being
  // streamed, or starts one (folded, as stored reasoning is).
  reasoningDelta(text, author) {
    if (!text) return;
    this.bubble = null;
    if (!this.thought) {
      const p = el('p', { class: 'text' });
      this.item('reasoning', el('span', { class: 'who' }, (author || 'Assistant') + ' reasoning'),
        el('details', {}, el('summary', {}, 'Reasoning'), p));
      this.thought = p;
    }
    this.thought.append(document.createTextNode(text));
  }

  steering(text) {
    this.bubble = null;
    this.thought = null;
    this.item('steering', el('span', { class: 'who' }, 'Steering'), el('p', { class: 'text' }, text));
  }

  // sentSteering shows steering this page sent, at once; the run's steering event for it, when the run takes it
  // in, is then not shown twice.
  sentSteering(text) {
    this.steered.push(text);
    this.steering(text);
  }

  // takenSteering shows steering a run took in, unless this page showed it when it sent it.
  takenSteering(text) {
    const i = this.steered.indexOf(text);
    if (i >= 0) {
      this.steered.splice(i, 1);
      return;
    }
    this.steering(text);
  }

  // typedAnswer shows the run's typed answer as a table of its fields, filled in place while it streams
  // (final false: the fields complete so far), then marked accepted.
  typedAnswer(type, value, final) {
    // The answer's text goes on streaming into its bubble, above the card, which takes its place once accepted.
    this.thought = null;
    if (!this.answerCard || this.answerCard.dataset.final === 'true') {
      this.answerCard = this.item('answer', el('span', { class: 'who' }, 'Answer'),
        el('p', { class: 'answer-type' }), el('div', { class: 'answer-value' }));
    }
    const card = this.answerCard;
    card.dataset.final = final ? 'true' : 'false';
    const head = card.querySelector('.answer-type');
    clear(head);
    append(head, el('code', {}, type || this.answerType || 'answer'), ' ',
      el('span', { class: final ? 'badge' : 'badge warn' }, final ? 'accepted' : 'streaming'));
    const box = card.querySelector('.answer-value');
    clear(box);
    append(box, fieldsTable(value));
    if (final) {
      this.answerCard = null;
      this.bubble = null;
      this.dropAnswerText(card);
    }
  }

  // dropAnswerText removes the streamed text just before an accepted answer's card when it is the answer's JSON,
  // which the card shows.
  dropAnswerText(card) {
    let prev = card.previousElementSibling;
    while (prev && !prev.classList.contains('assistant')) {
      if (!prev.classList.contains('answer')) return;
      prev = prev.previousElementSibling;
    }
    if (!prev) return;
    try {
      const v = JSON.parse(prev.querySelector('.text').textContent);
      if (v && typeof v === 'object' && !Array.isArray(v)) prev.remove();
    } catch {
      // text, not the answer
    }
  }

  // answerText shows an assistant's text as its typed answer when the agent has an answer type and the text is
  // a JSON object (the answer as the model wrote it); it reports whether it did.
  answerText(text) {
    if (!this.answerType) return false;
    let v;
    try {
      v = JSON.parse(text);
    } catch {
      return false;
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
    this.typedAnswer(this.answerType, v, true);
    return true;
  }

  note(text, cls = '') {
    this.bubble = null;
    this.item('note ' + cls, el('p', { class: 'text' }, text));
  }

  // delta appends a piece of the model's text to the text being streamed, or starts one.
  delta(text, author) {
    this.thought = null;
    if (!this.bubble) {
      const p = el('p', { class: 'text' });
      this.item('assistant', el('span', { class: 'who' }, author || 'Assistant'), p);
      this.bubble = p;
    }
    this.bubble.append(document.createTextNode(text));
  }

  // endText ends the text being streamed: the next delta starts a new one.
  endText() {
    this.bubble = null;
    this.thought = null;
  }

  // call shows a tool call with its arguments; a call shown already is left as it is.
  call(id, name, args) {
    this.bubble = null;
    this.thought = null;
    if (this.calls.has(id)) return this.calls.get(id);
    const result = el('div', { class: 'result' }, el('span', { class: 'muted' }, 'running…'));
    const card = this.item('tool', el('span', { class: 'who' }, 'Tool call'),
      el('p', { class: 'tool-name' }, el('code', {}, name), el('span', { class: 'muted' }, ' ' + id)),
      el('details', { class: 'arguments', open: true }, el('summary', {}, 'Arguments'), el('pre', {}, pretty(args))),
      result);
    card.dataset.callId = id;
    card.dataset.tool = name;
    this.calls.set(id, card);
    return card;
  }

  // waiting marks a call as waiting for approval.
  waiting(callID, name, args) {
    const card = this.call(callID, name, args);
    const r = card.querySelector('.result');
    clear(r);
    append(r, el('span', { class: 'badge warn' }, 'waiting for approval'));
  }

  // result shows a call's result, collapsed when it is long, or its error.
  result(callID, result, error) {
    this.bubble = null;
    let card = this.calls.get(callID) || this.call(callID, '(unknown tool)', null);
    const r = card.querySelector('.result');
    clear(r);
    if (error) {
      card.classList.add('failed');
      append(r, el('p', { class: 'error' }, 'Error: ' + error));
      return;
    }
    const text = pretty(result);
    if (text.length > collapseAt) {
      append(r, el('details', { class: 'collapsed' },
        el('summary', {}, `Result (${text.length} characters)`), el('pre', {}, text)));
    } else {
      append(r, el('span', { class: 'label' }, 'Result'), el('pre', {}, text));
    }
  }

  // answer shows the answer to an approval request in the card of its call.
  answer(callID, text) {
    const card = this.calls.get(callID);
    if (!card) return;
    const r = card.querySelector('.result');
    clear(r);
    append(r, el('span', { class: 'badge' }, text));
  }

  // messages renders stored messages.
  messages(msgs) {
    for (const m of msgs || []) {
      for (const p of m.parts || []) {
        switch (p.type) {
          case 'text':
            if (m.role === 'user') this.user(p.text);
            else if (m.role === 'assistant' && !this.answerText(p.text)) this.delta(p.text, m.author_name);
            break;
          case 'tool_call':
            this.call(p.id, p.name, p.arguments);
            break;
          case 'reasoning':
            if (m.role === 'assistant') this.reasoning(p.text, m.author_name);
            break;
          case 'file':
            this.file(p);
            break;
          case 'tool_result':
            this.result(p.call_id, p.result, p.error);
            break;
          case 'approval_request':
            this.waiting(p.call.id, p.call.name, p.call.arguments);
            break;
        }
      }
      this.endText();
    }
  }

  // entries renders a conversation's stored entries.
  entries(list, requests) {
    this.reset();
    const byRequest = new Map(); // approval request id -> call id
    for (const e of list) {
      switch (e.type) {
        case 'input':
          for (const m of e.data || []) {
            for (const p of m.parts || []) {
              if (p.type === 'text') this.user(p.text);
              if (p.type === 'file') this.file(p);
              if (p.type === 'approval_answer') {
                const callID = byRequest.get(p.request_id);
                this.answer(callID, p.approved ? 'approved' + (p.always ? ' always' : '') : 'denied' + (p.reason ? ': ' + p.reason : ''));
              }
            }
          }
          break;
        case 'steering':
          for (const m of e.data || []) for (const p of m.parts || []) if (p.type === 'text') this.steering(p.text);
          break;
        case 'approval_requests':
          for (const m of e.data || []) {
            for (const p of m.parts || []) {
              if (p.type === 'approval_request') byRequest.set(p.id, p.call.id);
            }
          }
          this.messages(e.data);
          break;
        case 'response':
        case 'tool_results':
          this.messages(e.data);
          break;
        case 'summary':
          this.note('Earlier messages were summarised.');
          break;
      }
    }
    for (const r of requests || []) this.waiting(r.call_id, r.tool, r.arguments);
  }
}

// fieldsTable shows an answer's value: an object as a table of its fields, a nested object or list as indented
// JSON in its cell, a scalar as itself.
function fieldsTable(value) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return el('pre', {}, pretty(value));
  const rows = Object.entries(value).map(([k, v]) => el('tr', { 'data-field': k },
    el('th', { scope: 'row' }, k),
    el('td', {}, v !== null && typeof v === 'object' ? el('pre', {}, pretty(v)) : String(v))));
  return el('table', { class: 'answer-fields' }, el('tbody', {}, ...rows));
}
