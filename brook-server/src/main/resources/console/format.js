// Formatting helpers and a tiny safe DOM builder (text only: nothing from the server is parsed as
// HTML).

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function bytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function rate(n, unit) {
  if (n === null || n === undefined) return '—';
  if (unit === 'B') return n < 10 ? `${n.toFixed(1)} B/s` : `${bytes(Math.round(n))}/s`;
  return `${n.toFixed(n < 10 ? 1 : 0)}/s`;
}

export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 0) return 'forever';
  const s = ms / 1000;
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${(s / 60).toFixed(0)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(0)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

export function seconds(s) {
  return s === null || s === undefined ? '—' : duration(Math.round(s * 1000));
}

export function time(ms) {
  return ms < 0 ? '—' : new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export function number(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US');
}

/** A key, value or header value in the chosen format: text, pretty JSON or hex. */
export function shown(data, format) {
  if (data === null || data === undefined) return el('span', { class: 'muted' }, 'null');
  const cut = data.truncated ? ` … (${bytes(data.size)})` : '';
  if (format === 'hex' || data.text === null) {
    return el('pre', { class: 'hex' }, data.hex.replace(/(..)/g, '$1 ').trim() + cut);
  }
  if (format === 'json') {
    try {
      return el('pre', { class: 'json' }, JSON.stringify(JSON.parse(data.text), null, 2) + cut);
    } catch (e) {
      // Not JSON: as text.
    }
  }
  return el('pre', { class: 'text' }, data.text + cut);
}
