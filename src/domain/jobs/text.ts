// Text normalization shared by the index and the query side: lowercase, diacritics folded, tokens
// of letters and digits (keeping a trailing + or #, so "C++" and "C#" stay searchable), and a light
// plural stemmer so "developers" finds "Developer".
// Requirements: POL-SEARCH-2; decisions D-44.

const COMBINING_MARKS = /[\u0300-\u036f]/g;
const TOKEN = /[a-z0-9]+[+#]*/g;

export function fold(s: string): string {
  return s.normalize('NFD').replace(COMBINING_MARKS, '').toLowerCase();
}

export function stem(token: string): string {
  if (token.length > 4 && token.endsWith('ies')) return `${token.slice(0, -3)}y`;
  if (token.length > 3 && token.endsWith('s') && !token.endsWith('ss')) return token.slice(0, -1);
  return token;
}

/** Distinct search terms of a text, in order of first appearance. */
export function tokenize(text: string): string[] {
  const raw = fold(text).match(TOKEN);
  if (!raw) return [];
  return [...new Set(raw.map(stem))];
}
