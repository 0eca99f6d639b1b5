// The console's pages. Each renders into `view` and returns a function to refresh it, or null.
import { api } from './api.js';
import { lineChart } from './chart.js';
import { bytes, duration, el, number, rate, seconds, shown, time } from './format.js';

const PAGE = 50;

function table(id, headers, rows) {
  return el('table', { id },
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', { class: h.num ? 'num' : '' }, h.label || h)))),
    el('tbody', {}, rows));
}

function link(hash, text) {
  return el('a', { href: hash }, text);
}

function list(values) {
  return values.join(', ');
}

function pager(page, total, go) {
  const from = total === 0 ? 0 : page.offset + 1;
  const to = page.offset + page.count;
  return el('div', { class: 'pager' },
    el('button', { type: 'button', id: 'page-prev', disabled: page.offset === 0, onclick: () => go(Math.max(0, page.offset - PAGE)) }, '‹ Previous'),
    el('span', { class: 'muted', id: 'page-info' }, `${from}–${to} of ${number(total)}`),
    el('button', { type: 'button', id: 'page-next', disabled: to >= total, onclick: () => go(page.offset + PAGE) }, 'Next ›'));
}

// ---- Overview ------------------------------------------------------------------------------

export async function overview(view, ctx) {
  async function render() {
    const [o, t] = await Promise.all([api.overview(), api.throughput()]);
    ctx.clusterId(o.cluster_id);
    const p = o.partitions;
    const card = (id, label, value, bad) =>
      el('div', { class: `card${bad ? ' bad' : ''}`, id }, el('div', { class: 'label' }, label), el('div', { class: 'value' }, value));
    const c = o.controller;
    const samples = t.samples;
    view.replaceChildren(
      el('h2', {}, 'Cluster overview'),
      el('div', { class: 'cards' },
        card('stat-brokers', 'Brokers', o.brokers.length),
        card('stat-controller', 'Active controller', c.active === null ? 'none' : c.active, c.active === null),
        card('stat-topics', 'Topics', number(p.topics)),
        card('stat-partitions', 'Partitions', number(p.total)),
        card('stat-under-replicated', 'Under-replicated', number(p.under_replicated), p.under_replicated > 0),
        card('stat-under-min-isr', 'Under min ISR', number(p.under_min_isr), p.under_min_isr > 0),
        card('stat-offline', 'Offline', number(p.offline), p.offline > 0)),
      c.voters ? el('p', { class: 'muted', id: 'quorum' }, `Controller quorum: leader ${c.active}, voters ${list(c.voters)}, epoch ${c.leader_epoch}`)
               : el('p', { class: 'muted', id: 'quorum' }, 'Controller quorum: its voters are shown on the active controller.'),
      el('h3', {}, 'Brokers'),
      table('brokers', ['Id', 'Address', 'Rack', 'State', { label: 'Leaders', num: true }, { label: 'Bytes in', num: true }, { label: 'Bytes out', num: true }],
        o.brokers.map((b) => el('tr', { 'data-broker-id': b.id },
          el('td', {}, b.id, b.id === o.node_id ? el('span', { class: 'muted' }, ' (this node)') : ''),
          el('td', {}, b.address || '—'),
          el('td', {}, b.rack || '—'),
          el('td', { class: 'state' }, el('span', { class: `badge ${b.fenced ? 'bad' : 'ok'}` }, b.fenced ? 'fenced' : 'active')),
          el('td', { class: 'num' }, number(b.leaders)),
          el('td', { class: 'num' }, rate(b.bytes_in_per_sec, 'B')),
          el('td', { class: 'num' }, rate(b.bytes_out_per_sec, 'B'))))),
      el('div', { class: 'two' },
        lineChart('chart-bytes', 'Bytes per second (this node)', [
          { name: 'in', values: samples.map((s) => [s.time, s.bytes_in]) },
          { name: 'out', values: samples.map((s) => [s.time, s.bytes_out]) },
        ], (v) => rate(v, 'B')),
        lineChart('chart-records', 'Records in per second (this node)', [
          { name: 'records in', values: samples.map((s) => [s.time, s.records_in]) },
        ], (v) => rate(v))));
  }
  await render();
  return render;
}

// ---- Topics --------------------------------------------------------------------------------

