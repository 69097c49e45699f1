// The viewer: a hash router over four views (sessions, session, search, stats), keyboard
// navigation and the theme switch. Data comes from /api/v1/web (see api.js).
import { get, hasKey, post, setKey, Unauthorized } from './api.js';
import { barChart, timeChart } from './charts.js';
import { renderEntry } from './render.js';
import {
  fmtCost,
  fmtTime,
  fmtTokens,
  h,
  highlighted,
  localDayBound,
  retryBox,
  shortIdBeside,
  shortIds,
  shortPath,
} from './util.js';
import { PagedList } from './virtual.js';

const PAGE = 100;
/** How often an open session list looks for sessions written since it was drawn. */
const LIST_REFRESH_MS = 5000;
/** Search hits shown at most; past them the page says there are more. */
const SEARCH_SHOWN = 100;
const view = document.getElementById('view');
let current = { name: '', cleanup: () => {} };
/** What j/k move over in the current view, and what Enter does with the selection. */
let nav = { items: () => [], open: (_el) => {} };

// ---------------------------------------------------------------- routing

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path, query = ''] = raw.split('?');
  const params = Object.fromEntries(new URLSearchParams(query));
  // a link cut inside an escape (%E0%A4) throws in decodeURIComponent: that part is taken as written,
  // else the page stayed at 'Loading…' (or on the page before) with the error only in the console
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  return { parts, params };
}

