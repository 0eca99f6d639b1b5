// The console's pages. Each renders into `view` and returns a function to refresh it, or null.
import { api } from './api.js';
import { lineChart } from './chart.js';
import { bytes, duration, el, number, rate, seconds, shown, time } from './format.js';

const PAGE = 50;
// Partitions on a topic's or a group's page; the server cuts every list to a page.
const PARTITION_PAGE = 100;

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

// The brokers a cluster-wide listing could not ask, named so a partial page does not pass for whole.
function unanswered(list) {
  if (!list || !list.length) return '';
  return el('p', { class: 'notice bad', id: 'unanswered' },
    'Not shown: ', list.map((u) => `broker ${u.broker} (${u.reason})`).join('; '), '.');
}

function pager(page, total, go, size = PAGE) {
  const from = total === 0 ? 0 : page.offset + 1;
  const to = page.offset + page.count;
  return el('div', { class: 'pager' },
    el('button', { type: 'button', id: 'page-prev', disabled: page.offset === 0, onclick: () => go(Math.max(0, page.offset - size)) }, '‹ Previous'),
    el('span', { class: 'muted', id: 'page-info' }, `${from}–${to} of ${number(total)}`),
    el('button', { type: 'button', id: 'page-next', disabled: to >= total, onclick: () => go(page.offset + size) }, 'Next ›'));
}

// A page of a topic's or a group's partitions is an address of its own (#/topics/x?offset=100),
// so its pager routes there.
function partitionPager(page, total, base) {
  return total > page.count || page.offset > 0
    ? pager(page, total, (next) => { location.hash = `${base}?offset=${next}`; }, PARTITION_PAGE)
    : '';
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
      table('brokers', ['Id', 'Address', 'Rack', 'State', { label: 'Leaders', num: true }, { label: 'Disk used', num: true }, { label: 'Bytes in', num: true }, { label: 'Bytes out', num: true }],
        o.brokers.map((b) => el('tr', { 'data-broker-id': b.id },
          el('td', {}, b.id, b.id === o.node_id ? el('span', { class: 'muted' }, ' (this node)') : ''),
          el('td', {}, b.address || '—'),
          el('td', {}, b.rack || '—'),
          el('td', { class: 'state' }, el('span', { class: `badge ${b.fenced ? 'bad' : 'ok'}` }, b.fenced ? 'fenced' : 'active')),
          el('td', { class: 'num' }, number(b.leaders)),
          el('td', { class: 'num disk' }, b.disk_error ? el('span', { class: 'muted' }, b.disk_error)
            : b.disk_total_bytes === undefined ? '—' : `${bytes(b.disk_used_bytes)} of ${bytes(b.disk_total_bytes)}`),
          el('td', { class: 'num' }, rate(b.bytes_in_per_sec, 'B')),
          el('td', { class: 'num' }, rate(b.bytes_out_per_sec, 'B'))))),
      el('p', { class: 'muted' }, o.disk_shown
        ? 'Disk: the file systems of each broker\'s log directories (DescribeLogDirs). Bytes in and out: this node\'s meters; each broker\'s console shows its own.'
        : 'Disk is shown to users who may describe the cluster. Bytes in and out: this node\'s meters; each broker\'s console shows its own.'),
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
  const t = await api.topic(name, { offset: ctx.params.get('offset') || 0, limit: PARTITION_PAGE });
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
    table('partitions', [{ label: 'Partition', num: true }, { label: 'Leader', num: true }, 'Replicas', 'ISR', { label: 'Log start', num: true }, { label: 'Log end', num: true }, { label: 'High watermark', num: true }, { label: 'Size (leader)', num: true }, { label: 'Remote size', num: true }, 'Size per replica'],
      t.partitions.map((p) => el('tr', { 'data-partition': p.partition },
        el('td', { class: 'num' }, p.partition),
        el('td', { class: 'num leader' }, p.leader < 0 ? 'none' : p.leader),
        el('td', { class: 'replicas' }, list(p.replicas)),
        el('td', { class: 'isr' }, list(p.isr)),
        el('td', { class: 'num log-start' }, p.log_start_offset ?? '—'),
        el('td', { class: 'num log-end' }, p.log_end_offset ?? '—'),
        el('td', { class: 'num hw' }, p.high_watermark ?? (p.leader_error ? el('span', { class: 'muted' }, p.leader_error) : '—')),
        el('td', { class: 'num size' }, bytes(p.size_bytes)),
        el('td', { class: 'num remote' }, bytes(p.remote_size_bytes)),
        el('td', { class: 'replica-sizes' }, (p.replica_sizes || []).map((r) =>
          `${r.broker}: ${r.error ? r.error : bytes(r.size_bytes)}`).join(', '))))),
    partitionPager({ offset: t.offset, count: t.partitions.length }, t.partition_count, `#/topics/${encodeURIComponent(name)}`),
    el('p', { class: 'muted' }, 'Log start and high watermark from each partition\'s leader, sizes from the broker holding each replica; log end and remote (tiered) size where this broker leads.'),
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
      unanswered(page.unanswered),
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
    el('p', { class: 'muted' }, 'The groups of every broker; lag from each group\'s committed offsets and each partition\'s leader.'));
  await load();
  return load;
}

