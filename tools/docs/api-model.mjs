// Reads the public surface of each package with the TypeScript compiler API: every symbol that
// `src/index.ts` exports (re-exports followed to their declarations), its kind, signatures and
// TSDoc (summary, @param, @returns, @throws, @example, @remarks, @deprecated, @see, @defaultValue).
// The result is plain data; `api-markdown.mjs` turns it into pages and `generate-api.mjs --check`
// into the list of undocumented exports.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The packages to document: every `packages/<dir>` with a package.json and a `src/index.ts`.
 * Private packages are skipped (they are not part of what users install).
 */
export function findPackages(repoRoot) {
  const packagesDir = path.join(repoRoot, 'packages');
  const found = [];
  for (const dir of readdirSync(packagesDir).sort()) {
    const manifestPath = path.join(packagesDir, dir, 'package.json');
    const entry = path.join(packagesDir, dir, 'src', 'index.ts');
    if (!existsSync(manifestPath) || !existsSync(entry)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.private) continue;
    found.push({ dir, name: manifest.name, description: manifest.description ?? '', root: path.join(packagesDir, dir), entry });
  }
  return found;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

function isPublicMember(member) {
  const flags = ts.getCombinedModifierFlags(member);
  if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return false;
  if (member.name && ts.isPrivateIdentifier(member.name)) return false;
  return true;
}

function isStatic(member) {
  return (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Static) !== 0;
}

/** The JSDoc block closest to a declaration (variables carry theirs on the statement). */
function jsDocOf(node) {
  let holder = node;
  if (ts.isVariableDeclaration(node)) holder = node.parent?.parent ?? node;
  const docs = holder.jsDoc;
  return docs && docs.length > 0 ? docs[docs.length - 1] : undefined;
}

function lineOf(node) {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** Comment content (string or JSDoc text/link nodes) as plain text with `{@link X | t}` kept as a marker. */
function commentText(comment) {
  if (comment === undefined) return '';
  if (typeof comment === 'string') return comment;
  return comment
    .map((part) => {
      if (ts.isJSDocLink(part) || ts.isJSDocLinkCode(part) || ts.isJSDocLinkPlain(part)) {
        const target = part.name ? part.name.getText() : '';
        let label = (part.text ?? '').replace(/^\s*\|\s*/, '').trim();
        // `{@link Foo.bar}` arrives as name `Foo` and text `.bar` in some TypeScript versions.
        if (target && label.startsWith('.') && !label.includes(' ')) return `{@link ${target}${label}}`;
        if (target && label.startsWith('#') && !label.includes(' ')) return `{@link ${target}.${label.slice(1)}}`;
        return label ? `{@link ${target} | ${label}}` : `{@link ${target}}`;
      }
      return part.text ?? '';
    })
    .join('');
}

/** Summary and tags of one declaration. `documented` is true when the block has any summary text or tags. */
export function readDoc(node) {
  const doc = jsDocOf(node);
  const out = { summary: '', params: [], returns: '', throws: [], examples: [], remarks: '', deprecated: null, see: [], defaultValue: '', typeParams: [], documented: false, internal: false };
  if (!doc) return out;
  out.summary = commentText(doc.comment).trim();
  const tags = doc.tags ?? [];
  for (let i = 0; i < tags.length; i += 1) {
    const tag = tags[i];
    const name = tag.tagName.text;
    // TypeScript reads `@throws {@link X} when …` as a throws tag with a broken type `{` followed by
    // a separate `@link` tag whose comment is `X} when …`: put the two back together.
    if ((name === 'throws' || name === 'throw') && tags[i + 1]?.tagName.text === 'link' && (!tag.typeExpression || tag.typeExpression.getText().trim() === '{')) {
      const rest = commentText(tags[i + 1].comment);
      const close = rest.indexOf('}');
      out.throws.push(close >= 0 ? `{@link ${rest.slice(0, close).trim()}}${rest.slice(close + 1)}`.replace(/\s+$/, '') : `{@link ${rest.trim()}}`);
      i += 1;
      continue;
    }
    const text = commentText(tag.comment).replace(/^\s*-\s*/, '').trim();
    if (name === 'internal') out.internal = true;
    if (ts.isJSDocParameterTag(tag)) {
      out.params.push({ name: tag.name.getText(), text: text.replace(/^\s*-\s*/, '') });
    } else if (name === 'returns' || name === 'return') out.returns = text;
    else if (name === 'throws' || name === 'throw' || name === 'exception') {
      // `@throws {Foo} when …` parses as a type expression; keep it as the error's name.
      const typeName = tag.typeExpression ? tag.typeExpression.type.getText() : '';
      out.throws.push(typeName ? `{@link ${typeName}} ${text}`.trim() : text);
    } else if (name === 'example') out.examples.push(commentText(tag.comment).replace(/^\n+|\s+$/g, ''));
    else if (name === 'remarks') out.remarks = text;
    else if (name === 'deprecated') out.deprecated = text;
    else if (name === 'see') out.see.push(text);
    else if (name === 'defaultValue' || name === 'default') out.defaultValue = text;
    else if (name === 'typeParam' || name === 'template') {
      if (ts.isJSDocTemplateTag(tag)) out.typeParams.push({ name: tag.typeParameters.map((t) => t.name.text).join(', '), text });
      else {
        const m = /^(\w+)\s*(?:-\s*)?([\s\S]*)$/.exec(text);
        out.typeParams.push({ name: m ? m[1] : '', text: m ? m[2] : text });
      }
    }
  }
  out.documented = out.summary.length > 0 || (doc.tags?.length ?? 0) > 0;
  return out;
}

/** Declaration source without body and comments: `constructor(init: TensorSignatureInit)`. */
function signatureText(node, sf) {
  const f = ts.factory;
  let stripped = node;
  if (ts.isFunctionDeclaration(node)) {
    stripped = f.updateFunctionDeclaration(node, node.modifiers?.filter((m) => m.kind !== ts.SyntaxKind.ExportKeyword && m.kind !== ts.SyntaxKind.DefaultKeyword), node.asteriskToken, node.name, node.typeParameters, node.parameters, node.type, undefined);
    return printer.printNode(ts.EmitHint.Unspecified, stripped, sf).replace(/;?\s*$/, '').replace(/^declare /, '');
  }
  if (ts.isMethodDeclaration(node)) stripped = f.updateMethodDeclaration(node, node.modifiers, node.asteriskToken, node.name, node.questionToken, node.typeParameters, node.parameters, node.type, undefined);
  else if (ts.isConstructorDeclaration(node)) stripped = f.updateConstructorDeclaration(node, node.modifiers, node.parameters, undefined);
  else if (ts.isGetAccessorDeclaration(node)) stripped = f.updateGetAccessorDeclaration(node, node.modifiers, node.name, node.parameters, node.type, undefined);
  else if (ts.isSetAccessorDeclaration(node)) stripped = f.updateSetAccessorDeclaration(node, node.modifiers, node.name, node.parameters, undefined);
  else if (ts.isPropertyDeclaration(node)) stripped = f.updatePropertyDeclaration(node, node.modifiers, node.name, node.questionToken ?? node.exclamationToken, node.type, undefined);
  return printer.printNode(ts.EmitHint.Unspecified, stripped, sf).replace(/;?\s*$/, '');
}

function typeString(checker, node, symbol) {
  if (node.type) return node.type.getText();
  const type = checker.getTypeOfSymbolAtLocation(symbol, node);
  return checker.typeToString(type, node, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType);
}

/** Whether a class (transitively) extends the built-in Error, across packages too. */
function extendsError(checker, decl) {
  let type = checker.getTypeAtLocation(decl);
  for (let depth = 0; type && depth < 32; depth += 1) {
    if (type.symbol?.name === 'Error' && depth > 0) return true;
    const bases = type.isClassOrInterface?.() ? checker.getBaseTypes(type) : [];
    type = bases[0];
  }
  return false;
}

function membersOfClass(checker, decl, sf) {
  const members = [];
  for (const member of decl.members) {
    if (!isPublicMember(member)) continue;
    // `@internal` members are public only for the package's own tests and siblings.
    if (readDoc(member).internal) continue;
    if (ts.isSemicolonClassElement(member) || ts.isClassStaticBlockDeclaration(member) || ts.isIndexSignatureDeclaration(member)) continue;
    const name = ts.isConstructorDeclaration(member) ? 'constructor' : member.name ? member.name.getText(sf) : '';
    let kind;
    if (ts.isConstructorDeclaration(member)) kind = 'constructor';
    else if (ts.isMethodDeclaration(member)) kind = 'method';
    else if (ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)) kind = 'property';
    else if (ts.isPropertyDeclaration(member)) kind = 'property';
    else continue;
    // A method body after its overload list is the implementation, not part of the surface.
    if ((ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member)) && member.body) {
      const overloads = decl.members.filter((m) => m !== member && m.kind === member.kind && (kind === 'constructor' || m.name?.getText(sf) === name) && !m.body);
      if (overloads.length > 0) continue;
    }
    if (ts.isSetAccessorDeclaration(member) && decl.members.some((m) => ts.isGetAccessorDeclaration(m) && m.name.getText(sf) === name)) continue;
    let signature;
    if (ts.isGetAccessorDeclaration(member)) {
      const setter = decl.members.some((m) => ts.isSetAccessorDeclaration(m) && m.name.getText(sf) === name);
      const type = member.type ? member.type.getText(sf) : checker.typeToString(checker.getTypeAtLocation(member));
      signature = `${isStatic(member) ? 'static ' : ''}${setter ? '' : 'readonly '}${name}: ${type}`;
    } else if (ts.isPropertyDeclaration(member)) {
      const sym = checker.getSymbolAtLocation(member.name);
      const type = sym ? typeString(checker, member, sym) : 'unknown';
      const mods = (member.modifiers ?? []).filter((m) => m.kind !== ts.SyntaxKind.PublicKeyword && !ts.isDecorator(m)).map((m) => m.getText(sf));
      signature = `${mods.length ? mods.join(' ') + ' ' : ''}${name}${member.questionToken ? '?' : ''}: ${type}`;
    } else {
      signature = signatureText(member, sf).replace(/^public /, '');
    }
    const existing = members.find((m) => m.name === name && m.kind === kind && m.static === isStatic(member));
    if (existing) {
      existing.signatures.push(signature);
      if (!existing.doc.documented) existing.doc = readDoc(member);
      continue;
    }
    const initializer = ts.isPropertyDeclaration(member) && member.initializer && ts.isStringLiteralLike(member.initializer) ? member.initializer.text : null;
    const computed = member.name && ts.isComputedPropertyName(member.name);
    members.push({ name, kind, static: isStatic(member), computed, initializer, signatures: [signature], doc: readDoc(member), file: sf.fileName, line: lineOf(member) });
  }
  return members;
}