export function href(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

/**
 * Counts the routes taken: a view whose data comes after the reader has gone on (back before a long
 * session loaded) draws nothing, instead of replacing the page the address now names.
 */
let routeCount = 0;
const gone = (at) => at !== routeCount;

async function route() {
  const at = ++routeCount;
  current.cleanup();
  current = { name: '', cleanup: () => {} };
  nav = { items: () => [], open: () => {} };
  const { parts, params } = parseHash();
  const name = parts[0] ?? 'sessions';
  for (const a of document.querySelectorAll('[data-nav]'))
    a.classList.toggle('active', a.dataset.nav === (name === 'session' ? 'sessions' : name));
  // the header's search box shows the query being looked at, not one from a page left behind
  const quick = document.getElementById('quick-search-input');
  if (document.activeElement !== quick) quick.value = name === 'search' ? (params.q ?? '') : '';
  try {
    if (name === 'session' && parts[1]) await sessionView(parts[1], params);
    else if (name === 'search') await searchView(params);
    else if (name === 'stats') await statsView(params);
    else await listView(params);
  } catch (err) {
    if (gone(at)) return;
    if (err instanceof Unauthorized) keyForm();
    else
      view.replaceChildren(
        h(
          'div',
          { class: 'error-box' },
          h('h2', {}, 'Something went wrong'),
          h('p', {}, String(err.message ?? err)),
          candidatesList(err.body?.candidates),
        ),
      );
  }
}

/**
 * The agent that recorded a session (the server's `agent`: a pushed session's original one), its store
 * said on hover where they differ: a team server's sessions are all stored as threadbase's own.
 */
function agentBadge(agent, source) {
  const shown = agent || source;
  return h(
    'span',
    { class: `agent agent-${shown}`, ...(shown !== source ? { title: `${shown}, stored by ${source}` } : {}) },
    shown,
  );
}

/** The sessions a prefix of several names ('source:id', as the API lists them), each a link to pick it by. */
function candidatesList(candidates) {
  if (!Array.isArray(candidates) || !candidates.length) return '';
  return h(
    'ul',
    { class: 'candidates' },
    candidates.map((c) => {
      const id = String(c).slice(String(c).indexOf(':') + 1);
      return h('li', {}, h('a', { class: 'mono', href: href(`/session/${encodeURIComponent(id)}`) }, String(c)));
    }),
  );
}

function keyForm() {
  const input = h('input', {
    type: 'password',
    id: 'api-key',
    placeholder: 'API key',
    autocomplete: 'off',
    'aria-label': 'API key',
  });
  const form = h(
    'form',
    { class: 'key-form' },
    h('h2', {}, 'This server wants a key'),
    // a key was sent and refused: said, else a mistyped key brought back the same form with nothing said
    hasKey()
      ? h(
          'p',
          { class: 'error', id: 'key-refused' },
          'The server refused the key this browser sent (mistyped, revoked, or another server’s).',
        )
      : '',
    h('p', { class: 'muted' }, 'It is kept in this browser only and sent as a Bearer token.'),
    input,
    h('button', { type: 'submit' }, 'Use key'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    setKey(input.value.trim());
    route();
  });
  view.replaceChildren(form);
  input.focus();
}

// ---------------------------------------------------------------- session list

/** since/until of the address (the date fields' days) as the API takes them: the reader's own days as instants. */
const localDays = (params) => ({ since: localDayBound(params.since), until: localDayBound(params.until, true) });

/** The list as last shown (its filters, sort and page), where a session's ← and Esc go back to. */
let listHash = '#/sessions';
/**
 * Where the reader was in the list when they left it: the row (by its session's address) that was
 * selected with j/k or whose link had the focus. Back in the list it is that again, and in view.
 */
let listPlace;

/** The row the reader is at: the j/k selection, else the row whose link has the focus. */
function placeInList() {
  const selected = view.querySelector('tr.row.kb-selected');
  if (selected) return { href: selected.dataset.href, selected: true };
  const focused = document.activeElement?.closest?.('tr.row');
  return focused && view.contains(focused) ? { href: focused.dataset.href, selected: false } : undefined;
}

/** Puts the reader back at `place` (placeInList) when its row is on the page drawn. */
function backInList(place, scroll) {
  const row = place && [...view.querySelectorAll('tr.row')].find((r) => r.dataset.href === place.href);
  if (!row) return;
  if (place.selected) row.classList.add('kb-selected');
  else row.querySelector('.title-cell a')?.focus({ preventScroll: true });
  if (scroll) row.scrollIntoView({ block: 'nearest' });
}

async function listView(params) {
  const at = routeCount;
  listHash = href('/sessions', params);
  const pageSize = 50;
  const page = Math.max(0, Number(params.page ?? 0) || 0);
  const query = { ...params, ...localDays(params), page: undefined, offset: page * pageSize, limit: pageSize };
  const data = await get('/sessions', query);
  if (gone(at)) return;
  drawList(params, page, data);
  backInList(listPlace, true);
  listPlace = undefined;
  // what the agents write meanwhile comes into the list as it is shown (the server's index follows
  // them): looked for every few seconds, and drawn when it changed unless the reader is using the list
  let shown = JSON.stringify(data);
  let asking = false;
  const look = async () => {
    // one question at a time: a slow answer is not asked again under itself
    if (document.hidden || busyInList() || asking) return;
    asking = true;
    const again = await get('/sessions', query).catch(() => undefined);
    asking = false;
    if (!again || gone(at) || busyInList()) return;
    const now = JSON.stringify(again);
    if (now === shown) return;
    shown = now;
    drawList(params, page, again);
  };
  // no timer in a hidden tab (one left open for hours asked nothing but still woke); shown again, it looks at once
  let timer;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const start = () => {
    if (timer === undefined && !document.hidden) timer = setInterval(look, LIST_REFRESH_MS);
  };
  const onVisibility = () => {
    if (document.hidden) stop();
    else {
      look();
      start();
    }
  };
  document.addEventListener('visibilitychange', onVisibility);
  start();
  current.cleanup = () => {
    stop();
    document.removeEventListener('visibilitychange', onVisibility);
    listPlace = placeInList();
  };
}

/** The reader is at work in the list (a field or menu in use, a row picked with j/k): it is not drawn again under them. */
function busyInList() {
  const el = document.activeElement;
  return (el && view.contains(el) && /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) || !!view.querySelector('.kb-selected');
}

/**
 * A filter of the list or the stats page: a select of `values` (each project by its short path) under
 * `label`, the one `params` names chosen; choosing one goes to `go({ [name]: value })`, '' for all.
 */
function filterSelect(params, go, name, label, values) {
  return h(
    'label',
    {},
    label,
    h(
      'select',
      { name, onchange: (e) => go({ [name]: e.target.value }) },
      h('option', { value: '' }, 'all'),
      values.map((v) => h('option', { value: v, selected: params[name] === v }, name === 'project' ? shortPath(v) : v)),
    ),
  );
}

/** The list page `data` (page `page` of the list `params` names): its filters, table and pager. */
/**
 * A session's cost: ≈ when priced from tokens; tokens of a model with no price are in no cost, so a
 * `+` after what could be priced, `—` when that is nothing (as `threadbase stats` shows them).
 */
function costCell(s) {
  const unpriced = s.unpricedModels ?? [];
  const notes = [
    s.costEstimated ? 'priced from tokens (the agent recorded no cost)' : '',
    unpriced.length ? `not in the cost: tokens of ${unpriced.join(', ')} (no cost recorded, no price known)` : '',
  ].filter(Boolean);
  const text =
    s.cost === null || s.cost === undefined
      ? unpriced.length
        ? '—'
        : ''
      : `${s.costEstimated ? '≈' : ''}${fmtCost(s.cost)}${unpriced.length ? '+' : ''}`;
  return h('td', { class: 'num', title: notes.join('; ') }, text);
}

function drawList(params, page, data) {
  // a row link with the focus keeps it as the list is drawn anew (it fell to the page every time a session came in)
  const place = placeInList();
  const go = (changes) => {
    location.hash = href('/sessions', { ...params, page: undefined, ...changes });
  };
  const dateInput = (name, label) =>
    h(
      'label',
      {},
      label,
      h('input', { type: 'date', name, value: params[name] ?? '', onchange: (e) => go({ [name]: e.target.value }) }),
    );
  const text = h('input', {
    type: 'search',
    name: 'text',
    value: params.text ?? '',
    placeholder: 'title, id or project',
    'aria-label': 'filter by title',
  });
  text.addEventListener('change', () => go({ text: text.value }));
  const sort = params.sort ?? 'updated';
  const order = params.order ?? (sort === 'title' ? 'asc' : 'desc');
  const filters = h(
    'form',
    { class: 'filters', onsubmit: (e) => e.preventDefault() },
    filterSelect(params, go, 'source', 'Agent', data.facets.sources),
    filterSelect(params, go, 'project', 'Project', data.facets.projects),
    filterSelect(params, go, 'model', 'Model', data.facets.models),
    dateInput('since', 'From'),
    dateInput('until', 'To'),
    h('label', {}, 'Filter', text),
    h(
      'label',
      {},
      'Sort',
      h(
        'select',
        { name: 'sort', onchange: (e) => go({ sort: e.target.value, order: undefined }) },
        ['updated', 'created', 'messages', 'tokens', 'cost', 'title'].map((s) =>
          h('option', { value: s, selected: s === sort }, s),
        ),
      ),
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'icon-button',
        title: 'reverse order',
        onclick: () => go({ order: order === 'asc' ? 'desc' : 'asc' }),
      },
      order === 'asc' ? '↑' : '↓',
    ),
  );
  const header = (label, key) =>
    h(
      'th',
      { class: key === sort ? 'sorted' : '' },
      h(
        'a',
        {
          href: href('/sessions', {
            ...params,
            page: undefined,
            sort: key,
            order: key === sort && order === 'desc' ? 'asc' : 'desc',
          }),
        },
        label,
      ),
    );
  const rows = data.sessions.map((s) =>
    h(
      'tr',
      { class: 'row', dataset: { href: href(`/session/${encodeURIComponent(s.id)}`) } },
      h(
        'td',
        { class: 'title-cell' },
        h('a', { href: href(`/session/${encodeURIComponent(s.id)}`), dir: 'auto' }, s.title || '(untitled)'),
        h('div', { class: 'muted small mono' }, s.id, s.parentId ? ` · from ${shortIdBeside(s.parentId, s.id)}` : ''),
      ),
      h('td', {}, agentBadge(s.agent, s.source)),
      h('td', { class: 'small', title: s.project ?? '' }, shortPath(s.project)),
      h('td', { class: 'small' }, s.models.join(', ')),
      h('td', { class: 'small nowrap' }, fmtTime(s.updatedAt)),
      h('td', { class: 'num' }, s.messageCount.toLocaleString()),
      h('td', { class: 'num' }, fmtTokens(s.tokens)),
      costCell(s),
    ),
  );
  const filtered = ['source', 'project', 'model', 'since', 'until', 'text'].some((k) => params[k]);
  const from = data.offset + 1;
  const to = data.offset + data.sessions.length;
  // no sessions at all, or none past the end of the list: said so, rather than '0–0 of 0'
  const empty = !data.total
    ? h(
        'div',
        { class: 'empty-list' },
        filtered ? 'No sessions match these filters. ' : 'No sessions: none of the agents’ stores holds one yet.',
        filtered && h('a', { href: href('/sessions', { sort: params.sort, order: params.order }) }, 'Show all sessions'),
      )
    : !data.sessions.length
      ? h(
          'div',
          { class: 'empty-list' },
          `No sessions on this page: there are ${data.total.toLocaleString()}. `,
          h('a', { href: href('/sessions', { ...params, page: undefined }) }, 'First page'),
        )
      : null;
  const pager = data.total
    ? h(
        'div',
        { class: 'pager' },
        h('button', { type: 'button', disabled: page === 0, onclick: () => go({ ...params, page: page - 1 }) }, '← newer'),
        h(
          'span',
          { class: 'muted' },
          data.sessions.length ? `${from}–${to} of ${data.total.toLocaleString()}` : `none of ${data.total.toLocaleString()}`,
        ),
        h('button', { type: 'button', disabled: to >= data.total, onclick: () => go({ ...params, page: page + 1 }) }, 'older →'),
      )
    : null;
  view.replaceChildren(
    h('h1', {}, 'Sessions'),
    filters,
    h(
      'table',
      { class: 'sessions' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          header('Title', 'title'),
          h('th', {}, 'Agent'),
          h('th', {}, 'Project'),
          h('th', {}, 'Model'),
          header('Updated', 'updated'),
          header('Msgs', 'messages'),
          header('Tokens', 'tokens'),
          header('Cost', 'cost'),
        ),
      ),
      h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 8, class: 'muted' }, empty))),
    ),
    // replaceChildren would write a null as the text 'null'
    ...(pager ? [pager] : []),
  );
  nav = { items: () => [...view.querySelectorAll('tr.row')], open: (el) => (location.hash = el.dataset.href) };
  for (const r of rows)
    r.addEventListener('click', (e) => {
      if (e.target.tagName !== 'A') location.hash = r.dataset.href;
    });
  backInList(place, false);
}