export async function topics(view, ctx) {
  let search = ctx.params.get('q') || '';
  let offset = Number(ctx.params.get('offset') || 0);
  const body = el('div', {});
  const input = el('input', { id: 'topic-search', type: 'search', placeholder: 'Search topics', value: search });
  let timer = null;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => { search = input.value; offset = 0; load(); }, 250);
  });
  const name = el('input', { id: 'new-topic-name', required: true, placeholder: 'orders' });
  const partitions = el('input', { id: 'new-topic-partitions', type: 'number', min: 1, value: 3 });
  const rf = el('input', { id: 'new-topic-rf', type: 'number', min: 1, placeholder: 'default' });
  const form = el('form', { class: 'inline', id: 'create-topic-form' },
    el('label', {}, 'Name', name), el('label', {}, 'Partitions', partitions), el('label', {}, 'Replication factor', rf),
    el('button', { class: 'primary', id: 'create-topic', type: 'submit' }, 'Create topic'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const topic = name.value.trim();
    if (!topic) return;
    const ok = await ctx.confirm(`Create topic "${topic}" with ${partitions.value || 'default'} partitions?`);
    if (!ok) return;
    await ctx.guard(async () => {
      await api.createTopic({ name: topic, partitions: partitions.value || null, replication_factor: rf.value || null });
      ctx.notice(`Created topic ${topic}.`);
      location.hash = `#/topics/${encodeURIComponent(topic)}`;
    });
  });
  async function load() {
    const page = await api.topics({ q: search, offset, limit: PAGE });
    body.replaceChildren(
      table('topics', ['Name', { label: 'Partitions', num: true }, { label: 'RF', num: true }, { label: 'Size here', num: true }, 'Retention', 'Cleanup policy'],
        page.topics.map((t) => el('tr', { 'data-topic': t.name },
          el('td', {}, link(`#/topics/${encodeURIComponent(t.name)}`, t.name)),
          el('td', { class: 'num partitions' }, t.partitions),
          el('td', { class: 'num rf' }, t.replication_factor),
          el('td', { class: 'num' }, bytes(t.local_size_bytes)),
          el('td', {}, duration(t.retention_ms)),
          el('td', {}, t.cleanup_policy)))),
      pager({ offset: page.offset, count: page.topics.length }, page.total, (next) => { offset = next; load(); }));
  }
  view.replaceChildren(el('h2', {}, 'Topics'), el('div', { class: 'toolbar' }, input), body, el('h3', {}, 'New topic'), form);
  await load();
  return null;
}

export async function topic(view, ctx, name) {
  const t = await api.topic(name, { limit: 500 });
  const count = el('input', { id: 'add-partitions-count', type: 'number', min: t.partition_count + 1, value: t.partition_count + 1 });
  const grow = el('form', { class: 'inline', id: 'add-partitions-form' }, el('label', {}, 'New partition count', count),
    el('button', { type: 'submit', id: 'add-partitions' }, 'Add partitions'));
  grow.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!(await ctx.confirm(`Grow ${name} from ${t.partition_count} to ${count.value} partitions? Keys may map to other partitions afterwards.`))) return;
    await ctx.guard(async () => { await api.addPartitions(name, Number(count.value)); ctx.notice(`${name} now has ${count.value} partitions.`); ctx.reload(); });
  });
  const remove = el('button', { type: 'button', class: 'danger', id: 'delete-topic' }, 'Delete topic');
  remove.addEventListener('click', async () => {
    if (!(await ctx.confirm(`Delete topic "${name}" and all its records? This cannot be undone.`))) return;
    await ctx.guard(async () => { await api.deleteTopic(name); ctx.notice(`Deleted ${name}.`); location.hash = '#/topics'; });
  });
  view.replaceChildren(
    el('h2', { id: 'topic-name' }, name),
    el('p', { class: 'muted' }, `${t.partition_count} partitions · id ${t.topic_id} · ${bytes(t.local_size_bytes)} on this broker · `,
      link(`#/messages?topic=${encodeURIComponent(name)}`, 'browse messages')),
    table('partitions', [{ label: 'Partition', num: true }, { label: 'Leader', num: true }, 'Replicas', 'ISR', { label: 'Log start', num: true }, { label: 'Log end', num: true }, { label: 'High watermark', num: true }, { label: 'Size', num: true }],
      t.partitions.map((p) => el('tr', { 'data-partition': p.partition },
        el('td', { class: 'num' }, p.partition),
        el('td', { class: 'num leader' }, p.leader < 0 ? 'none' : p.leader),
        el('td', { class: 'replicas' }, list(p.replicas)),
        el('td', { class: 'isr' }, list(p.isr)),
        el('td', { class: 'num log-start' }, p.log_start_offset ?? '—'),
        el('td', { class: 'num log-end' }, p.log_end_offset ?? '—'),
        el('td', { class: 'num hw' }, p.high_watermark ?? '—'),
        el('td', { class: 'num' }, bytes(p.size_bytes))))),
    t.partition_count > t.partitions.length ? el('p', { class: 'muted' }, `First ${t.partitions.length} of ${t.partition_count} partitions.`) : '',
    el('h3', {}, 'Configs'),
    t.configs_error ? el('p', { class: 'muted' }, `Configs not shown: ${t.configs_error}`) : '',
    table('configs', ['Name', 'Value', 'Source'],
      t.configs.map((c) => el('tr', { 'data-config': c.name, class: c.source === 'dynamic_topic_config' ? 'set' : '' },
        el('td', {}, c.name), el('td', {}, c.sensitive ? '(sensitive)' : (c.value ?? '—')), el('td', {}, c.source)))),
    el('h3', {}, 'Change'), grow, el('p', {}), remove);
  return null;
}

