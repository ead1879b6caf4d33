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
  }

  reset() {
    clear(this.list);
    this.calls.clear();
    this.bubble = null;
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

  steering(text) {
    this.bubble = null;
    this.item('steering', el('span', { class: 'who' }, 'Steering'), el('p', { class: 'text' }, text));
  }

  note(text, cls = '') {
    this.bubble = null;
    this.item('note ' + cls, el('p', { class: 'text' }, text));
  }

  // delta appends a piece of the model's text to the text being streamed, or starts one.
  delta(text, author) {
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
  }

  // call shows a tool call with its arguments; a call shown already is left as it is.
  call(id, name, args) {
    this.bubble = null;
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
            else if (m.role === 'assistant') this.delta(p.text, m.author_name);
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
