// Term matching for the scorer: tokenizes text while keeping each token's span in the original, so
// evidence can quote the candidate's own words; folds case, punctuation, common synonyms
// ("Postgres" = "PostgreSQL", "k8s" = "Kubernetes", "Node.js" = "NodeJS") and simple plural and
// verb endings, the same way on both sides.
// Requirements: SCR-HOOK-4 (evidence quoting the candidate); decisions D-42.

export interface Token {
  /** canonical form */
  t: string;
  start: number;
  end: number;
}

const SYNONYMS: Record<string, string> = {
  postgres: 'postgresql',
  psql: 'postgresql',
  pg: 'postgresql',
  k8s: 'kubernetes',
  js: 'javascript',
  ecmascript: 'javascript',
  ts: 'typescript',
  golang: 'go',
  py: 'python',
  py3: 'python',
  python3: 'python',
  mongo: 'mongodb',
  gcloud: 'gcp',
  tailwindcss: 'tailwind',
  reactjs: 'react',
  nodejs: 'node',
  vuejs: 'vue',
  nextjs: 'next',
  expressjs: 'express',
  ml: 'machine_learning',
  nlp: 'natural_language_processing',
  sklearn: 'scikit',
};

// multi-word names folded to one token (longest match wins)
const PHRASES: Array<[string[], string]> = [
  [['amazon', 'web', 'services'], 'aws'],
  [['google', 'cloud', 'platform'], 'gcp'],
  [['google', 'cloud'], 'gcp'],
  [['machine', 'learning'], 'machine_learning'],
  [['natural', 'language', 'processing'], 'natural_language_processing'],
  [['scikit', 'learn'], 'scikit'],
  [['node', 'js'], 'node'],
  [['react', 'js'], 'react'],
  [['vue', 'js'], 'vue'],
  [['next', 'js'], 'next'],
  [['express', 'js'], 'express'],
];

/** Words that carry no skill of their own in a requirement ("Strong experience with Go"). */
const FILLER = new Set(
  'a an and the of in on with for to at strong solid good great deep excellent proven hands experience experienced knowledge proficiency proficient familiarity familiar understanding ability skill skills year years yr yrs plus working work professional background expert expertise using use'.split(
    ' ',
  ),
);

function stem(w: string): string {
  if (!/^[a-z]+$/.test(w) || w.length < 4) return w;
  // short plurals ("APIs", "jobs"); other endings only on longer words
  if (w.length === 4) return w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
  if (w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.endsWith('ing') && w.length > 6) return w.slice(0, -3);
  if (w.endsWith('ed') && w.length > 5) return w.slice(0, -2);
  if (w.endsWith('es') && /(ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

// eslint-disable-next-line no-control-regex -- the whole ASCII range, control characters included, is the point
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const isAsciiLetterOrDigit = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

function raw(text: string): Token[] {
  const out: Token[] = [];
  if (!ASCII_ONLY.test(text)) {
    for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}+#]*/gu)) {
      out.push({ t: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
    }
    return out;
  }
  // the same tokens for ASCII text (its only letters and numbers are A-Z, a-z and 0-9), without the regex
  for (let i = 0; i < text.length;) {
    if (!isAsciiLetterOrDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    for (
      let c = text.charCodeAt(j);
      j < text.length && (isAsciiLetterOrDigit(c) || c === 43 || c === 35);
      c = text.charCodeAt(++j)
    );
    out.push({ t: text.slice(i, j).toLowerCase(), start: i, end: j });
    i = j;
  }
  return out;
}

// the phrases by first word, each list in PHRASES order, so the first match is still the longest
const PHRASES_BY_FIRST = new Map<string, Array<[string[], string]>>();
for (const p of PHRASES) {
  const list = PHRASES_BY_FIRST.get(p[0][0]);
  if (list) list.push(p);
  else PHRASES_BY_FIRST.set(p[0][0], [p]);
}

export function tokenize(text: string): Token[] {
  const toks = raw(text);
  const out: Token[] = [];
  for (let i = 0; i < toks.length;) {
    const phrase = PHRASES_BY_FIRST.get(toks[i].t)?.find(([words]) => words.every((w, k) => toks[i + k]?.t === w));
    if (phrase) {
      const n = phrase[0].length;
      out.push({ t: phrase[1], start: toks[i].start, end: toks[i + n - 1].end });
      i += n;
      continue;
    }
    const t = toks[i].t;
    out.push({ t: stem(SYNONYMS[t] ?? t), start: toks[i].start, end: toks[i].end });
    i++;
  }
  return out;
}

/** The tokens of a requirement that name the skill itself, without filler words and numbers. */
export function keyTerms(requirement: string): string[] {
  return tokenize(requirement)
    .map((k) => k.t)
    .filter((t) => !FILLER.has(t) && !/^\d+\+?$/.test(t));
}

// Skill names and requirements recur across candidates and job specs ("TypeScript", "AWS").
const KEY_TERMS_LIMIT = 4096;
const keyTermsSeen = new Map<string, readonly string[]>();

/** keyTerms, remembered for recently seen strings; the arrays are shared, so they are frozen. */
export function keyTermsOf(text: string): readonly string[] {
  let terms = keyTermsSeen.get(text);
  if (terms === undefined) {
    if (keyTermsSeen.size >= KEY_TERMS_LIMIT) keyTermsSeen.clear();
    keyTermsSeen.set(text, (terms = Object.freeze(keyTerms(text))));
  }
  return terms;
}

/** Alternatives in one requirement: "Go or Rust", "AWS | GCP". */
export function alternatives(requirement: string): string[] {
  // a separator may start only where a run of spaces starts: tried at every space of a long run, the
  // pattern would rescan the rest of the run each time (quadratic)
  return requirement.split(/(?<!\s)\s+or\s+|(?<!\s)\s*\|\s*/i).filter((s) => s.trim() !== '');
}

/** Index of the first occurrence of `needle` as a contiguous run in `hay`, or -1. */
export function findRun(hay: readonly string[], needle: readonly string[]): number {
  if (needle.length === 0 || needle.length > hay.length) return -1;
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let k = 0; k < needle.length; k++) if (hay[i + k] !== needle[k]) continue outer;
    return i;
  }
  return -1;
}
