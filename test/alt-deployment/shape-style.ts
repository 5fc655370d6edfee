// Shape styles: how this deployment names, nests and pads the bodies whose shape the documents leave open
// ("not shown": GET /me, the market endpoints, the apply result, and the MCP tool results other than the
// job search and lookup). One style is chosen per deployment (from a seed) and every open-shape answer
// goes through `shapeOpen` on its way out; documented shapes (Job fields, the search response, errors,
// ScreeningUsage, audit pages, webhook bodies) never do. A conformant client reads every style alike.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export type Casing = 'camel' | 'snake' | 'kebab';
export type Wrap = 'bare' | 'data' | 'result';

export interface ShapeStyle {
  /** Key convention of every key the documents do not name. */
  casing: Casing;
  /** The body itself, or the body under `data` / `result` (with extra fields beside it). */
  wrap: Wrap;
  /** Every object inside a list gets a list longer than that list (objects of strings). */
  nestedLists: boolean;
  /** Every object gets fields of its own (strings and booleans; never numbers, URLs or tier words). */
  extraFields: boolean;
}

/** The answers as the deployment writes them (camelCase, bare, nothing added). */
export const PLAIN_STYLE: ShapeStyle = { casing: 'camel', wrap: 'bare', nestedLists: false, extraFields: false };

/** Names the documents give (kept as they are in every style). */
export const DOCUMENTED_KEYS = new Set([
  'apply_url',
  'applyUrl',
  'applicationId',
  'sponsored',
  'tier',
  'jobs',
  'page',
  'hasMore',
  'error',
  'code',
  'message',
]);

/** REST paths under /api/v1 whose bodies are open. */
export const openRestPath = (path: string): boolean =>
  path === '/me' || path.startsWith('/market/') || /^\/jobs\/[^/]+\/apply$/.test(path);

/** Tools whose results are open (search_jobs and get_job return documented Job fields). */
export const OPEN_TOOLS = new Set([
  'get_skill_demand',
  'draft_application',
  'apply_to_job',
  'get_me',
  'match_candidates',
  'talent_search',
  'post_job',
  'hire',
  'get_curated_list',
]);

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The style of a seed: each dimension drawn independently. */
export function styleFromSeed(seed: number): ShapeStyle {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  return {
    casing: pick(['camel', 'snake', 'kebab'] as const),
    wrap: pick(['bare', 'data', 'result'] as const),
    nestedLists: r() < 0.75,
    extraFields: r() < 0.75,
  };
}

export const describeStyle = (s: ShapeStyle) =>
  `${s.casing}, ${s.wrap}${s.nestedLists ? ', nested lists' : ''}${s.extraFields ? ', extra fields' : ''}`;

/** Words of a key in any convention: `applyCreditsLeft`, `apply_credits_left`, `apply-credits-left`. */
const words = (key: string): string[] =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());

export function recase(key: string, casing: Casing): string {
  if (DOCUMENTED_KEYS.has(key)) return key;
  const w = words(key);
  if (w.length === 0) return key;
  if (casing === 'snake') return w.join('_');
  if (casing === 'kebab') return w.join('-');
  return (
    w[0] +
    w
      .slice(1)
      .map((x) => x[0].toUpperCase() + x.slice(1))
      .join('')
  );
}

/** A short stable tag of a value, letters only (the same value gets the same padding on every surface and call). */
function tag(value: unknown): string {
  let h = 2166136261;
  for (const ch of JSON.stringify(value) ?? '') h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  let n = h >>> 0;
  let out = '';
  for (let i = 0; i < 6; i++, n = Math.floor(n / 26)) out += String.fromCharCode(97 + (n % 26));
  return out;
}

function restyle(value: unknown, s: ShapeStyle, listLength: number | null): unknown {
  if (Array.isArray(value)) return value.map((v) => restyle(v, s, value.length));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[recase(k, s.casing)] = restyle(v, s, null);
  const t = tag(value);
  if (s.extraFields) {
    out[recase('shapeNote', s.casing)] = `padding ${t}`;
    out[recase('isPadded', s.casing)] = true;
  }
  // a list inside each item, longer than the list the item sits in
  if (s.nestedLists && listLength !== null) {
    out[recase('relatedTags', s.casing)] = Array.from({ length: listLength + 2 }, (_, i) => ({
      label: `tag ${t} ${String.fromCharCode(97 + (i % 26))}`,
      kind: 'related',
    }));
  }
  return out;
}

/** One open-shape answer in the given style. */
export function shapeOpen<T>(style: ShapeStyle, body: T): T | Record<string, unknown> {
  if (style === PLAIN_STYLE) return body;
  const inner = restyle(body, style, null);
  if (style.wrap === 'bare') return inner as Record<string, unknown>;
  return {
    [style.wrap]: inner,
    ...(style.extraFields
      ? { [recase('servedBy', style.casing)]: 'alt-jobs', [recase('isWrapped', style.casing)]: true }
      : {}),
  };
}

/** A tool result in the style: structured content and its JSON text alike; errors keep the documented envelope. */
export function shapeToolResult(style: ShapeStyle, result: CallToolResult): CallToolResult {
  if (result.isError || result.structuredContent === undefined) return result;
  const shaped = shapeOpen(style, result.structuredContent) as Record<string, unknown>;
  return { ...result, structuredContent: shaped, content: [{ type: 'text', text: JSON.stringify(shaped) }] };
}

/** Makes every open tool registered on `mcp` from now on answer in the style (the one place MCP results are styled). */
export function shapeToolResults(mcp: McpServer, style: ShapeStyle): void {
  if (style === PLAIN_STYLE) return;
  const register = mcp.registerTool.bind(mcp) as (
    name: string,
    config: unknown,
    cb: (...a: unknown[]) => Promise<CallToolResult> | CallToolResult,
  ) => unknown;
  (mcp as { registerTool: unknown }).registerTool = (
    name: string,
    config: unknown,
    cb: (...a: unknown[]) => Promise<CallToolResult> | CallToolResult,
  ) =>
    register(
      name,
      config,
      OPEN_TOOLS.has(name) ? async (...a: unknown[]) => shapeToolResult(style, await cb(...a)) : cb,
    );
}