export async function group(view, ctx, id) {
  const reset = resetForm(ctx, id);
  async function render() {
    const g = await api.group(id, { offset: ctx.params.get('offset') || 0, limit: PARTITION_PAGE });
    reset.partitions(g.partitions);
    view.replaceChildren(
      el('h2', { id: 'group-id' }, id),
      el('div', { class: 'cards' },
        el('div', { class: 'card', id: 'group-state' }, el('div', { class: 'label' }, 'State'), el('div', { class: 'value' }, g.state)),
        el('div', { class: 'card', id: 'group-coordinator' }, el('div', { class: 'label' }, 'Coordinator'), el('div', { class: 'value' }, g.coordinator)),
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
      partitionPager({ offset: g.offset, count: g.partitions.length }, g.partition_count, `#/groups/${encodeURIComponent(id)}`),
      el('h3', {}, 'Members'),
      table('group-members', ['Member', 'Client id', 'Host'],
        g.members.map((m) => el('tr', {}, el('td', {}, m.member_id), el('td', {}, m.client_id), el('td', {}, m.host)))),
      el('h3', {}, 'Reset offsets'), reset.node);
  }
  await render();
  // The reset form keeps what the operator typed: no auto-refresh on this page.
  return null;
}

/**
 * The group page's offset reset: where to (earliest, latest, a time, an offset), for all or the
 * ticked partitions; a preview table first, then the commit after a confirmation. The server
 * refuses while the group has members.
 */
function resetForm(ctx, id) {
  const to = el('select', { id: 'reset-to' },
    el('option', { value: 'earliest' }, 'Earliest'), el('option', { value: 'latest' }, 'Latest'),
    el('option', { value: 'timestamp' }, 'Time (UTC)'), el('option', { value: 'offset' }, 'Offset'));
  const when = el('input', { id: 'reset-time', type: 'datetime-local', step: 1 });
  const offset = el('input', { id: 'reset-offset', type: 'number', min: 0 });
  const choices = el('div', { id: 'reset-partitions', class: 'toolbar' });
  const preview = el('div', { id: 'reset-preview' });
  const form = el('form', { class: 'inline', id: 'reset-form' },
    el('label', {}, 'Reset to', to), el('label', {}, 'Time', when), el('label', {}, 'Offset', offset),
    el('button', { class: 'primary', id: 'reset-preview-button', type: 'submit' }, 'Preview'));
  function body(apply) {
    const b = { to: to.value, apply };
    if (to.value === 'timestamp') b.value = Date.parse(when.value + 'Z');
    if (to.value === 'offset') b.value = offset.value;
    const ticked = [...choices.querySelectorAll('input:checked')].map((c) => ({ topic: c.dataset.topic, partition: Number(c.dataset.partition) }));
    if (ticked.length) b.partitions = ticked;
    return b;
  }
  function draw(r) {
    preview.replaceChildren(
      table('reset-rows', ['Topic', { label: 'Partition', num: true }, { label: 'Committed', num: true }, { label: 'New offset', num: true }, { label: 'Skipped (+) / replayed (−)', num: true }],
        r.partitions.map((p) => el('tr', { 'data-tp': `${p.topic}-${p.partition}` },
          el('td', {}, p.topic), el('td', { class: 'num' }, p.partition),
          el('td', { class: 'num current' }, p.current_offset), el('td', { class: 'num new' }, p.new_offset),
          el('td', { class: 'num skipped' }, p.skipped)))),
      r.partition_count > r.partitions.length
        ? el('p', { class: 'muted', id: 'reset-more' }, `First ${r.partitions.length} of ${number(r.partition_count)} partitions; ${number(r.skipped_total)} records skipped (+) or replayed (−) over all of them.`)
        : '',
      r.applied ? el('p', { class: 'notice', id: 'reset-done' }, 'Offsets reset.')
        : el('button', { type: 'button', class: 'danger', id: 'reset-apply', onclick: apply }, 'Apply this reset'));
  }
  async function apply() {
    if (!(await ctx.confirm(`Commit these offsets for group "${id}"? Its consumers start from them.`))) return;
    await ctx.guard(async () => { draw(await api.resetOffsets(id, body(true))); });
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.guard(async () => { draw(await api.resetOffsets(id, body(false))); });
  });
  return {
    node: el('div', {}, form, el('p', { class: 'muted' }, 'Partitions of this page (none ticked: all the group committed):'), choices, preview),
    partitions(list) {
      choices.replaceChildren(...list.map((p) => el('label', {},
        el('input', { type: 'checkbox', 'data-topic': p.topic, 'data-partition': p.partition }), ` ${p.topic}-${p.partition}`)));
    },
  };
}

