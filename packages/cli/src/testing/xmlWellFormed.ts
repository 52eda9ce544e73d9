/**
 * A small XML well-formedness check for the SVG tests (no parser dependency): every tag is closed
 * in order, attributes are quoted and unique, entities are known, and there is one root element.
 * Returns the problems found (empty when well formed) and the element names seen, in order.
 */
export function checkXml(xml: string): { problems: string[]; elements: string[]; texts: string[] } {
  const problems: string[] = [];
  const elements: string[] = [];
  const texts: string[] = [];
  const stack: string[] = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)|(<[^>]*>?)/g;
  for (const m of xml.matchAll(token)) {
    const [, close, name, attrs, selfClose, text, bad] = m;
    if (bad !== undefined) {
      problems.push(`malformed markup at ${m.index}: ${bad.slice(0, 40)}`);
      continue;
    }
    if (text !== undefined) {
      if (/&(?!(amp|lt|gt|quot|#39|#\d+|#x[0-9a-fA-F]+);)/.test(text)) problems.push(`bare & in text at ${m.index}`);
      if (text.trim() !== '') {
        if (stack.length === 0) problems.push(`text outside the root at ${m.index}`);
        texts.push(text);
      }
      continue;
    }
    if (close === '/') {
      const open = stack.pop();
      if (open !== name) problems.push(`</${name}> closes <${open ?? 'nothing'}> at ${m.index}`);
      continue;
    }
    if (stack.length === 0) roots += 1;
    elements.push(name!);
    const seen = new Set<string>();
    for (const a of (attrs ?? '').matchAll(/([^\s=]+)\s*=\s*("[^"]*"|'[^']*')/g)) {
      if (seen.has(a[1]!)) problems.push(`duplicate attribute ${a[1]} on <${name}>`);
      seen.add(a[1]!);
      if (/[<]|&(?!(amp|lt|gt|quot|#39);)/.test(a[2]!)) problems.push(`unescaped character in ${a[1]} of <${name}>`);
    }
    if (selfClose !== '/') stack.push(name!);
  }
  if (stack.length > 0) problems.push(`unclosed elements: ${stack.join(', ')}`);
  if (roots !== 1) problems.push(`expected one root element, found ${roots}`);
  return { problems, elements, texts };
}
