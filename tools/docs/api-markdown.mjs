// Turns the API model of `api-model.mjs` into VitePress Markdown, laid out like the reference page:
// per package an overview; a page per class (signature, constructor or factories, properties,
// methods, each with parameters, returns, throws and examples); and one page each for functions,
// interfaces and types, constants and errors. Every symbol and member heading carries an explicit
// anchor (`{#id}`) so that links stay stable, and `{@link X}` becomes a link to X's page.

/** Anchor id for a symbol or member name (`[Symbol.dispose]` becomes `Symbol-dispose`). */
export function anchorId(name) {
  const id = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'member';
  // VitePress keeps heading ids in a plain object: an id that is an Object.prototype key
  // (`constructor`, `toString`) would count as a duplicate and fail the build.
  return id in Object.prototype ? `${id}-member` : id;
}

const GROUPS = [
  { kind: 'class', title: 'Classes' },
  { kind: 'function', title: 'Functions', page: 'functions' },
  { kind: 'interface', title: 'Interfaces and types', page: 'types' },
  { kind: 'type', title: 'Interfaces and types', page: 'types' },
  { kind: 'constant', title: 'Constants', page: 'constants' },
  { kind: 'error', title: 'Errors', page: 'errors' },
];

function pageOf(pkgDir, symbol) {
  if (symbol.kind === 'class') return `/api/${pkgDir}/${symbol.name}`;
  const group = GROUPS.find((g) => g.kind === symbol.kind);
  return `/api/${pkgDir}/${group?.page ?? 'types'}`;
}

/**
 * Where each name is documented: `Name` → page and anchor, `Name.member` → the member's anchor.
 * Re-exports point at the declaring package's page.
 */
export function buildLinkIndex(api) {
  const byPackage = new Map();
  for (const pkg of api.packages) {
    const index = new Map();
    for (const s of pkg.symbols) {
      if (s.reexportOf) continue;
      const page = pageOf(pkg.dir, s);
      index.set(s.name, s.kind === 'class' ? page : `${page}#${anchorId(s.name)}`);
      for (const m of s.members) {
        const memberAnchor = s.kind === 'class' || s.kind === 'error' ? memberAnchorId(s, m) : `${anchorId(s.name)}-${anchorId(m.name)}`;
        index.set(`${s.name}.${m.name}`, `${page}#${memberAnchor}`);
      }
    }
    byPackage.set(pkg.name, index);
  }
  return byPackage;
}

/** Member anchors; on the shared errors page they carry the class name (`CudaError-code`). */
function memberAnchorId(symbol, member) {
  const prefix = symbol.kind === 'error' ? `${anchorId(symbol.name)}-` : '';
  if (member.kind === 'constructor') return prefix ? `${prefix}constructor` : anchorId('constructor');
  const clash = symbol.members.some((o) => o !== member && o.name === member.name);
  return `${prefix}${clash && member.static ? 'static-' : ''}${prefix ? member.name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') : anchorId(member.name)}`;
}

/** Text outside code spans: escapes what Vue or HTML would otherwise interpret. */
function escapeProse(text) {
  return text.replace(/&(?![a-z]+;|#\d+;)/gi, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\{\{/g, '&#123;&#123;').replace(/\}\}/g, '&#125;&#125;');
}

/** Escapes prose, leaves `code spans` and fenced blocks intact, and resolves `{@link …}`. */
export function renderText(text, resolve) {
  if (!text) return '';
  const out = [];
  const fence = /```[\s\S]*?```/g;
  let last = 0;
  for (const match of text.matchAll(fence)) {
    out.push(renderInline(text.slice(last, match.index), resolve));
    out.push(`\n${match[0].replace(/^```\s*\n/, '```ts\n')}\n`);
    last = match.index + match[0].length;
  }
  out.push(renderInline(text.slice(last), resolve));
  return out.join('');
}

function renderInline(text, resolve) {
  const parts = text.split(/(`[^`\n]*`|\{@link[^}]*\})/g);
  return parts
    .map((part) => {
      if (part.startsWith('`')) return part.includes('{{') ? `<code v-pre>${escapeProse(part.slice(1, -1))}</code>` : part;
      if (part.startsWith('{@link')) {
        const m = /^\{@link\s+([^|\s}]+)\s*(?:\|\s*([^}]*))?\}$/.exec(part);
        if (!m) return escapeProse(part);
        const target = m[1];
        const label = (m[2] ?? '').trim() || target;
        const href = resolve(target);
        return href ? `[\`${label}\`](${href})` : `\`${label}\``;
      }
      return escapeProse(part);
    })
    .join('');
}