// ---------------------------------------------------------------- one session

async function sessionView(given, params) {
  const at = routeCount;
  // `given` may be a unique prefix of the id (as the CLI takes it): the routes resolve it
  const [head, meta, first] = await Promise.all([
    get(`/sessions/${encodeURIComponent(given)}`),
    get('/meta'),
    params.view === 'context'
      ? get(`/sessions/${encodeURIComponent(given)}/context`, { leaf: params.leaf, limit: PAGE })
      : get(`/sessions/${encodeURIComponent(given)}/path`, { leaf: params.leaf, entry: params.entry, limit: PAGE }),
  ]);
  if (gone(at)) return;
  const info = head.info;
  const id = info.id;
  // the address names the session by its whole id from here on (its links, a reload, a bookmark)
  if (id !== given) history.replaceState(null, '', href(`/session/${encodeURIComponent(id)}`, params));
  // a side chain of this session's own file is shown here, at its own leaf; any other child is a session of its own
  const children = (head.children ?? []).map((c) => ({
    ...c,
    href: c.sideChainLeafId
      ? href(`/session/${encodeURIComponent(id)}`, { leaf: c.sideChainLeafId })
      : href(`/session/${encodeURIComponent(c.id)}`),
  }));
  const childByCall = new Map(children.filter((c) => c.parentToolCallId).map((c) => [c.parentToolCallId, c]));
  // 'path': every entry down to the leaf; 'context': the messages a model sees when resumed there
  const mode = params.view === 'context' ? 'context' : 'path';
  const leafId = first.leafId;
  const pages = new Map([[first.offset / PAGE, first]]);
  const scroller = h('div', { class: 'conversation', id: 'conversation', tabindex: '0' });
  const status = h('div', { class: 'status muted small' });
  const treePanel = h('aside', { class: 'tree-panel', id: 'tree-panel', hidden: params.tree === '0' });
  const u = info.usage;
  const title = h(
    'div',
    { class: 'session-head' },
    h('a', { href: listHash, class: 'back', title: 'back to the list (Esc)' }, '←'),
    h(
      'div',
      {},
      h('h1', { dir: 'auto' }, info.title || '(untitled)'),
      h(
        'div',
        { class: 'muted small' },
        agentBadge(head.agent, info.source),
        ' · ',
        h('span', { class: 'mono' }, info.id),
        info.project ? ` · ${info.project}` : '',
        ` · ${fmtTime(info.createdAt)}`,
        ` · ${head.entryCount.toLocaleString()} entries · ${head.branchCount} branch${head.branchCount === 1 ? '' : 'es'}`,
        u ? ` · ${fmtTokens(u.input + u.output + u.cacheRead + u.cacheWrite)} tokens` : '',
        typeof head.cost === 'number' ? ` · ${head.costEstimated ? '≈' : ''}${fmtCost(head.cost)}` : '',
        // tokens of a model the price table does not know are in no cost: said, rather than a cost that looks whole
        head.unpricedModels?.length
          ? h(
              'span',
              { class: 'unpriced', title: 'these responses recorded no cost, and the price table has no price for their model' },
              `${typeof head.cost === 'number' ? ' + ' : ' · '}no price for ${head.unpricedModels.join(', ')}`,
            )
          : '',
        info.parentId
          ? h(
              'span',
              {},
              ' · from ',
              h(
                'a',
                { href: href(`/session/${encodeURIComponent(info.parentId)}`), title: info.parentId },
                shortIdBeside(info.parentId, info.id),
              ),
            )
          : '',
      ),
      childrenLine(children, childByCall),
    ),
  );
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    h(
      'div',
      { class: 'segmented', role: 'group', 'aria-label': 'what to show' },
      h(
        'a',
        {
          id: 'view-path',
          class: mode === 'path' ? 'on' : '',
          href: href(`/session/${encodeURIComponent(id)}`, { leaf: params.leaf }),
        },
        'Conversation',
      ),
      h(
        'a',
        {
          id: 'view-context',
          class: mode === 'context' ? 'on' : '',
          href: href(`/session/${encodeURIComponent(id)}`, { leaf: leafId, view: 'context' }),
        },
        'Model context',
      ),
    ),
    h('button', { type: 'button', id: 'toggle-tree', onclick: () => toggleTree(treePanel) }, 'Tree (t)'),
    h('button', { type: 'button', onclick: () => jump(0) }, 'Start'),
    h('button', { type: 'button', id: 'jump-end', onclick: () => jump(Math.max(0, first.total - 1)) }, 'End'),
    h('button', { type: 'button', onclick: () => expandAll(true) }, 'Expand tools'),
    h('button', { type: 'button', onclick: () => expandAll(false) }, 'Collapse'),
    continueIn(info, meta, leafId),
  );
  const warnings = head.warnings?.length
    ? h(
        'details',
        { class: 'warnings' },
        h('summary', {}, `${head.warnings.length} warning(s) while reading`),
        h(
          'ul',
          {},
          head.warnings.map((w) =>
            h('li', { class: 'mono small' }, `${w.file}${w.line !== undefined ? `:${w.line}` : ''}: ${w.message}`),
          ),
        ),
      )
    : null;
  view.replaceChildren(
    title,
    toolbar,
    warnings ?? '',
    h('div', { class: 'session-body' }, h('div', { class: 'conversation-col' }, scroller, status), treePanel),
  );

  const loadPage = async (index) => {
    let page = pages.get(index);
    if (!page) {
      page = await get(`/sessions/${encodeURIComponent(id)}/${mode}`, { leaf: leafId, offset: index * PAGE, limit: PAGE });
      pages.set(index, page);
    }
    const ctx = {
      toolResults: page.toolResults,
      paired: new Set(page.pairedResultIds),
      pricedCosts: page.pricedCosts ?? {},
      childByCall,
    };
    return page.entries.map((e) => renderEntry(e, ctx));
  };
  let list = new PagedList(scroller, { total: first.total, pageSize: PAGE, loadPage });
  const updateStatus = () => {
    // told apart from the session's id: Continue's and Kilo's entry ids start with it ('<session>:12'),
    // and their first 12 characters named the session, not the leaf
    const at = `${leafId ? shortIdBeside(leafId, id) : '—'}${leafId === head.leafId ? ' (current leaf)' : ''}`;
    status.textContent =
      mode === 'context'
        ? `what the model sees at ${at}${first.model ? ` · ${first.model}` : ''} · ${first.total.toLocaleString()} messages · ${list.liveCount()} in view`
        : `path to ${at} · ${first.total.toLocaleString()} entries · ${list.liveCount()} in view`;
  };
  const jump = async (position, entryId) => {
    list.destroy();
    list = new PagedList(scroller, { total: first.total, pageSize: PAGE, loadPage });
    await list.start(position);
    const el = entryId ? document.getElementById(`e-${entryId}`) : list.liveItems()[position % PAGE];
    if (el) {
      el.scrollIntoView({ block: entryId ? 'center' : 'start' });
      if (entryId) {
        el.classList.add('hit');
        // a hit in what the agent wrote itself: unfold it, the words found are in it
        for (const d of el.querySelectorAll('details.injected')) d.open = true;
      }
      el.focus({ preventScroll: true });
    } else if (position === 0) scroller.scrollTop = 0;
    updateStatus();
  };
  function expandAll(open) {
    for (const d of scroller.querySelectorAll(
      'section.page:not(.parked) details.tool, section.page:not(.parked) details.thinking',
    ))
      d.open = open;
  }
  await jump(first.entryPosition ?? 0, params.entry && first.entryPosition !== null ? params.entry : undefined);
  if (gone(at)) {
    list.destroy();
    return;
  }
  if (first.total === 0) {
    // say so rather than show an empty page (a session whose file could not be read: see its warnings)
    scroller.replaceChildren(
      h(
        'p',
        { class: 'muted empty-session' },
        mode === 'context'
          ? 'The model sees nothing here.'
          : `Nothing to show: this session has no entries${head.warnings?.length ? ' that could be read (see the warnings above)' : ''}.`,
      ),
    );
  }
  const onScroll = () => updateStatus();
  scroller.addEventListener('scroll', onScroll, { passive: true });

  // the tree's failure said in its panel, as a page of the conversation says its own (retryBox)
  const showTree = () =>
    renderTree(treePanel, id, leafId, head.leafId, mode).catch((err) => {
      if (gone(at)) return;
      treePanel.replaceChildren(h('h2', {}, 'Branches'), retryBox('Could not load the branch tree', err, showTree));
    });
  showTree();
  nav = {
    items: () => list.liveItems(),
    open: (el) => {
      const tools = el.querySelectorAll('details');
      const anyClosed = [...tools].some((d) => !d.open);
      for (const d of tools) d.open = anyClosed;
    },
  };
  current.cleanup = () => list.destroy();
}

