// One entry of a conversation as DOM: messages with their parts, tool calls folded with input
// and output (diffs as diffs), thinking folded, images inline, compactions and summaries marked.
// readable-json.js is no file here: the server makes it from src/export/readable-json.ts, which the HTML export uses too

// declined.js, image-data.js and local-command.js too: made from src/convert/declined.ts,
// src/convert/image-data.ts and src/formats/claude/local-command.ts, which the export uses
import { declinedMarkOf, declinedWords } from './declined.js';
import { recordedImage } from './image-data.js';
import { localCommand } from './local-command.js';
import { readableJson } from './readable-json.js';
import { fmtCost, fmtTime, fmtTokens, h } from './util.js';

const MAX_TEXT = 20000;

/** Text longer than MAX_TEXT is cut, with a button that shows the rest. */
function longText(text, cls) {
  const pre = h('pre', { class: cls });
  if (text.length <= MAX_TEXT) {
    pre.textContent = text;
    return pre;
  }
  pre.textContent = text.slice(0, MAX_TEXT);
  const more = h('button', { type: 'button', class: 'link-button' }, `show all ${text.length.toLocaleString()} characters`);
  more.addEventListener('click', () => {
    pre.textContent = text;
    more.remove();
  });
  return h('div', {}, pre, more);
}