// ---- Transactions --------------------------------------------------------------------------

export async function transactions(view, ctx) {
  let search = '';
  let offset = 0;
  const body = el('div', {});
  const input = el('input', { id: 'txn-search', type: 'search', placeholder: 'Search transactional ids' });
  input.addEventListener('change', () => { search = input.value; offset = 0; ctx.guard(load); });
  const topicInput = el('input', { id: 'producers-topic', placeholder: 'topic', value: ctx.params.get('topic') || '' });
  const producers = el('div', {});
  const form = el('form', { class: 'inline', id: 'producers-form' }, el('label', {}, 'Topic', topicInput),
    el('button', { class: 'primary', id: 'producers-load', type: 'submit' }, 'Show producers'));
  async function loadProducers() {
    if (!topicInput.value) return;
    const r = await api.producers(topicInput.value);
    producers.replaceChildren(
      table('producers', [{ label: 'Partition', num: true }, { label: 'Leader', num: true }, { label: 'Producer id', num: true }, { label: 'Epoch', num: true }, { label: 'Last sequence', num: true }, 'Last write', { label: 'Open transaction from offset', num: true }],
        r.partitions.flatMap((p) => p.error
          ? [el('tr', { 'data-partition': p.partition }, el('td', { class: 'num' }, p.partition), el('td', { class: 'num' }, p.leader), el('td', { colspan: 5, class: 'muted' }, p.error))]
          : p.producers.map((s) => el('tr', { 'data-partition': p.partition, 'data-producer': s.producer_id },
            el('td', { class: 'num' }, p.partition), el('td', { class: 'num' }, p.leader), el('td', { class: 'num' }, s.producer_id), el('td', { class: 'num' }, s.producer_epoch),
            el('td', { class: 'num' }, s.last_sequence), el('td', {}, time(s.last_timestamp)),
            el('td', { class: 'num' }, s.current_txn_start_offset < 0 ? '—' : s.current_txn_start_offset))))));
  }
  form.addEventListener('submit', (event) => { event.preventDefault(); ctx.guard(loadProducers); });
  async function load() {
    const r = await api.transactions({ q: search, offset, limit: PAGE });
    body.replaceChildren(
      unanswered(r.unanswered),
      table('transactions', ['Transactional id', { label: 'Coordinator', num: true }, 'State', { label: 'Producer id', num: true }, { label: 'Epoch', num: true }, { label: 'Age', num: true }, { label: 'Timeout', num: true }, 'Partitions'],
        r.transactions.map((t) => el('tr', { 'data-txn': t.transactional_id, class: t.hung ? 'hung' : '' },
          el('td', {}, t.transactional_id),
          el('td', { class: 'num coordinator' }, t.coordinator ?? '—'),
          el('td', { class: 'state' }, t.error || t.state, t.hung ? el('span', { class: 'badge bad' }, ' hung') : ''),
          el('td', { class: 'num' }, t.producer_id ?? '—'),
          el('td', { class: 'num' }, t.producer_epoch ?? '—'),
          el('td', { class: 'num age' }, t.age_ms === undefined ? '—' : seconds(t.age_ms / 1000)),
          el('td', { class: 'num' }, t.timeout_ms === undefined ? '—' : duration(t.timeout_ms)),
          el('td', { class: 'partitions' }, (t.partitions || []).map((p) => `${p.topic}-${p.partition}`).join(', '),
            t.partition_count > (t.partitions || []).length ? el('span', { class: 'muted' }, ` and ${number(t.partition_count - t.partitions.length)} more`) : '')))),
      pager({ offset: r.offset, count: r.transactions.length }, r.total, (next) => { offset = next; ctx.guard(load); }),
      el('p', { class: 'muted' }, `Transactions of every broker; open longer than transaction.max.timeout.ms (${duration(r.max_timeout_ms)}) is marked hung.`));
  }
  view.replaceChildren(el('h2', {}, 'Transactions'), el('div', { class: 'toolbar' }, input), body, el('h3', {}, 'Producers by partition'), form, producers);
  await load();
  if (topicInput.value) await ctx.guard(loadProducers);
  return load;
}