/**
 * The sessions started from this one: sub-agents (each also linked under the call that ran it) and
 * forks, so the work they did is a click away rather than only in the list.
 */
function childrenLine(children, childByCall) {
  if (!children.length) return '';
  const ranBy = new Set(childByCall.values());
  return h(
    'div',
    { class: 'muted small children-line' },
    'Sessions from this one: ',
    children.map((c, i) => [
      i ? ', ' : '',
      h('a', { href: c.href, title: c.id }, c.title || shortIdBeside(c.id, '')),
      ` (${c.sideChainLeafId ? 'sub-agent, side chain' : ranBy.has(c) ? 'sub-agent' : c.source})`,
    ]),
  );
}

/**
 * Shows the branch tree if it is not on screen, else hides it. Beside the conversation it shows
 * unless hidden; in a narrow window it is off until asked for (`open`), then over the conversation.
 */
function toggleTree(panel) {
  const shown = getComputedStyle(panel).display !== 'none';
  panel.hidden = shown;
  panel.classList.toggle('open', !shown);
}

async function renderTree(panel, id, leafId, currentLeafId, mode) {
  const view = mode === 'context' ? 'context' : undefined;
  const { nodes } = await get(`/sessions/${encodeURIComponent(id)}/tree`);
  const children = new Map();
  for (const n of nodes) {
    const k = n.parentId ?? '';
    if (!children.has(k)) children.set(k, []);
    children.get(k).push(n);
  }
  const onPath = new Set();
  // Nodes on the shown path: walk up from the shown leaf through the folded tree.
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (let n = byId.get(leafId); n; n = byId.get(n.parentId)) onPath.add(n.id);
  const icon = (n) =>
    n.kind === 'compaction'
      ? '⊟'
      : n.kind === 'branch_summary'
        ? '⎇'
        : n.leaf
          ? '●'
          : (children.get(n.id)?.length ?? 0) > 1
            ? '◆'
            : '○';
  const build = (parent) =>
    h(
      'ul',
      {},
      (children.get(parent) ?? []).map((n) => {
        const target = n.leaf
          ? href(`/session/${encodeURIComponent(id)}`, { leaf: n.id, view })
          : href(`/session/${encodeURIComponent(id)}`, { entry: n.id, leaf: onPath.has(n.id) ? leafId : undefined });
        const cls = [
          'node',
          `kind-${n.kind}`,
          n.leaf ? 'leaf' : '',
          n.id === leafId ? 'selected' : '',
          onPath.has(n.id) ? 'on-path' : '',
          n.sidechain ? 'sidechain' : '',
        ].join(' ');
        return h(
          'li',
          {},
          h(
            'a',
            {
              class: cls,
              href: target,
              title: `${n.kind}${n.role ? ` (${n.role})` : ''} · ${n.timestamp}${n.leaf ? ` · ${n.depth} entries` : ''}`,
              dataset: { nodeId: n.id },
            },
            h('span', { class: 'icon' }, icon(n)),
            n.skipped ? h('span', { class: 'skipped' }, `+${n.skipped} `) : '',
            h('span', { class: 'node-label' }, n.label || n.kind),
            n.id === currentLeafId ? h('span', { class: 'badge' }, 'current') : '',
            n.kind === 'compaction' ? h('span', { class: 'badge' }, 'compaction') : '',
          ),
          children.has(n.id) ? build(n.id) : '',
        );
      }),
    );
  const leafCount = nodes.filter((n) => n.leaf && !n.sidechain).length;
  panel.replaceChildren(
    h('h2', {}, `Branches (${leafCount})`),
    h('p', { class: 'muted small' }, 'Pick a leaf ● to see the conversation down that branch.'),
    build(''),
  );
}