/** Message text: fenced code blocks as <pre>, the rest as wrapped text. */
function textBlock(text) {
  const box = h('div', { class: 'text' });
  const pieces = text.split(/^```[^\n]*\n?/m);
  pieces.forEach((piece, i) => {
    if (!piece) return;
    if (i % 2 === 1) box.append(longText(piece.replace(/\n$/, ''), 'code'));
    else box.append(h('div', { class: 'prose' }, piece.length > MAX_TEXT ? longText(piece, 'prose-long') : piece));
  });
  return box;
}

function looksLikeDiff(text) {
  if (typeof text !== 'string') return false;
  if (text.includes('*** Begin Patch')) return true;
  if (!/^(@@ |--- |\+\+\+ )/m.test(text)) return false;
  let changed = 0;
  for (const line of text.split('\n', 2000)) if (/^[+-](?![+-]{2} )/.test(line)) changed++;
  return changed >= 1;
}

const MAX_DIFF_LINES = 5000;

function diffLine(line) {
  let cls = 'ctx';
  if (/^(\+\+\+|---) /.test(line) || line.startsWith('*** ')) cls = 'file';
  else if (line.startsWith('@@')) cls = 'hunk';
  else if (line.startsWith('+')) cls = 'add';
  else if (line.startsWith('-')) cls = 'del';
  return h('span', { class: `dl ${cls}` }, `${line}\n`);
}

/**
 * A unified diff (or apply_patch text) with added, removed and hunk lines marked. Past
 * MAX_DIFF_LINES a button shows the rest, as longText's does: the lines past it could not be seen.
 */
export function diffView(text) {
  const pre = h('pre', { class: 'diff' });
  const lines = text.split('\n');
  // one at a time: spread into append, a diff of 100k lines or more overflows the call's arguments
  for (const line of lines.slice(0, MAX_DIFF_LINES)) pre.append(diffLine(line));
  if (lines.length <= MAX_DIFF_LINES) return pre;
  const more = h(
    'button',
    { type: 'button', class: 'link-button' },
    `show ${(lines.length - MAX_DIFF_LINES).toLocaleString()} more lines`,
  );
  more.addEventListener('click', () => {
    for (const line of lines.slice(MAX_DIFF_LINES)) pre.append(diffLine(line));
    more.remove();
  });
  return h('div', {}, pre, more);
}

/** old → new as a diff: common leading and trailing lines as context, the middle as -/+. */
function replaceDiff(oldText, newText, file) {
  const a = String(oldText ?? '').split('\n');
  const b = String(newText ?? '').split('\n');
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let post = 0;
  while (post < a.length - pre && post < b.length - pre && a[a.length - 1 - post] === b[b.length - 1 - post]) post++;
  const out = [];
  if (file) out.push(`--- ${file}`, `+++ ${file}`);
  out.push(`@@ -${pre + 1},${a.length - pre - post} +${pre + 1},${b.length - pre - post} @@`);
  for (const l of a.slice(Math.max(0, pre - 3), pre)) out.push(` ${l}`);
  for (const l of a.slice(pre, a.length - post)) out.push(`-${l}`);
  for (const l of b.slice(pre, b.length - post)) out.push(`+${l}`);
  for (const l of a.slice(a.length - post, a.length - post + 3)) out.push(` ${l}`);
  return diffView(out.join('\n'));
}

/** The input of a tool call: edits and patches as diffs, anything else as JSON. */
function toolInputView(input) {
  const file = input.file_path ?? input.filePath ?? input.path;
  if (typeof input.old_string === 'string' && typeof input.new_string === 'string')
    return replaceDiff(input.old_string, input.new_string, file);
  if (typeof input.oldString === 'string' && typeof input.newString === 'string')
    return replaceDiff(input.oldString, input.newString, file);
  if (Array.isArray(input.edits) && input.edits.every((e) => e && typeof e.old_string === 'string')) {
    return h(
      'div',
      {},
      input.edits.map((e) => replaceDiff(e.old_string, e.new_string, file)),
    );
  }
  for (const k of ['patch', 'input', 'diff']) if (looksLikeDiff(input[k])) return diffView(input[k]);
  if (typeof input.command === 'string' && Object.keys(input).every((k) => ['command', 'description', 'timeout'].includes(k))) {
    return h('pre', { class: 'code command' }, `$ ${input.command}`);
  }
  return longText(JSON.stringify(input, null, 2), 'code json');
}

/** Tool output: a diff as a diff, JSON with multi-line strings readable (readableJson), else as it is. */
function outputText(text) {
  if (looksLikeDiff(text)) return diffView(text);
  const readable = readableJson(text);
  if (readable === undefined) return longText(text, 'code output');
  return h(
    'div',
    { class: 'readable-json' },
    longText(readable, 'code output'),
    h('details', { class: 'as-recorded' }, h('summary', {}, 'as recorded (JSON)'), longText(text, 'code output')),
  );
}

function resultContentView(content) {
  if (typeof content === 'string') return outputText(content);
  return h(
    'div',
    {},
    content.map((c) => {
      if (c.type === 'text') return outputText(c.text);
      if (c.type === 'image') return imageView(c);
      return fileView(c);
    }),
  );
}

function summaryOfInput(input) {
  for (const k of ['command', 'file_path', 'filePath', 'path', 'pattern', 'url', 'query', 'description', 'prompt']) {
    if (typeof input?.[k] === 'string') return input[k];
  }
  const first = Object.values(input ?? {}).find((v) => typeof v === 'string');
  return typeof first === 'string' ? first : '';
}

const BADGES = { pending: 'no result', provider: 'run by the provider' };

/** A result's badge: a refused or cancelled call (it did not run) says so, with what that means for a screen reader. */
function resultBadge(status) {
  const declined = status === 'refused' || status === 'cancelled';
  return h(
    'span',
    { class: `badge ${status}` },
    BADGES[status] ?? status,
    declined && h('span', { class: 'sr-only' }, `: ${declinedWords(status)}`),
  );
}

/** ok, error, or refused / cancelled: a call that did not run is no failed one. */
const resultStatus = (result) => declinedMarkOf(result) ?? (result.isError ? 'error' : 'ok');

/** The link under a tool call to the sub-agent session it ran (`child`, from the session header's children). */
function subAgentLink(child) {
  return h(
    'a',
    { class: 'sub-agent-link', href: child.href ?? `#/session/${encodeURIComponent(child.id)}`, title: child.id },
    `↳ sub-agent session: ${child.title || child.id}`,
    h('span', { class: 'muted' }, ` · ${child.source} · ${child.messageCount.toLocaleString()} messages →`),
  );
}

function toolCallView(part, result, child) {
  // a call the provider ran itself (codex's web search) has no result to wait for
  const status = !result ? (part.meta?.providerExecuted === true ? 'provider' : 'pending') : resultStatus(result);
  const summaryText = summaryOfInput(part.input).replace(/\s+/g, ' ');
  const details = h(
    'details',
    { class: `tool tool-${status}`, dataset: { callId: part.id } },
    h(
      'summary',
      {},
      h('span', { class: 'tool-name' }, part.name),
      h('span', { class: 'tool-arg' }, summaryText.length > 120 ? `${summaryText.slice(0, 119)}…` : summaryText),
      resultBadge(status),
    ),
  );
  // Built on first open: a 10,000-entry session must not build every tool body up front.
  details.addEventListener('toggle', () => {
    if (!details.open || details.dataset.built) return;
    details.dataset.built = '1';
    details.append(
      h('div', { class: 'tool-section' }, h('div', { class: 'tool-label' }, 'Input'), toolInputView(part.input ?? {})),
    );
    if (result) {
      details.append(
        h(
          'div',
          { class: 'tool-section' },
          h('div', { class: 'tool-label' }, status === 'ok' ? 'Output' : `Output (${status})`),
          resultContentView(result.content),
        ),
      );
    }
  });
  // beside the call, not in its summary: a link there would also fold and unfold the call
  return child ? [details, subAgentLink(child)] : details;
}