/** One paragraph for list items: line breaks inside TSDoc items become spaces. */
function oneLine(text, resolve) {
  return renderText(text.replace(/\s*\n\s*/g, ' ').trim(), resolve);
}

function firstSentence(text) {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return (m ? m[1] : flat).slice(0, 300);
}

/** `TypeError if …` → `**TypeError** if …` (the leading error name stands out as in the reference). */
function renderThrows(text, resolve) {
  const linked = /^\s*\{@link\s+([A-Za-z_][A-Za-z0-9_]*)\s*\}([\s\S]*)$/.exec(text);
  if (linked) text = `${linked[1]}${linked[2]}`;
  const line = oneLine(text, resolve);
  const m = /^([A-Z][A-Za-z0-9_]*(?:Error|Exception))\b(.*)$/s.exec(line) ?? (linked ? /^([A-Za-z_][A-Za-z0-9_]*)\b(.*)$/s.exec(line) : null);
  if (!m) return line;
  const href = resolve(m[1]);
  return `${href ? `[**${m[1]}**](${href})` : `**${m[1]}**`}${m[2]}`;
}

function codeBlock(signatures) {
  return ['```ts', ...signatures, '```'].join('\n');
}

function exampleBlock(example) {
  if (example.includes('```')) return example;
  return ['```ts', example, '```'].join('\n');
}

/** Parameters, returns, throws, remarks, examples, see-also: the sections under a signature. */
function renderDocSections(doc, resolve, level) {
  const h = '#'.repeat(level);
  const lines = [];
  if (doc.deprecated !== null) lines.push(`::: warning Deprecated\n${oneLine(doc.deprecated, resolve) || 'Deprecated.'}\n:::\n`);
  if (doc.summary) lines.push(renderText(doc.summary, resolve), '');
  if (doc.remarks) lines.push(renderText(doc.remarks, resolve), '');
  if (doc.typeParams.length > 0) {
    lines.push(`${h} Type parameters`, '');
    for (const tp of doc.typeParams) lines.push(`- \`${tp.name}\`: ${oneLine(tp.text, resolve)}`);
    lines.push('');
  }
  if (doc.params.length > 0) {
    lines.push(`${h} Parameters`, '');
    for (const p of doc.params) lines.push(`- \`${p.name}\`: ${oneLine(p.text, resolve)}`);
    lines.push('');
  }
  if (doc.returns) lines.push(`${h} Returns`, '', oneLine(doc.returns, resolve), '');
  if (doc.defaultValue) lines.push(`Default: ${oneLine(doc.defaultValue, resolve)}`, '');
  if (doc.throws.length > 0) {
    lines.push(`${h} Throws`, '');
    for (const t of doc.throws) lines.push(`- ${renderThrows(t, resolve)}`);
    lines.push('');
  }
  for (const [i, example] of doc.examples.entries()) {
    lines.push(`${h} Example${doc.examples.length > 1 ? ` ${i + 1}` : ''}`, '', exampleBlock(example), '');
  }
  if (doc.see.length > 0) {
    lines.push(`${h} See also`, '');
    for (const s of doc.see) lines.push(`- ${oneLine(s, resolve)}`);
    lines.push('');
  }
  return lines;
}

function undocumentedNote(doc) {
  return doc.documented ? [] : ['::: danger Undocumented', 'This export has no TSDoc yet.', ':::', ''];
}

function memberLabel(member) {
  if (member.kind === 'constructor') return anchorId('constructor');
  return `${member.static ? 'static ' : ''}${member.kind}`;
}

function renderMember(symbol, member, resolve, visibleName) {
  const lines = [];
  const anchor = symbol.kind === 'class' || symbol.kind === 'error' ? memberAnchorId(symbol, member) : `${anchorId(symbol.name)}-${anchorId(member.name)}`;
  const title = member.kind === 'constructor' ? `new ${symbol.name}()` : visibleName ?? member.name;
  lines.push(`### ${escapeProse(title)} {#${anchor}}`, '');
  lines.push(`<Badge type="info" text="${memberLabel(member)}" />`, '');
  lines.push(codeBlock(member.signatures), '');
  if (member.initializer !== null && member.initializer !== undefined) lines.push(`Value: \`'${member.initializer}'\``, '');
  lines.push(...renderDocSections(member.doc, resolve, 4));
  return lines;
}