// ---- Groups --------------------------------------------------------------------------------

export async function groups(view, ctx) {
  let search = '';
  let offset = 0;
  const body = el('div', {});
  const input = el('input', { id: 'group-search', type: 'search', placeholder: 'Search groups' });
  input.addEventListener('change', () => { search = input.value; offset = 0; load(); });
  async function load() {
    const page = await api.groups({ q: search, offset, limit: PAGE });
    body.replaceChildren(
      table('groups', ['Group', 'State', 'Protocol type', { label: 'Members', num: true }, { label: 'Lag (records)', num: true }, { label: 'Lag (time)', num: true }],
        page.groups.map((g) => el('tr', { 'data-group': g.group_id },
          el('td', {}, link(`#/groups/${encodeURIComponent(g.group_id)}`, g.group_id)),
          el('td', { class: 'state' }, g.state),
          el('td', {}, g.protocol_type || '—'),
          el('td', { class: 'num' }, g.members ?? '—'),
          el('td', { class: 'num lag' }, number(g.lag_records)),
          el('td', { class: 'num' }, seconds(g.lag_seconds))))),
      pager({ offset: page.offset, count: page.groups.length }, page.total, (next) => { offset = next; load(); }));
  }
  view.replaceChildren(el('h2', {}, 'Consumer groups'), el('div', { class: 'toolbar' }, input), body,
    el('p', { class: 'muted' }, 'Groups this broker coordinates; lag is measured on the partitions this broker leads.'));
  await load();
  return load;
}

export async function group(view, ctx, id) {
  async function render() {
    const g = await api.group(id);
    view.replaceChildren(
      el('h2', { id: 'group-id' }, id),
      el('div', { class: 'cards' },
        el('div', { class: 'card', id: 'group-state' }, el('div', { class: 'label' }, 'State'), el('div', { class: 'value' }, g.state)),
        el('div', { class: 'card' }, el('div', { class: 'label' }, 'Members'), el('div', { class: 'value' }, g.members.length)),
        el('div', { class: 'card', id: 'group-lag' }, el('div', { class: 'label' }, 'Total lag'), el('div', { class: 'value' }, number(g.lag_records))),
        el('div', { class: 'card' }, el('div', { class: 'label' }, 'Max lag time'), el('div', { class: 'value' }, seconds(g.lag_seconds)))),
      el('h3', {}, 'Partitions'),
      table('group-partitions', ['Topic', { label: 'Partition', num: true }, { label: 'Committed offset', num: true }, { label: 'Log end', num: true }, { label: 'Lag', num: true }, { label: 'Lag time', num: true }],
        g.partitions.map((p) => el('tr', { 'data-tp': `${p.topic}-${p.partition}` },
          el('td', {}, link(`#/topics/${encodeURIComponent(p.topic)}`, p.topic)),
          el('td', { class: 'num' }, p.partition),
          el('td', { class: 'num committed' }, p.committed_offset),
          el('td', { class: 'num' }, p.log_end_offset ?? '—'),
          el('td', { class: 'num lag' }, p.lag_records ?? '—'),
          el('td', { class: 'num' }, seconds(p.lag_seconds))))),
      el('h3', {}, 'Members'),
      table('group-members', ['Member', 'Client id', 'Host'],
        g.members.map((m) => el('tr', {}, el('td', {}, m.member_id), el('td', {}, m.client_id), el('td', {}, m.host)))));
  }
  await render();
  return render;
}

// ---- Messages ------------------------------------------------------------------------------