/**
 * An image shown smaller than it is (a screenshot in 520 px): a click, Enter or Space shows it as wide
 * as the conversation and as tall as it is, and again back; its text could not be read and there was
 * no way to see it larger (the page's policy lets no data: image open in a tab of its own).
 */
function zoomable(img) {
  const said = (full) =>
    `${img.naturalWidth}×${img.naturalHeight} image: ${full ? 'click to show it smaller' : 'click to show it larger'}`;
  img.classList.add('zoomable');
  img.tabIndex = 0;
  img.setAttribute('role', 'button');
  img.setAttribute('aria-pressed', 'false');
  img.title = said(false);
  const toggle = () => {
    const full = img.classList.toggle('full-size');
    img.setAttribute('aria-pressed', String(full));
    img.title = said(full);
  };
  img.addEventListener('click', toggle);
  img.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    // the page's Enter opens the selected message: not this one
    e.preventDefault();
    e.stopPropagation();
    toggle();
  });
}

function imageView(part) {
  if (!String(part.mediaType ?? '').startsWith('image/')) return fileView(part);
  // data no browser can show (not base64, no bytes, no image kind, cut short) in the exports' words, with no image to fail
  const image = recordedImage(part);
  if (image && !image.ok) return h('div', { class: 'muted image-broken' }, image.said);
  let src = '';
  if (image) src = `data:${image.mediaType};base64,${image.data}`;
  else if (part.url && /^(https?:|data:image\/)/.test(part.url)) src = part.url;
  if (!src) return h('div', { class: 'muted' }, `[image ${part.mediaType}]`);
  const img = h('img', { class: 'inline-image', src, alt: `image (${part.mediaType})`, loading: 'lazy' });
  img.addEventListener('load', () => {
    if (img.naturalWidth > img.clientWidth + 1 || img.naturalHeight > img.clientHeight + 1) zoomable(img);
    if (img.naturalWidth >= 48 || img.naturalHeight >= 48) return;
    img.classList.add('tiny-image');
    img.title = `${img.naturalWidth}×${img.naturalHeight} image, enlarged`;
  });
  // what only the browser can tell (an address that does not load, data it still fails to decode): say so, not a broken-image icon
  img.addEventListener('error', () =>
    img.replaceWith(
      h(
        'div',
        { class: 'muted image-broken' },
        `[image ${part.mediaType} that cannot be shown: its data is damaged or not that type]`,
      ),
    ),
  );
  return img;
}

function fileView(part) {
  const label = `📎 ${part.name ?? 'file'} (${part.mediaType ?? 'unknown type'})`;
  if (part.text) return h('details', { class: 'file' }, h('summary', {}, label), longText(part.text, 'code'));
  return h('div', { class: 'file muted' }, label);
}

/**
 * Stop reasons of a turn that ended as turns do (each agent's words: Claude Code's end_turn and
 * tool_use, pi's stop and toolUse, OpenCode's tool-calls, OpenAI's tool_calls); any other (max_tokens,
 * length, error, aborted…) is shown beside the message.
 */
const ORDINARY_STOPS = new Set(['end_turn', 'stop', 'tool_use', 'toolUse', 'tool-calls', 'tool_calls']);

/**
 * The model, tokens (and its advisor requests') and cost of a message; `priced` is the cost estimated
 * from usage when the agent recorded none; `shownElsewhere`: the message is one record of a response
 * split over several, whose tokens and cost another record shows (the server's usageShownOn).
 */