// ---- Messages ------------------------------------------------------------------------------

export async function messages(view, ctx) {
  const topicInput = el('input', { id: 'msg-topic', list: 'topic-names', value: ctx.params.get('topic') || '', placeholder: 'topic' });
  const names = el('datalist', { id: 'topic-names' });
  // Suggestions: the first 20 topics whose name contains what is typed, asked as it is typed.
  let suggest = null;
  const suggestions = () => api.topics({ q: topicInput.value, limit: 20 })
    .then((page) => names.replaceChildren(...page.topics.map((t) => el('option', { value: t.name }))), () => {});
  topicInput.addEventListener('input', () => { clearTimeout(suggest); suggest = setTimeout(suggestions, 250); });
  suggestions();
  const partition = el('input', { id: 'msg-partition', type: 'number', min: 0, value: ctx.params.get('partition') || 0 });
  const offset = el('input', { id: 'msg-offset', type: 'number', min: 0, placeholder: 'earliest' });
  const when = el('input', { id: 'msg-timestamp', type: 'datetime-local', step: 1 });
  const keyFilter = el('input', { id: 'msg-key', placeholder: 'any key' });
  const match = el('select', { id: 'msg-match' }, el('option', { value: 'exact' }, 'is'), el('option', { value: 'contains' }, 'contains'));
  const format = el('select', { id: 'msg-format' }, el('option', { value: 'text' }, 'UTF-8'), el('option', { value: 'json' }, 'JSON'), el('option', { value: 'hex' }, 'Hex'));
  const results = el('div', {});
  let last = null;
  const form = el('form', { class: 'inline', id: 'msg-form' },
    el('label', {}, 'Topic', topicInput, names), el('label', {}, 'Partition', partition), el('label', {}, 'From offset', offset),
    el('label', {}, 'or from time (UTC)', when), el('label', {}, 'Key', el('span', {}, match, keyFilter)), el('label', {}, 'Show as', format),
    el('button', { class: 'primary', id: 'msg-load', type: 'submit' }, 'Load'));
  function draw() {
    if (!last) return;
    const f = format.value;
    results.replaceChildren(
      el('p', { class: 'muted', id: 'msg-range' }, `Partition ${last.partition}: log start ${last.log_start_offset}, high watermark ${last.high_watermark}; showing ${last.records.length} from offset ${last.offset}.`),
      last.key_filter === undefined ? '' : el('p', { class: 'muted', id: 'msg-scanned' },
        `Key ${last.match === 'contains' ? 'contains' : 'is'} "${last.key_filter}": scanned ${number(last.scanned)} records (offsets ${last.offset} to ${last.next_offset - 1}), ${last.records.length} matched.`),
      table('records', [{ label: 'Offset', num: true }, 'Timestamp', 'Key', 'Value', 'Headers'],
        last.records.map((r) => el('tr', { 'data-offset': r.offset },
          el('td', { class: 'num' }, r.offset),
          el('td', {}, time(r.timestamp)),
          el('td', { class: 'key' }, shown(r.key, f)),
          el('td', { class: 'value' }, shown(r.value, f)),
          el('td', { class: 'headers' }, r.headers.map((h) => el('div', { class: 'header' }, el('b', {}, h.key), ': ', shown(h.value, f))))))),
      el('div', { class: 'pager' }, el('button', { type: 'button', id: 'msg-next', disabled: last.next_offset >= last.high_watermark, onclick: () => { offset.value = last.next_offset; when.value = ''; load(); } },
        last.key_filter === undefined ? 'Next page ›' : 'Continue scanning ›')));
  }
  async function load() {
    if (!topicInput.value) return;
    const params = { partition: partition.value, limit: 20 };
    if (offset.value !== '') params.offset = offset.value;
    else if (when.value) params.timestamp = Date.parse(when.value + 'Z');
    if (keyFilter.value !== '') { params.key = keyFilter.value; params.match = match.value; }
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