/**
 * "Continue in…": on the reader's own machine the server converts the session into the agent's
 * store and shows the command that resumes it; on a team server it shows the `threadbase handoff`
 * command that does both on the reader's machine, reading the session from this server.
 */
function continueIn(info, meta, leafId) {
  const targets = meta.targets ?? [];
  if (!targets.length) return '';
  const handoff = meta.continueMode === 'handoff';
  const sel = h(
    'select',
    { id: 'continue-target', 'aria-label': 'agent to continue in' },
    // Default to another agent than the session's own: that is what "continue in" is for.
    targets.map((t) => h('option', { value: t, selected: t === targets.find((x) => x !== info.source) }, t)),
  );
  const out = h('div', { class: 'continue-out', id: 'continue-out', hidden: true });
  const btn = h(
    'button',
    { type: 'button', id: 'continue-button', title: handoff ? 'get the command to run on your machine' : undefined },
    'Continue in…',
  );
  const commandLine = (id, cmd) =>
    h(
      'div',
      { class: 'command-line' },
      h('code', { id }, cmd),
      h('button', { type: 'button', class: 'small-button', onclick: () => navigator.clipboard?.writeText(cmd) }, 'copy'),
    );
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    out.hidden = false;
    out.replaceChildren(h('span', { class: 'muted' }, handoff ? 'preparing the command…' : `converting into ${sel.value}…`));
    try {
      const r = await post(`/sessions/${encodeURIComponent(info.id)}/convert`, {
        to: sel.value,
        leaf: leafId ?? undefined,
        origin: location.origin,
      });
      if (r.mode === 'handoff') {
        out.replaceChildren(
          h(
            'div',
            {},
            `Run this on your machine to write the session into ${r.source} there and get the command that resumes it`,
            h('span', { class: 'muted small' }, ` (with your key in ${r.keyVariable}):`),
          ),
          commandLine('handoff-command', r.command),
        );
        return;
      }
      const cmd = r.command ?? `(${r.source} has no resume command)`;
      out.replaceChildren(
        h(
          'div',
          {},
          `Wrote ${r.source} session `,
          h('span', { class: 'mono' }, r.id),
          r.path ? h('span', { class: 'muted small' }, ` at ${r.path}`) : '',
        ),
        commandLine('resume-command', cmd),
        subAgentsWritten(r.children ?? []),
        r.warnings?.length
          ? h(
              'ul',
              { class: 'small muted' },
              r.warnings.map((w) => h('li', {}, w)),
            )
          : '',
      );
    } catch (err) {
      out.replaceChildren(h('span', { class: 'error' }, String(err.message ?? err)));
    } finally {
      btn.disabled = false;
    }
  });
  return h('div', { class: 'continue' }, sel, btn, out);
}

