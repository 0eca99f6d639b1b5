// A small SVG line chart: no library, no network.
import { el } from './format.js';

const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

/**
 * @param series [{name, values: [[timeMs, y], ...]}]
 * @param format y-axis label format
 */
export function lineChart(id, title, series, format) {
  const width = 600;
  const height = 200;
  const pad = { left: 64, right: 8, top: 10, bottom: 20 };
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, id, preserveAspectRatio: 'none' });
  const all = series.flatMap((s) => s.values);
  const now = Date.now();
  const minX = all.length ? Math.min(...all.map((p) => p[0])) : now - 60000;
  const maxX = all.length ? Math.max(...all.map((p) => p[0])) : now;
  const maxY = Math.max(1, ...all.map((p) => p[1]));
  const x = (t) => pad.left + ((t - minX) / Math.max(1, maxX - minX)) * (width - pad.left - pad.right);
  const y = (v) => height - pad.bottom - (v / maxY) * (height - pad.top - pad.bottom);
  root.append(svg('line', { class: 'axis', x1: pad.left, y1: height - pad.bottom, x2: width - pad.right, y2: height - pad.bottom }));
  root.append(svg('line', { class: 'axis', x1: pad.left, y1: pad.top, x2: pad.left, y2: height - pad.bottom }));
  for (const fraction of [0, 0.5, 1]) {
    const label = svg('text', { x: pad.left - 4, y: y(maxY * fraction) + 3, 'text-anchor': 'end' });
    label.textContent = format(maxY * fraction);
    root.append(label);
  }
  const span = svg('text', { x: width - pad.right, y: height - 4, 'text-anchor': 'end' });
  span.textContent = all.length ? `last ${Math.round((maxX - minX) / 60000)} min` : 'no samples yet';
  root.append(span);
  series.forEach((s, i) => {
    if (s.values.length < 2) return;
    const d = s.values.map((p, j) => `${j ? 'L' : 'M'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join('');
    root.append(svg('path', { d, class: `series-${i}` }));
  });
  const legend = el('div', { class: 'legend' },
    series.map((s, i) => el('span', {}, el('i', { class: `series-${i}` }), s.name)));
  const box = el('div', { class: 'chart' }, el('h3', {}, title), legend);
  box.append(root);
  return box;
}