function membersOfInterface(decl, sf) {
  const members = [];
  for (const member of decl.members) {
    const name = member.name ? member.name.getText(sf) : '';
    const signature = printer.printNode(ts.EmitHint.Unspecified, member, sf).replace(/;\s*$/, '');
    members.push({ name, kind: ts.isMethodSignature(member) ? 'method' : 'property', static: false, signatures: [signature], doc: readDoc(member), file: sf.fileName, line: lineOf(member) });
  }
  return members;
}

/** Members of a `const x = Object.freeze({ … })` namespace object (e.g. `cuda`). */
function membersOfObjectLiteral(init, sf) {
  let literal = init;
  if (literal && ts.isAsExpression(literal)) literal = literal.expression;
  if (literal && ts.isCallExpression(literal) && literal.arguments.length === 1) literal = literal.arguments[0];
  if (!literal || !ts.isObjectLiteralExpression(literal)) return [];
  const members = [];
  for (const prop of literal.properties) {
    if (!prop.name) continue;
    const name = prop.name.getText(sf);
    let signature;
    if (ts.isMethodDeclaration(prop)) signature = signatureText(prop, sf);
    else if (ts.isGetAccessorDeclaration(prop)) signature = `readonly ${name}: ${prop.type ? prop.type.getText(sf) : 'unknown'}`;
    else continue;
    members.push({ name, kind: ts.isMethodDeclaration(prop) ? 'method' : 'property', static: false, signatures: [signature], doc: readDoc(prop), file: sf.fileName, line: lineOf(prop) });
  }
  return members;
}