function sourceLine(symbol) {
  return `<small>Declared in \`${symbol.file}:${symbol.line}\`</small>`;
}

/** A class page (or an error's section when `level` is 2). */
function renderClass(pkg, symbol, resolve, level = 1) {
  const h = '#'.repeat(level);
  const lines = [];
  const anchor = level === 1 ? '' : ` {#${anchorId(symbol.name)}}`;
  lines.push(`${h} ${symbol.name}${anchor}`, '');
  lines.push(`<Badge type="tip" text="${symbol.kind === 'error' ? 'error class' : 'class'}" /> <Badge type="info" text="${pkg.name}" />`, '');
  lines.push(codeBlock(symbol.signatures), '');
  lines.push(...undocumentedNote(symbol.doc));
  lines.push(...renderDocSections(symbol.doc, resolve, level + 2 > 6 ? 6 : level + 2));
  lines.push(sourceLine(symbol), '');
  const visible = symbol.members.filter((m) => !/^\[Symbol\.for\(/.test(m.name));
  const ctor = visible.filter((m) => m.kind === 'constructor');
  const factories = visible.filter((m) => m.kind === 'method' && m.static);
  const props = visible.filter((m) => m.kind === 'property' && !(symbol.kind === 'error' && m.name === 'name'));
  const methods = visible.filter((m) => m.kind === 'method' && !m.static);
  const nameMember = visible.find((m) => symbol.kind === 'error' && m.name === 'name' && m.initializer);
  if (nameMember) lines.push(`Stable \`name\`: \`'${nameMember.initializer}'\``, '');
  const sections = [
    [ctor, 'Constructor'],
    [factories, 'Static methods'],
    [props.filter((p) => p.static), 'Static properties'],
    [props.filter((p) => !p.static), 'Properties'],
    [methods, 'Methods'],
  ];
  for (const [members, title] of sections) {
    if (members.length === 0) continue;
    lines.push(`${h}# ${title}`, '');
    for (const m of members) lines.push(...renderMember(symbol, m, resolve).map((l) => (level === 2 && l.startsWith('### ') ? `#${l}` : l.replace(/^#### /, level === 2 ? '##### ' : '#### '))));
  }
  return lines;
}

function renderSimple(pkg, symbol, resolve) {
  const lines = [`## ${symbol.name} {#${anchorId(symbol.name)}}`, ''];
  const badge = { function: 'function', interface: 'interface', type: 'type', constant: 'constant' }[symbol.kind] ?? symbol.kind;
  lines.push(`<Badge type="tip" text="${badge}" />`, '');
  lines.push(codeBlock(symbol.signatures), '');
  lines.push(...undocumentedNote(symbol.doc));
  lines.push(...renderDocSections(symbol.doc, resolve, 4));
  if (symbol.members.length > 0 && symbol.kind !== 'function') {
    lines.push(`#### ${symbol.kind === 'constant' ? 'Members' : 'Properties'}`, '');
    for (const m of symbol.members) {
      const summary = [m.doc.summary, ...m.doc.params.map((p) => `\`${p.name}\`: ${p.text}`)].filter(Boolean).join(' ');
      const defaultNote = m.doc.defaultValue ? ` Default: ${oneLine(m.doc.defaultValue, resolve)}.` : '';
      const extra = [...m.doc.throws.map((t) => ` Throws ${renderThrows(t, resolve)}`), m.doc.returns ? ` Returns ${oneLine(m.doc.returns, resolve)}` : ''].join('');
      lines.push(`- <a id="${anchorId(symbol.name)}-${anchorId(m.name)}"></a>\`${m.signatures[0].replace(/`/g, "'")}\`${summary ? `: ${oneLine(summary, resolve)}` : ''}${defaultNote}${extra}`);
    }
    lines.push('');
  }
  lines.push(sourceLine(symbol), '');
  return lines;
}

function tableCell(text) {
  return text.replace(/\|/g, '\\|');
}

function renderOverview(pkg, resolve, groups) {
  const lines = [`# ${pkg.name}`, '', escapeProse(pkg.description), ''];
  if (pkg.moduleDoc) lines.push(renderText(pkg.moduleDoc, resolve), '');
  lines.push('```sh', `npm install ${pkg.name}`, '```', '');
  for (const [title, symbols] of groups) {
    if (symbols.length === 0) continue;
    lines.push(`## ${title}`, '', '| name | summary |', '|---|---|');
    for (const s of symbols) {
      const href = s.reexportOf ? resolve(s.name) : resolve(s.name);
      const name = href ? `[\`${s.name}\`](${href})` : `\`${s.name}\``;
      const note = s.reexportOf ? `re-exported from \`${s.reexportOf}\`. ` : '';
      lines.push(`| ${name} | ${tableCell(note + oneLine(firstSentence(s.doc.summary || (s.doc.documented ? '' : '(undocumented)')), resolve))} |`);
    }
    lines.push('');
  }
  return lines;
}

/**
 * All pages of the API section: `[{ path, content }]` with paths relative to `docs/`, and the
 * sidebar (`[{ text, collapsed, items }]`) for `.vitepress/config.mts`.
 */
export function renderApi(api) {
  const links = buildLinkIndex(api);
  const pages = [];
  const sidebar = [];
  const order = api.packages.map((p) => p.name);
  for (const pkg of api.packages) {
    // `{@link X}` resolves in this package first, then in the others (names such as DType exist twice).
    const resolve = (target) => {
      const own = links.get(pkg.name);
      if (own.has(target)) return own.get(target);
      for (const name of order) if (links.get(name).has(target)) return links.get(name).get(target);
      const base = target.split('.')[0];
      if (own.has(base)) return own.get(base);
      for (const name of order) if (links.get(name).has(base)) return links.get(name).get(base);
      return null;
    };
    const own = pkg.symbols;
    const byKind = (...kinds) => own.filter((s) => kinds.includes(s.kind));
    const groups = [
      ['Classes', byKind('class')],
      ['Functions', byKind('function')],
      ['Interfaces and types', byKind('interface', 'type')],
      ['Constants', byKind('constant')],
      ['Errors', byKind('error')],
    ];
    const base = `api/${pkg.dir}`;
    pages.push({ path: `${base}/index.md`, content: renderOverview(pkg, resolve, groups).join('\n') });
    const items = [{ text: 'Overview', link: `/${base}/` }];
    for (const s of byKind('class').filter((s) => !s.reexportOf)) {
      pages.push({ path: `${base}/${s.name}.md`, content: [`---\noutline: [2, 3]\n---`, ...renderClass(pkg, s, resolve)].join('\n') });
      items.push({ text: s.name, link: `/${base}/${s.name}` });
    }
    const simplePages = [
      ['functions', 'Functions', byKind('function')],
      ['types', 'Interfaces and types', byKind('interface', 'type')],
      ['constants', 'Constants', byKind('constant')],
    ];
    for (const [page, title, symbols] of simplePages) {
      const declared = symbols.filter((s) => !s.reexportOf);
      if (declared.length === 0) continue;
      const body = [`# ${title}`, '', `${title} exported by \`${pkg.name}\`.`, ''];
      for (const s of declared) body.push(...renderSimple(pkg, s, resolve));
      pages.push({ path: `${base}/${page}.md`, content: [`---\noutline: 2\n---`, ...body].join('\n') });
      items.push({ text: title, link: `/${base}/${page}` });
    }
    const errors = byKind('error').filter((s) => !s.reexportOf);
    if (errors.length > 0) {
      const body = [`# Errors`, '', `Error classes of \`${pkg.name}\`. Each has a stable \`name\`; catch by class or test \`error.name\`.`, ''];
      for (const s of errors) body.push(...renderClass(pkg, s, resolve, 2));
      pages.push({ path: `${base}/errors.md`, content: [`---\noutline: 2\n---`, ...body].join('\n') });
      items.push({ text: 'Errors', link: `/${base}/errors` });
    }
    sidebar.push({ text: pkg.name, collapsed: true, items });
  }
  const indexLines = ['# API reference', '', 'Generated from the TSDoc of every package\'s public exports (`src/index.ts`).', '', '| package | what it holds |', '|---|---|'];
  for (const pkg of api.packages) indexLines.push(`| [\`${pkg.name}\`](/api/${pkg.dir}/) | ${tableCell(escapeProse(pkg.description))} |`);
  pages.push({ path: 'api/index.md', content: indexLines.join('\n') + '\n' });
  return { pages, sidebar: [{ text: 'API reference', link: '/api/' }, ...sidebar] };
}
