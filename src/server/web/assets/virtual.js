// A virtualised list for long conversations: entries arrive in fixed-size pages; only pages near
// the viewport are in the document, pages far away keep their height as an empty box (their nodes
// are set aside, so open tool calls stay open), and pages load on demand in both directions.
import { h, retryBox } from './util.js';

export class PagedList {
  /**
   * @param {HTMLElement} scroller the scrolling element
   * @param {{ total: number, pageSize: number, loadPage: (index: number) => Promise<Node[]> }} opts
   */
  constructor(scroller, opts) {
    this.scroller = scroller;
    this.total = opts.total;
    this.pageSize = opts.pageSize;
    this.loadPage = opts.loadPage;
    this.pages = new Map(); // index → { el, parked: DocumentFragment | null }
    this.first = -1;
    this.last = -1;
    this.loading = false;
    this.topSentinel = h('div', { class: 'sentinel top' });
    this.bottomSentinel = h('div', { class: 'sentinel bottom' });
    this.list = h('div', { class: 'pages' });
    scroller.replaceChildren(this.topSentinel, this.list, this.bottomSentinel);
    const margin = '1200px 0px';
    this.edgeObserver = new IntersectionObserver((items) => this.onEdge(items), { root: scroller, rootMargin: margin });
    this.parkObserver = new IntersectionObserver((items) => this.onPark(items), { root: scroller, rootMargin: '4000px 0px' });
  }

  get pageCount() {
    return Math.ceil(this.total / this.pageSize);
  }

  destroy() {
    this.edgeObserver.disconnect();
    this.parkObserver.disconnect();
    this.pages.clear();
  }

  /** Shows the page holding item `position` (and scrolls to it), loading neighbours as needed. */
  async start(position = 0) {
    const index = Math.min(Math.max(0, Math.floor(position / this.pageSize)), Math.max(0, this.pageCount - 1));
    if (this.pageCount === 0) return;
    try {
      await this.append(index);
    } catch (err) {
      this.failed(err, 'bottom', () => this.start(position));
      return;
    }
    this.edgeObserver.observe(this.topSentinel);
    this.edgeObserver.observe(this.bottomSentinel);
  }

  async append(index) {
    const nodes = await this.loadPage(index);
    const el = h('section', { class: 'page', dataset: { page: String(index) } }, nodes);
    this.list.append(el);
    this.pages.set(index, { el, parked: null });
    if (this.first < 0) this.first = index;
    this.last = index;
    this.parkObserver.observe(el);
  }

  async prepend(index) {
    const nodes = await this.loadPage(index);
    const el = h('section', { class: 'page', dataset: { page: String(index) } }, nodes);
    // Keep what the reader looks at still while content grows above it.
    const before = this.scroller.scrollHeight;
    const top = this.scroller.scrollTop;
    this.list.prepend(el);
    this.scroller.scrollTop = top + (this.scroller.scrollHeight - before);
    this.pages.set(index, { el, parked: null });
    this.first = index;
    this.parkObserver.observe(el);
  }

  async onEdge(items) {
    if (this.loading) return;
    for (const it of items) {
      if (!it.isIntersecting) continue;
      this.loading = true;
      try {
        if (it.target === this.bottomSentinel && this.last + 1 < this.pageCount) await this.append(this.last + 1);
        else if (it.target === this.topSentinel && this.first > 0) await this.prepend(this.first - 1);
      } catch (err) {
        // not again on its own: the reader is told, and asks again
        this.failed(err, it.target === this.topSentinel ? 'top' : 'bottom', () => this.recheck());
        return;
      } finally {
        this.loading = false;
      }
      // The sentinel may still be in range after one page: look again.
      requestAnimationFrame(() => this.recheck());
      return;
    }
  }

  /**
   * A page that did not load (the session deleted meanwhile, the server gone) is said where it would
   * be, with a button to try again; the list ended there with nothing said, the error in the console.
   */
  failed(err, where, retry) {
    const place = where === 'top' ? 'top' : 'bottom';
    this.errors?.[place]?.remove();
    const box = retryBox('Could not load these entries', err, retry, place);
    this.errors = { ...this.errors, [place]: box };
    if (place === 'top') this.list.before(box);
    else this.list.after(box);
  }

  recheck() {
    this.edgeObserver.unobserve(this.topSentinel);
    this.edgeObserver.unobserve(this.bottomSentinel);
    this.edgeObserver.observe(this.topSentinel);
    this.edgeObserver.observe(this.bottomSentinel);
  }

  onPark(items) {
    for (const it of items) {
      const index = Number(it.target.dataset.page);
      const page = this.pages.get(index);
      if (!page) continue;
      if (!it.isIntersecting && !page.parked) {
        const height = page.el.getBoundingClientRect().height;
        const frag = document.createDocumentFragment();
        frag.append(...page.el.childNodes);
        page.parked = frag;
        page.el.style.height = `${height}px`;
        page.el.classList.add('parked');
      } else if (it.isIntersecting && page.parked) {
        page.el.append(page.parked);
        page.parked = null;
        page.el.style.height = '';
        page.el.classList.remove('parked');
      }
    }
  }

  /** Live (not parked) item elements in document order. */
  liveItems() {
    return [...this.list.querySelectorAll('section.page:not(.parked) > .entry')];
  }

  /** How many items are in the document right now (for tests and the status line). */
  liveCount() {
    return this.liveItems().length;
  }
}