function packageOfFile(packages, file) {
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    // Keep the path as given: a virtual lib file has no real path.
  }
  return packages.find((p) => real.startsWith(p.root + path.sep)) ?? null;
}

/**
 * Reads every package's public surface. Returns `{ packages: [{ ...pkg, moduleDoc, symbols }] }`
 * where each symbol is `{ name, kind, declaredIn, signatures, doc, members, file, line, reexportOf }`.
 */
export function readApi(repoRoot, packages = findPackages(repoRoot)) {
  const base = JSON.parse(readFileSync(path.join(repoRoot, 'tsconfig.base.json'), 'utf8')).compilerOptions;
  const { options } = ts.convertCompilerOptionsFromJson({ ...base, composite: false, declaration: false, declarationMap: false, sourceMap: false, noEmit: true }, repoRoot);
  const program = ts.createProgram(packages.map((p) => p.entry), options);
  const checker = program.getTypeChecker();
  const result = [];
  for (const pkg of packages) {
    const sf = program.getSourceFile(pkg.entry);
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    const firstStatement = sf.statements[0];
    // The package comment is a leading block comment that does not document a declaration the
    // index declares itself (index files hold only export lists).
    const leading = firstStatement ? ts.getLeadingCommentRanges(sf.text, 0) ?? [] : [];
    const moduleDoc = leading
      .map((r) => sf.text.slice(r.pos, r.end))
      .filter((t) => t.startsWith('/**'))
      .map((t) => t.replace(/^\/\*\*|\*\/$/g, '').split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim())
      .join('\n\n');
    const symbols = [];
    for (const exported of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const decls = target.declarations ?? [];
      if (decls.length === 0) continue;
      const first = decls[0];
      const declSf = first.getSourceFile();
      const owner = packageOfFile(packages, declSf.fileName);
      const symbol = { name: exported.name, kind: 'unknown', signatures: [], doc: readDoc(first), members: [], file: path.relative(repoRoot, declSf.fileName), line: lineOf(first), reexportOf: null, typeOnly: false, extends: '' };
      if (!owner || owner.name !== pkg.name) {
        symbol.reexportOf = owner ? owner.name : 'external';
      }
      const classDecl = decls.find((d) => ts.isClassDeclaration(d));
      const fnDecls = decls.filter((d) => ts.isFunctionDeclaration(d));
      const ifaceDecl = decls.find((d) => ts.isInterfaceDeclaration(d));
      const aliasDecl = decls.find((d) => ts.isTypeAliasDeclaration(d));
      const varDecl = decls.find((d) => ts.isVariableDeclaration(d));
      const enumDecl = decls.find((d) => ts.isEnumDeclaration(d));
      if (classDecl) {
        symbol.kind = extendsError(checker, classDecl) ? 'error' : 'class';
        symbol.doc = readDoc(classDecl);
        symbol.file = path.relative(repoRoot, classDecl.getSourceFile().fileName);
        symbol.line = lineOf(classDecl);
        const heritage = (classDecl.heritageClauses ?? []).map((h) => h.getText(classDecl.getSourceFile())).join(' ');
        const tps = classDecl.typeParameters ? `<${classDecl.typeParameters.map((t) => t.getText()).join(', ')}>` : '';
        const abstract = (ts.getCombinedModifierFlags(classDecl) & ts.ModifierFlags.Abstract) ? 'abstract ' : '';
        symbol.signatures = [`${abstract}class ${symbol.name}${tps}${heritage ? ' ' + heritage : ''}`];
        symbol.extends = classDecl.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression.getText() ?? '';
        symbol.members = membersOfClass(checker, classDecl, classDecl.getSourceFile());
      } else if (fnDecls.length > 0) {
        symbol.kind = 'function';
        const overloads = fnDecls.filter((d) => !d.body);
        const shown = overloads.length > 0 ? overloads : fnDecls;
        symbol.signatures = shown.map((d) => signatureText(d, d.getSourceFile()));
        const documented = shown.find((d) => readDoc(d).documented) ?? shown[0];
        symbol.doc = readDoc(documented);
        symbol.line = lineOf(documented);
      } else if (ifaceDecl) {
        symbol.kind = 'interface';
        symbol.doc = readDoc(ifaceDecl);
        symbol.line = lineOf(ifaceDecl);
        symbol.signatures = [printer.printNode(ts.EmitHint.Unspecified, ifaceDecl, ifaceDecl.getSourceFile()).replace(/^export /, '').trim()];
        symbol.members = membersOfInterface(ifaceDecl, ifaceDecl.getSourceFile());
      } else if (aliasDecl) {
        symbol.kind = 'type';
        symbol.doc = readDoc(aliasDecl);
        symbol.line = lineOf(aliasDecl);
        symbol.signatures = [printer.printNode(ts.EmitHint.Unspecified, aliasDecl, aliasDecl.getSourceFile()).replace(/^export /, '').trim()];
      } else if (varDecl) {
        symbol.kind = 'constant';
        symbol.doc = readDoc(varDecl);
        symbol.line = lineOf(varDecl);
        const keyword = varDecl.parent.flags & ts.NodeFlags.Const ? 'const' : 'let';
        symbol.signatures = [`${keyword} ${symbol.name}: ${typeString(checker, varDecl, target)}`];
        symbol.members = membersOfObjectLiteral(varDecl.initializer, varDecl.getSourceFile());
        if (symbol.members.length > 0) symbol.signatures = [`${keyword} ${symbol.name}: {\n${symbol.members.map((m) => `  ${m.signatures[0]};`).join('\n')}\n}`];
      } else if (enumDecl) {
        symbol.kind = 'type';
        symbol.doc = readDoc(enumDecl);
        symbol.line = lineOf(enumDecl);
        symbol.signatures = [printer.printNode(ts.EmitHint.Unspecified, enumDecl, enumDecl.getSourceFile()).replace(/^export /, '').trim()];
      }
      if (symbol.doc.internal) continue;
      symbols.push(symbol);
    }
    for (const s of symbols) for (const m of s.members) m.file = path.relative(repoRoot, m.file);
    symbols.sort((a, b) => a.name.localeCompare(b.name));
    result.push({ ...pkg, moduleDoc, symbols });
  }
  return { packages: result };
}

