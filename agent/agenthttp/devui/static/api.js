// The client of the agenthttp API: JSON requests, problem+json errors and Server-Sent Events read from fetch (so
// that a tenant header and Last-Event-ID can be sent, which EventSource cannot).

let base = '';
let tenantHeader = '';
let tenant = '';

// configure sets where the API is and, in development, the tenant header to send.
export function configure(cfg) {
  base = cfg.api || '';
  tenantHeader = cfg.tenant_header || '';
}

export function setTenant(t) {
  tenant = t;
}

// ApiError is an answer that was not a success: its status and its problem document.
export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || 'HTTP ' + status);
    this.status = status;
    this.problem = problem || {};
  }
  get type() {
    return (this.problem.type || '').replace('urn:typeshift:problem:', '');
  }
}

// request sends a request to the API and returns the response, whatever its status.
export function request(path, { method = 'GET', body, headers = {}, accept, signal } = {}) {
  const h = { ...headers };
  if (tenantHeader && tenant) h[tenantHeader] = tenant;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  if (accept) h['Accept'] = accept;
  return fetch(base + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    credentials: 'same-origin',
    cache: 'no-store',
  });
}

// fail turns an unsuccessful response into an ApiError.
export async function fail(resp) {
  let problem = null;
  try {
    problem = await resp.json();
  } catch {
    // not a problem document
  }
  return new ApiError(resp.status, problem);
}

// json sends a request and returns {status, headers, data}; an unsuccessful answer throws an ApiError.
export async function json(path, opts = {}) {
  const resp = await request(path, opts);
  if (!resp.ok) throw await fail(resp);
  const text = await resp.text();
  return { status: resp.status, headers: resp.headers, data: text ? JSON.parse(text) : null };
}

// events reads a Server-Sent Events response: it yields {id, event, data} with data parsed as JSON. id is null
// for an event without one.
export async function* events(resp) {
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let ev = { id: null, event: '', data: '' };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        let line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (ev.data !== '' || ev.event !== '') {
            let data = null;
            try {
              data = ev.data === '' ? null : JSON.parse(ev.data);
            } catch {
              data = ev.data;
            }
            yield { id: ev.id, event: ev.event || 'message', data };
          }
          ev = { id: null, event: '', data: '' };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') ev.data += (ev.data === '' ? '' : '\n') + val;
        else if (field === 'event') ev.event = val;
        else if (field === 'id') ev.id = val;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