/** The sub-agent sessions "Continue in…" wrote under the written session (and theirs under them). */
function subAgentsWritten(children) {
  if (!children.length) return '';
  const item = (c) =>
    h(
      'li',
      {},
      `sub-agent ${c.source} session `,
      h('span', { class: 'mono' }, c.id),
      c.path ? h('span', { class: 'muted small' }, ` at ${c.path}`) : '',
      c.children?.length ? h('ul', {}, c.children.map(item)) : '',
    );
  return h('ul', { class: 'sub-agents-written small' }, children.map(item));
}

// ---------------------------------------------------------------- search

async function searchView(params) {
  const q = params.q ?? '';
  const input = h('input', {
    type: 'search',
    id: 'search-input',
    value: q,
    placeholder: 'words to find in every session',
    'aria-label': 'search',
  });
  const form = h('form', { class: 'search-form', role: 'search' }, input, h('button', { type: 'submit' }, 'Search'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = href('/search', { ...params, q: input.value });
  });
  view.replaceChildren(h('h1', {}, 'Search'), form, h('p', { class: 'muted' }, q ? 'Searching…' : 'Type words and press Enter.'));
  if (!q.trim()) {
    input.focus();
    return;
  }
  // one past what is shown, to tell 'all 100' from 'the first 100 of more'
  const at = routeCount;
  const { hits: found, scanned } = await get('/search', {
    q,
    source: params.source,
    project: params.project,
    limit: SEARCH_SHOWN + 1,
  });
  if (gone(at)) return;
  const more = found.length > SEARCH_SHOWN;
  const hits = found.slice(0, SEARCH_SHOWN);
  const idShown = shortIds(hits.map((hit) => hit.sessionId));
  const results = hits.map((hit) =>
    h(
      'li',
      { class: 'hit-row', dataset: { href: href(`/session/${encodeURIComponent(hit.sessionId)}`, { entry: hit.entryId }) } },
      h(
        'a',
        { class: 'hit-link', href: href(`/session/${encodeURIComponent(hit.sessionId)}`, { entry: hit.entryId }) },
        h('div', { class: 'hit-title', dir: 'auto' }, hit.title || '(untitled)'),
        h(
          'div',
          { class: 'hit-head small' },
          agentBadge(hit.agent, hit.source),
          ` ${hit.role ?? ''} · `,
          // the whole id on hover; a cut one says so ('…'), else a cut id read as the whole one
          h('span', { class: 'mono hit-id', title: hit.sessionId }, idShown.get(hit.sessionId)),
          hit.project ? ` · ${shortPath(hit.project)}` : '',
          ` · ${fmtTime(hit.timestamp)}`,
        ),
        h('div', { class: 'snippet', dir: 'auto' }, highlighted(hit.snippet, q)),
      ),
    ),
  );
  view.replaceChildren(
    h('h1', {}, 'Search'),
    form,
    h(
      'p',
      { class: 'muted', id: 'hit-count' },
      more
        ? `The first ${SEARCH_SHOWN} hits for “${q}”: there are more. Add words to narrow the search.`
        : `${hits.length} hit${hits.length === 1 ? '' : 's'} for “${q}”`,
    ),
    // a store with no index is searched in its most recent sessions only: said, not left to be believed whole
    scanned && scanned.searched < scanned.of
      ? h(
          'p',
          { class: 'muted small', id: 'search-scope' },
          `Searched the ${scanned.searched.toLocaleString()} most recently updated of ${scanned.of.toLocaleString()} sessions: there is no index to search them all (threadbase sync makes one).`,
        )
      : '',
    h('ol', { class: 'hits' }, results),
  );
  nav = { items: () => [...view.querySelectorAll('li.hit-row')], open: (el) => (location.hash = el.dataset.href) };
}