/**
 * Members whose meaning a protocol fixes, so that a comment would only repeat it: an error class's
 * `name` set to a string literal (its stable name, shown on the page), `[Symbol.dispose]` beside a
 * documented `close`/`dispose` (the `using` protocol), and Node's `util.inspect.custom` hook.
 */
export function isSelfExplanatory(symbol, member) {
  if (symbol.kind === 'error' && member.name === 'name' && member.initializer !== null) return true;
  if (member.name === '[Symbol.dispose]' || member.name === '[Symbol.asyncDispose]') {
    return symbol.members.some((o) => (o.name === 'close' || o.name === 'dispose') && o.doc.documented);
  }
  return /^\[Symbol\.for\(['"]nodejs\.util\.inspect\.custom['"]\)\]$/.test(member.name);
}

/**
 * Public exports and public class members without TSDoc, as `{ file, line, package, symbol }`;
 * with `interfaceMembers`, also the properties and methods of exported interfaces.
 * Re-exports are checked where they are declared, so each gap is listed once.
 */
export function undocumented(api, { interfaceMembers = false } = {}) {
  const gaps = [];
  for (const pkg of api.packages) {
    for (const s of pkg.symbols) {
      if (s.reexportOf) continue;
      if (!s.doc.documented) gaps.push({ file: s.file, line: s.line, package: pkg.name, symbol: s.name, kind: s.kind });
      if (interfaceMembers && s.kind === 'interface') {
        for (const m of s.members) if (!m.doc.documented) gaps.push({ file: m.file, line: m.line, package: pkg.name, symbol: `${s.name}.${m.name}`, kind: `interface ${m.kind}` });
      }
      if (s.kind === 'class' || s.kind === 'error') {
        for (const m of s.members) {
          if (m.doc.documented) continue;
          // A constructor without parameters has nothing to document beyond its class.
          if (m.kind === 'constructor' && /^constructor\(\s*\)/.test(m.signatures[0])) continue;
          if (isSelfExplanatory(s, m)) continue;
          gaps.push({ file: m.file, line: m.line, package: pkg.name, symbol: `${s.name}${m.kind === 'constructor' ? '' : m.static ? '.' : '#'}${m.kind === 'constructor' ? ' constructor' : m.name}`, kind: m.kind });
        }
      }
    }
  }
  return gaps;
}
