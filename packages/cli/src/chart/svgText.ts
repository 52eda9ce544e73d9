/** Small helpers for writing SVG as strings: escaping and stable number formatting. */

/** Escapes `&`, `<`, `>`, `"` and `'` for text and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A coordinate with at most two decimals and no trailing zeros (stable across platforms). */
export function coord(x: number): string {
  const s = (Math.round(x * 100) / 100).toFixed(2);
  return s.replace(/\.?0+$/, '') || '0';
}

/** A figure for a bar label: `42.7k`, `238`, `12.5`, `7.8`, `0.0312` (three significant digits). */
export function shortNumber(x: number): string {
  const a = Math.abs(x);
  if (a >= 1e6) return `${trim((x / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${trim((x / 1e3).toPrecision(3))}k`;
  if (a >= 100) return String(Math.round(x));
  if (a === 0) return '0';
  return trim(x.toPrecision(3));
}

function trim(s: string): string {
  return s.includes('.') && !s.includes('e') ? s.replace(/\.?0+$/, '') : s;
}