// ---------------------------------------------------------------- stats

/** The browser's time zone (an IANA name), or undefined where it names none. */
function readerTimeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

async function statsView(params) {
  const at = routeCount;
  // the chart's days are the reader's, as the From and To days are (the server and its store count them in tz)
  const tz = readerTimeZone();
  const [stats, list] = await Promise.all([
    get('/stats', { ...params, ...localDays(params), tz }),
    get('/sessions', { limit: 1 }),
  ]);
  if (gone(at)) return;
  const t = stats.totals;
  const go = (changes) => (location.hash = href('/stats', { ...params, ...changes }));
  const card = (label, value, sub) =>
    h(
      'div',
      { class: 'card' },
      h('div', { class: 'card-label' }, label),
      h('div', { class: 'card-value' }, value),
      sub ? h('div', { class: 'muted small' }, sub) : '',
    );
  view.replaceChildren(
    h('h1', {}, 'Usage'),
    h(
      'form',
      { class: 'filters', onsubmit: (e) => e.preventDefault() },
      filterSelect(params, go, 'source', 'Agent', list.facets.sources),
      filterSelect(params, go, 'project', 'Project', list.facets.projects),
    ),
    h(
      'div',
      { class: 'cards' },
      // ≈ as the list and the export mark a cost priced from tokens, in part or whole
      card(
        'Cost',
        `${stats.estimatedCost > 1e-12 ? '≈' : ''}${fmtCost(t.cost)}`,
        stats.estimatedCost > 1e-12
          ? stats.estimatedCost >= t.cost - 1e-12
            ? 'priced from tokens (the agents recorded no cost)'
            : `${fmtCost(stats.estimatedCost)} of it priced from tokens (the agents recorded no cost)`
          : '',
      ),
      card(
        'Tokens',
        fmtTokens(t.input + t.output + t.cacheRead + t.cacheWrite),
        `in ${fmtTokens(t.input)} · out ${fmtTokens(t.output)} · cache ${fmtTokens(t.cacheRead + t.cacheWrite)}`,
      ),
      card('Responses', t.responses.toLocaleString()),
      card('Sessions', stats.sessions.toLocaleString()),
    ),
    // a browser that names no zone gets UTC days: the caption says so
    timeChart(stats.byDay, { zone: stats.dayZone && stats.dayZone !== tz ? stats.dayZone : undefined }),
    h(
      'div',
      { class: 'chart-grid' },
      barChart('By model', stats.byModel, { cut: 'end' }),
      barChart('By project', stats.byProject),
      barChart('By agent', stats.bySource),
    ),
  );
}