export async function messages(view, ctx) {
  const topicInput = el('input', { id: 'msg-topic', list: 'topic-names', value: ctx.params.get('topic') || '', placeholder: 'topic' });
  const names = el('datalist', { id: 'topic-names' });
  api.topics({ limit: 500 }).then((page) => names.replaceChildren(...page.topics.map((t) => el('option', { value: t.name }))), () => {});
  const partition = el('input', { id: 'msg-partition', type: 'number', min: 0, value: ctx.params.get('partition') || 0 });
  const offset = el('input', { id: 'msg-offset', type: 'number', min: 0, placeholder: 'earliest' });
  const when = el('input', { id: 'msg-timestamp', type: 'datetime-local', step: 1 });
  const format = el('select', { id: 'msg-format' }, el('option', { value: 'text' }, 'UTF-8'), el('option', { value: 'json' }, 'JSON'), el('option', { value: 'hex' }, 'Hex'));
  const results = el('div', {});
  let last = null;
  const form = el('form', { class: 'inline', id: 'msg-form' },
    el('label', {}, 'Topic', topicInput, names), el('label', {}, 'Partition', partition), el('label', {}, 'From offset', offset),
    el('label', {}, 'or from time (UTC)', when), el('label', {}, 'Show as', format),
    el('button', { class: 'primary', id: 'msg-load', type: 'submit' }, 'Load'));
  function draw() {
    if (!last) return;
    const f = format.value;
    results.replaceChildren(
      el('p', { class: 'muted', id: 'msg-range' }, `Partition ${last.partition}: log start ${last.log_start_offset}, high watermark ${last.high_watermark}; showing ${last.records.length} from offset ${last.offset}.`),
      table('records', [{ label: 'Offset', num: true }, 'Timestamp', 'Key', 'Value', 'Headers'],
        last.records.map((r) => el('tr', { 'data-offset': r.offset },
          el('td', { class: 'num' }, r.offset),
          el('td', {}, time(r.timestamp)),
          el('td', { class: 'key' }, shown(r.key, f)),
          el('td', { class: 'value' }, shown(r.value, f)),
          el('td', { class: 'headers' }, r.headers.map((h) => el('div', { class: 'header' }, el('b', {}, h.key), ': ', shown(h.value, f))))))),
      el('div', { class: 'pager' }, el('button', { type: 'button', id: 'msg-next', disabled: last.next_offset >= last.high_watermark, onclick: () => { offset.value = last.next_offset; when.value = ''; load(); } }, 'Next page ›')));
  }
  async function load() {
    if (!topicInput.value) return;
    const params = { partition: partition.value, limit: 20 };
    if (offset.value !== '') params.offset = offset.value;
    else if (when.value) params.timestamp = Date.parse(when.value + 'Z');
    await ctx.guard(async () => { last = await api.records(topicInput.value, params); draw(); });
  }
  form.addEventListener('submit', (event) => { event.preventDefault(); load(); });
  format.addEventListener('change', draw);

  const key = el('input', { id: 'produce-key', placeholder: 'key (optional)' });
  const value = el('textarea', { id: 'produce-value', placeholder: '{"hello": "brook"}' });
  const headers = el('textarea', { id: 'produce-headers', placeholder: 'one header per line: name=value' });
  const toPartition = el('input', { id: 'produce-partition', type: 'number', min: 0, placeholder: 'by key' });
  const produce = el('form', { class: 'inline', id: 'produce-form' },
    el('label', {}, 'Key', key), el('label', {}, 'Partition', toPartition), el('label', {}, 'Value', value), el('label', {}, 'Headers', headers),
    el('button', { class: 'primary', id: 'produce', type: 'submit' }, 'Produce'));
  const produced = el('div', { id: 'produce-result' });
  produce.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!topicInput.value) return;
    const list = headers.value.split('\n').filter((line) => line.trim()).map((line) => {
      const eq = line.indexOf('=');
      return eq < 0 ? { key: line.trim(), value: null } : { key: line.slice(0, eq).trim(), value: line.slice(eq + 1) };
    });
    await ctx.guard(async () => {
      const r = await api.produce(topicInput.value, { key: key.value || null, value: value.value, headers: list, partition: toPartition.value || null });
      produced.replaceChildren(el('p', { class: 'notice' }, `Produced to partition ${r.partition} at offset ${r.offset}.`));
    });
  });
  view.replaceChildren(el('h2', {}, 'Message browser'), form, results, el('h3', {}, 'Produce a test record'), produce, produced);
  if (topicInput.value) await load();
  return null;
}