function usageLine(m, priced, shownElsewhere) {
  const bits = [];
  if (m.model) bits.push(h('span', { class: 'model' }, m.model));
  // no tokens at all is no usage recorded for this message (Zed keeps usage per request, on one of its messages)
  const u = shownElsewhere ? undefined : m.usage;
  const used = !!u && (u.input + u.output + u.cacheRead + u.cacheWrite + (u.reasoning ?? 0) > 0 || (u.advisors?.length ?? 0) > 0);
  if (used) {
    const title = `input ${u.input}, output ${u.output}, cache read ${u.cacheRead}, cache write ${u.cacheWrite}${u.reasoning ? `, reasoning ${u.reasoning}` : ''}`;
    bits.push(
      h(
        'span',
        { class: 'tokens', title },
        `↑${fmtTokens(u.input + u.cacheRead + u.cacheWrite)} ↓${fmtTokens(u.output)}${u.cacheRead ? ` (cache ${fmtTokens(u.cacheRead)})` : ''}`,
      ),
    );
    // requests to an advisor model inside this response, billed under that model (in the cost beside)
    for (const a of u.advisors ?? []) {
      bits.push(
        h(
          'span',
          {
            class: 'advisor',
            title: `advisor ${a.model}: input ${a.input}, output ${a.output}, cache read ${a.cacheRead}, cache write ${a.cacheWrite}`,
          },
          `+ advisor ${a.model} ↑${fmtTokens(a.input + a.cacheRead + a.cacheWrite)} ↓${fmtTokens(a.output)}`,
        ),
      );
    }
  }
  if (typeof m.cost === 'number' && !shownElsewhere) bits.push(h('span', { class: 'cost' }, fmtCost(m.cost)));
  else if (typeof priced === 'number' && used)
    bits.push(
      h(
        'span',
        {
          class: 'cost priced',
          title: 'estimated: this response’s tokens at the price table’s rates (the agent recorded no cost)',
        },
        `≈${fmtCost(priced)}`,
      ),
    );
  if (m.stopReason && !ORDINARY_STOPS.has(m.stopReason)) {
    bits.push(h('span', { class: 'stop' }, m.stopReason));
  }
  return bits;
}

const ROLE_LABEL = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool' };

/**
 * A slash command the user ran in Claude Code and what it printed, which Claude Code records as user
 * text in its own tags (`<command-name>/compact</command-name><command-message>…<command-args>…`,
 * `<local-command-stdout>…`): shown as the command line and its output, as Claude Code shows them.
 */
function localCommandView(m) {
  if (m.role !== 'user' || m.parts.length !== 1 || m.parts[0].type !== 'text') return null;
  const cmd = localCommand(m.parts[0].text);
  if (!cmd) return null;
  if (cmd.kind === 'command') return h('pre', { class: 'code command local-command' }, cmd.text);
  return longText(cmd.text, `code output local-command${cmd.kind === 'stderr' ? ' stderr' : ''}`);
}

/** What a message of empty text alone is said to be (the HTML export says the same). */
function emptyText(role) {
  return role === 'assistant' ? '(no text: the model answered with nothing)' : '(empty message)';
}

function textLength(parts) {
  let n = 0;
  for (const p of parts) if (p.type === 'text') n += p.text.length;
  return n;
}

/**
 * One entry. `ctx.toolResults` maps call ids to results (shown with their calls);
 * `ctx.pricedCosts` estimated costs by entry id;
 * `ctx.paired` holds the result ids whose call is on the path (not shown a second time);
 * `ctx.childByCall` the sub-agent sessions by the id of the call that ran them.
 */