// ---------------------------------------------------------------- keyboard, theme

/**
 * Moves the keyboard selection. It is the element marked .kb-selected, not an index: in a long
 * session pages come and go above it, which would shift any index.
 */
function move(delta) {
  const items = nav.items();
  if (!items.length) return;
  const current = view.querySelector('.kb-selected');
  const at = current ? items.indexOf(current) : -1;
  let next;
  if (at >= 0) next = Math.max(0, Math.min(items.length - 1, at + delta));
  else {
    // nothing selected (or it scrolled out of the document): start from what is on screen
    const onScreen = items.filter((el) => {
      const r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < innerHeight;
    });
    const pick = delta > 0 ? onScreen[0] : onScreen[onScreen.length - 1];
    next = pick ? items.indexOf(pick) : delta > 0 ? 0 : items.length - 1;
  }
  current?.classList.remove('kb-selected');
  const el = items[next];
  el.classList.add('kb-selected');
  el.scrollIntoView({ block: 'nearest' });
}

let pendingG = false;
document.addEventListener('keydown', (e) => {
  // the help dialog open: its Esc closes it (and only it: it also left the session), other keys are not shortcuts
  if (document.querySelector('dialog[open]')) return;
  const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName);
  if (e.key === 'Escape') {
    // the tree opened over the conversation (a narrow window): Esc closes it, as it closes the help; it left the session
    const overTree = document.querySelector('.tree-panel.open');
    if (overTree && getComputedStyle(overTree).position === 'absolute') {
      toggleTree(overTree);
      document.getElementById('toggle-tree')?.focus();
    } else if (typing) e.target.blur();
    else if (location.hash.startsWith('#/session/')) location.hash = listHash;
    return;
  }
  if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
  if (pendingG) {
    pendingG = false;
    if (e.key === 's') location.hash = '#/sessions';
    else if (e.key === 't') location.hash = '#/stats';
    return;
  }
  switch (e.key) {
    case '/':
      e.preventDefault();
      document.getElementById('quick-search-input').focus();
      break;
    case 'j':
    case 'ArrowDown':
      // arrows select rows and messages as j/k do (the list scrolls to keep the selection in view)
      e.preventDefault();
      move(1);
      break;
    case 'k':
    case 'ArrowUp':
      e.preventDefault();
      move(-1);
      break;
    case 'Enter': {
      const el = view.querySelector('.kb-selected');
      if (el) nav.open(el);
      break;
    }
    case 't': {
      const p = document.getElementById('tree-panel');
      if (p) toggleTree(p);
      break;
    }
    case 'd':
      toggleTheme();
      break;
    case 'g':
      pendingG = true;
      break;
    case '?':
      document.getElementById('help').showModal();
      break;
  }
});

function applyTheme(theme) {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}
function toggleTheme() {
  const dark = document.documentElement.dataset.theme
    ? document.documentElement.dataset.theme === 'dark'
    : matchMedia('(prefers-color-scheme: dark)').matches;
  const next = dark ? 'light' : 'dark';
  localStorage.setItem('threadbase.theme', next);
  applyTheme(next);
}
applyTheme(localStorage.getItem('threadbase.theme'));
document.getElementById('theme-toggle').addEventListener('click', toggleTheme);
document.getElementById('help-toggle').addEventListener('click', () => document.getElementById('help').showModal());
document.getElementById('quick-search').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = document.getElementById('quick-search-input');
  location.hash = href('/search', { q: input.value });
  input.blur();
});

window.addEventListener('hashchange', route);
route();
