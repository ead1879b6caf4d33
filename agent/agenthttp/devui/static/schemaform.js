// A form generated from a JSON Schema: one field per property (checkbox for booleans, number inputs with their
// bounds, a select for enums, text otherwise; a fieldset for an object), with its description and default. Each
// field knows its JSON pointer, so that the server's validation errors are shown where they belong.
import { el, append, clear } from './dom.js';

let counter = 0;

// typeOf returns a schema's type, leaving out "null" from a list of types.
function typeOf(s) {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null') || 'string';
  if (s.type) return s.type;
  if (s.enum) return 'string';
  if (s.properties) return 'object';
  return 'string';
}

function escapePointer(key) {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

// SchemaForm renders schema into form and reads the document back.
export class SchemaForm {
  constructor(form, schema) {
    this.form = form;
    this.schema = schema;
    this.fields = new Map(); // pointer -> {input, type, error}
    clear(form);
    this.errorsAt = el('p', { class: 'field-error', id: 'settings-error-root', hidden: true });
    append(form, this.errorsAt);
    this.root = this.object(schema, '', 0);
    append(form, this.root);
  }

  object(schema, pointer, depth) {
    const box = el('div', { class: depth === 0 ? 'fields' : 'fields nested' });
    for (const [key, sub] of Object.entries(schema.properties || {})) {
      const at = pointer + '/' + escapePointer(key);
      const type = typeOf(sub);
      if (type === 'object') {
        const fs = el('fieldset', { 'data-pointer': at }, el('legend', {}, sub.title || key));
        if (sub.description) append(fs, el('p', { class: 'hint' }, sub.description));
        const err = el('p', { class: 'field-error', hidden: true, id: 'err-' + ++counter });
        append(fs, err, this.object(sub, at, depth + 1));
        this.fields.set(at, { type: 'object', error: err, node: fs });
        append(box, fs);
        continue;
      }
      append(box, this.field(key, sub, at, type));
    }
    return box;
  }

  field(key, s, pointer, type) {
    const id = 'field-' + ++counter;
    const hintID = id + '-hint';
    const errID = id + '-error';
    let input;
    const hints = [];
    if (s.description) hints.push(s.description);
    if (s.default !== undefined) hints.push('Default: ' + JSON.stringify(s.default) + '.');
    if (type === 'boolean') {
      input = el('select', { id, name: pointer },
        el('option', { value: '' }, s.default !== undefined ? `(default: ${s.default})` : '(not set)'),
        el('option', { value: 'true' }, 'true'),
        el('option', { value: 'false' }, 'false'));
    } else if (s.enum) {
      input = el('select', { id, name: pointer }, el('option', { value: '' }, '(not set)'));
      for (const v of s.enum) {
        if (v === null) continue;
        append(input, el('option', { value: JSON.stringify(v) }, String(v)));
      }
    } else if (type === 'integer' || type === 'number') {
      input = el('input', { id, name: pointer, type: 'number', inputmode: 'numeric',
        step: type === 'integer' ? '1' : 'any', min: s.minimum, max: s.maximum,
        placeholder: s.default !== undefined ? String(s.default) : undefined });
      const lo = s.minimum ?? s.exclusiveMinimum;
      const hi = s.maximum ?? s.exclusiveMaximum;
      if (lo !== undefined || hi !== undefined) {
        hints.push(`${type === 'integer' ? 'A whole number' : 'A number'}${lo !== undefined ? ' from ' + lo : ''}${hi !== undefined ? ' up to ' + hi : ''}.`);
      }
    } else {
      input = el('input', { id, name: pointer, type: 'text', minlength: s.minLength, maxlength: s.maxLength,
        placeholder: s.default !== undefined ? String(s.default) : undefined });
    }
    input.setAttribute('aria-describedby', hintID + ' ' + errID);
    input.dataset.pointer = pointer;
    input.dataset.type = type;
    const err = el('p', { class: 'field-error', id: errID, hidden: true });
    this.fields.set(pointer, { type, input, error: err });
    return el('div', { class: 'field', 'data-pointer': pointer },
      el('label', { for: id }, s.title || key, el('span', { class: 'type' }, ' ' + type)),
      input,
      el('p', { class: 'hint', id: hintID }, hints.join(' ')),
      err);
  }

  // fill sets the fields from a document.
  fill(doc) {
    for (const [pointer, f] of this.fields) {
      if (!f.input) continue;
      const v = get(doc, pointer);
      if (v === undefined || v === null) {
        f.input.value = '';
      } else if (f.input.tagName === 'SELECT' && f.type !== 'boolean') {
        f.input.value = JSON.stringify(v);
      } else {
        f.input.value = String(v);
      }
    }
  }

  // read returns the document the fields hold: empty fields are left out. A number field holding text is sent
  // as text, so that the server says what is wrong with it.
  read() {
    const doc = {};
    for (const [pointer, f] of this.fields) {
      if (!f.input || f.input.value === '') continue;
      let v = f.input.value;
      if (f.type === 'boolean') v = v === 'true';
      else if (f.input.tagName === 'SELECT') v = JSON.parse(v);
      else if (f.type === 'integer' || f.type === 'number') {
        const n = Number(v);
        v = Number.isFinite(n) ? n : v;
      }
      set(doc, pointer, v);
    }
    return doc;
  }

  // showErrors puts each {pointer, detail} at its field, or at the top when no field has its pointer.
  showErrors(errors) {
    this.clearErrors();
    const loose = [];
    for (const e of errors) {
      let f = this.fields.get(e.pointer);
      if (!f) {
        // The closest field above the pointer.
        let p = e.pointer;
        while (!f && p.includes('/')) {
          p = p.slice(0, p.lastIndexOf('/'));
          f = this.fields.get(p);
        }
      }
      if (!f) {
        loose.push(e.detail);
        continue;
      }
      f.error.hidden = false;
      f.error.textContent = (f.error.textContent ? f.error.textContent + ' ' : '') + e.detail;
      if (f.input) f.input.setAttribute('aria-invalid', 'true');
    }
    if (loose.length) {
      this.errorsAt.hidden = false;
      this.errorsAt.textContent = loose.join(' ');
    }
    const first = this.form.querySelector('[aria-invalid="true"]');
    if (first) first.focus();
  }

  clearErrors() {
    this.errorsAt.hidden = true;
    this.errorsAt.textContent = '';
    for (const f of this.fields.values()) {
      f.error.hidden = true;
      f.error.textContent = '';
      if (f.input) f.input.removeAttribute('aria-invalid');
    }
  }
}

function segments(pointer) {
  return pointer.split('/').slice(1).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function get(doc, pointer) {
  let v = doc;
  for (const s of segments(pointer)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[s];
  }
  return v;
}

function set(doc, pointer, value) {
  const segs = segments(pointer);
  let o = doc;
  for (const s of segs.slice(0, -1)) {
    if (typeof o[s] !== 'object' || o[s] === null) o[s] = {};
    o = o[s];
  }
  o[segs[segs.length - 1]] = value;
}