export function renderEntry(entry, ctx) {
  const base = { id: `e-${entry.id}`, dataset: { entryId: entry.id }, tabindex: '-1' };
  switch (entry.kind) {
    case 'message': {
      const m = entry.message;
      const parts = [];
      let hidden = 0;
      for (const p of m.parts) {
        if (p.type === 'text') {
          // text the agent added to the user's turn (OpenCode's and Kilo's synthetic parts: a file it read
          // for an @mention, a reminder), which its own screen does not show as the user's words: folded
          if (p.text && p.meta?.synthetic === true)
            parts.push(
              h(
                'details',
                { class: 'injected synthetic' },
                h('summary', {}, `added by the agent · ${p.text.length.toLocaleString()} characters`),
                textBlock(p.text),
              ),
            );
          else if (p.text) parts.push(textBlock(p.text));
        } else if (p.type === 'thinking') {
          parts.push(
            h(
              'details',
              { class: 'thinking' },
              h('summary', {}, `Thinking · ${p.thinking.length.toLocaleString()} chars`),
              longText(p.thinking, 'prose-long'),
            ),
          );
        } else if (p.type === 'redacted_thinking') parts.push(h('div', { class: 'thinking muted' }, 'Thinking (redacted)'));
        else if (p.type === 'image') parts.push(imageView(p));
        else if (p.type === 'file') parts.push(fileView(p));
        else if (p.type === 'tool_call') parts.push(toolCallView(p, ctx.toolResults[p.id], ctx.childByCall?.get(p.id)));
        else if (p.type === 'tool_result') {
          if (ctx.paired.has(p.callId)) hidden++;
          else {
            const status = resultStatus(p);
            parts.push(
              h(
                'details',
                { class: `tool tool-${status}` },
                h(
                  'summary',
                  {},
                  h('span', { class: 'tool-name' }, `result${p.name ? ` of ${p.name}` : ''}`),
                  h('span', { class: 'tool-arg' }, p.callId),
                  status !== 'ok' && status !== 'error' && resultBadge(status),
                ),
                resultContentView(p.content),
              ),
            );
          }
        }
      }
      // a message of empty text alone (a model that answered with nothing, which Claude Code then asks to go on): said, not an empty box
      if (m.parts.length && m.parts.every((p) => p.type === 'text' && !p.text.trim()))
        parts.splice(0, parts.length, h('div', { class: 'muted empty-text' }, emptyText(m.role)));
      if (!parts.length && hidden) {
        return h(
          'div',
          { ...base, class: 'entry slim' },
          h(
            'span',
            { class: 'muted' },
            `↳ ${hidden} tool result${hidden > 1 ? 's' : ''} (shown with the call${hidden > 1 ? 's' : ''} above)`,
          ),
        );
      }
      const meta = m.meta ?? {};
      const tag = meta.compactionSummary ? 'compaction summary' : meta.branchSummary ? 'branch summary' : '';
      // what the agent wrote itself, named by the server (formats/injected.ts): shown folded, as the agents' own screens leave it out
      const injected = tag ? '' : (entry.injected ?? '');
      const command = injected ? null : localCommandView(m);
      const body = command
        ? command
        : injected
          ? h(
              'details',
              { class: 'injected' },
              h('summary', {}, `${injected} · ${textLength(m.parts).toLocaleString()} characters`),
              parts,
            )
          : parts;
      return h(
        'article',
        { ...base, class: `entry msg role-${m.role}${entry.sidechain ? ' sidechain' : ''}` },
        h(
          'header',
          {},
          h('span', { class: 'role' }, ROLE_LABEL[m.role] ?? m.role),
          tag && h('span', { class: 'badge' }, tag),
          entry.sidechain && h('span', { class: 'badge' }, 'side chain'),
          usageLine(m, ctx.pricedCosts?.[entry.id], !!entry.usageShownOn),
          h('time', { datetime: entry.timestamp, title: entry.timestamp }, fmtTime(entry.timestamp)),
        ),
        body,
        m.error && h('div', { class: 'error' }, m.error),
      );
    }
    case 'compaction':
      return h(
        'details',
        { ...base, class: 'entry compaction' },
        h(
          'summary',
          {},
          h('span', { class: 'marker' }, '⊟ Compaction'),
          entry.tokensBefore ? ` · ${fmtTokens(entry.tokensBefore)} tokens before` : '',
          h('time', { datetime: entry.timestamp }, fmtTime(entry.timestamp)),
        ),
        textBlock(entry.summary),
      );
    case 'branch_summary':
      return h(
        'details',
        { ...base, class: 'entry compaction' },
        h(
          'summary',
          {},
          h('span', { class: 'marker' }, '⎇ Branch summary'),
          h('time', { datetime: entry.timestamp }, fmtTime(entry.timestamp)),
        ),
        textBlock(entry.summary),
      );
    case 'model_change':
      // pi records a thinking level change on its own, without a model
      return h(
        'div',
        { ...base, class: 'entry slim' },
        `⚙ ${[entry.model && `model → ${entry.model}`, entry.thinkingLevel && `thinking ${entry.thinkingLevel}`].filter(Boolean).join(' · ') || 'model → ?'}`,
      );
    case 'label':
      return h('div', { ...base, class: 'entry slim' }, `🏷 ${entry.label ?? '(label cleared)'}`);
    default:
      return h('div', { ...base, class: 'entry slim muted' }, `· ${entry.type ?? entry.kind}`);
  }
}
