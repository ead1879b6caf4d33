// Building elements. Every piece of text goes in as a text node (textContent): model, tool and user text is never
// parsed as HTML.

// el makes an element: attrs are set as attributes (on* handlers are refused, events go through listen), and
// children are elements or strings, which become text nodes.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) throw new Error('el: use listen for events, not ' + k);
    if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  append(node, ...children);
  return node;
}

// append adds children: strings as text nodes.
export function append(node, ...children) {
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return node;
}

// clear removes every child.
export function clear(node) {
  node.replaceChildren();
  return node;
}

// listen adds an event listener and returns the node.
export function listen(node, type, fn) {
  node.addEventListener(type, fn);
  return node;
}

// pretty formats a JSON value for a <pre>.
export function pretty(v) {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

// shortID shortens a long id for a list.
export function shortID(id) {
  return id.length > 12 ? id.slice(0, 8) + '…' : id;
}
