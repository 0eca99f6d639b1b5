// The console's shell: hash routes, the error line, the confirmation dialog and auto-refresh.
import * as views from './views.js';

const view = document.getElementById('view');
const errorBox = document.getElementById('error');
const REFRESH_MS = 5000;
let refresh = null;
let timer = null;
let generation = 0;

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

const ctx = {
  params: new URLSearchParams(),
  clusterId(id) {
    document.getElementById('cluster-id').textContent = id ? `cluster ${id}` : '';
  },
  notice(message) {
    showError('');
    const note = document.createElement('p');
    note.className = 'notice';
    note.id = 'notice';
    note.textContent = message;
    document.getElementById('notice')?.remove();
    view.before(note);
    setTimeout(() => note.remove(), 6000);
  },
  async guard(action) {
    try {
      showError('');
      await action();
    } catch (e) {
      showError(e.message);
    }
  },
  reload() {
    route();
  },
  /** Resolves true when the operator confirms in the page's dialog. */
  confirm(text) {
    const dialog = document.getElementById('confirm');
    document.getElementById('confirm-text').textContent = text;
    dialog.hidden = false;
    return new Promise((resolve) => {
      const yes = document.getElementById('confirm-yes');
      const no = document.getElementById('confirm-no');
      const done = (answer) => {
        dialog.hidden = true;
        yes.onclick = null;
        no.onclick = null;
        resolve(answer);
      };
      yes.onclick = () => done(true);
      no.onclick = () => done(false);
    });
  },
};

async function route() {
  const mine = ++generation;
  clearInterval(timer);
  refresh = null;
  showError('');
  const hash = location.hash.replace(/^#\/?/, '') || 'overview';
  const [path, search] = hash.split('?');
  ctx.params = new URLSearchParams(search || '');
  const [page, arg] = path.split('/').map(decodeURIComponent);
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.classList.toggle('active', a.dataset.nav === page);
  }
  try {
    let next = null;
    if (page === 'overview') next = await views.overview(view, ctx);
    else if (page === 'topics' && arg) next = await views.topic(view, ctx, arg);
    else if (page === 'topics') next = await views.topics(view, ctx);
    else if (page === 'groups' && arg) next = await views.group(view, ctx, arg);
    else if (page === 'groups') next = await views.groups(view, ctx);
    else if (page === 'messages') next = await views.messages(view, ctx);
    else if (page === 'transactions') next = await views.transactions(view, ctx);
    else view.textContent = 'No such page.';
    if (mine === generation && next) {
      refresh = next;
      timer = setInterval(() => refresh().catch((e) => showError(e.message)), REFRESH_MS);
    }
    document.body.dataset.page = page;
    // When the page's data is on it, from the navigation's start (the scale test reads it).
    performance.mark(`rendered:${page}`);
  } catch (e) {
    showError(e.message);
  }
}

window.addEventListener('hashchange', route);
route();
