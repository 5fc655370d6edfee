// The one interface through which checks reach a deployment: HTTP calls addressed by surface (screening
// API, jobs API, control API, site documents) and full contract paths, with every exchange recorded
// and offered to observers (the response monitor). The same suite runs against an in-process sandbox,
// a remote URL or a validating proxy, only the base URLs differ.

import type { HarnessConfig } from '../config.js';
import { send, type Exchange } from './http.js';

export type Surface = 'screening' | 'jobs' | 'control' | 'site';

export interface CallSpec {
  method?: string;
  /** Full path as in the contract, e.g. /api/screening/v1/screen. */
  path: string;
  query?: Record<string, string | number | boolean | undefined> | URLSearchParams | string;
  /** Bearer key; omitted or null sends no Authorization header. */
  key?: string | null;
  /** A raw Authorization header value (for malformed-credential checks); wins over `key`. */
  authorization?: string;
  /** JSON body (serialized, with Content-Type: application/json). */
  json?: unknown;
  /** Raw body text (sent as is; set the content type in headers). */
  body?: string;
  headers?: Record<string, string>;
  /**
   * The call probes a policy rule (e.g. an unknown parameter): a status the specification does not
   * document is then expected and not held against the target at `must` level.
   */
  policyProbe?: boolean;
}

export type ExchangeObserver = (ex: Exchange, surface: Surface, spec: CallSpec) => void;

export interface Target {
  readonly bases: HarnessConfig['bases'];
  readonly mcpUrl: string;
  readonly anonMcpUrl: string | null;
  call(surface: Surface, spec: CallSpec): Promise<Exchange>;
  /** Registers an observer of every exchange; returns the function that removes it. */
  observe(fn: ExchangeObserver): () => void;
}

export function queryString(q: CallSpec['query']): string {
  if (q === undefined) return '';
  if (typeof q === 'string') return q ? (q.startsWith('?') ? q : `?${q}`) : '';
  const p = q instanceof URLSearchParams ? q : new URLSearchParams();
  if (!(q instanceof URLSearchParams)) {
    for (const [k, v] of Object.entries(q)) if (v !== undefined) p.append(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

export function createHttpTarget(cfg: HarnessConfig, anonMcpUrl: string | null = cfg.anonMcpUrl): Target {
  const observers = new Set<ExchangeObserver>();
  return {
    bases: cfg.bases,
    mcpUrl: cfg.mcpUrl,
    anonMcpUrl,
    async call(surface, spec) {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (spec.authorization !== undefined) headers.authorization = spec.authorization;
      else if (spec.key) headers.authorization = `Bearer ${spec.key}`;
      let body: string | undefined;
      if (spec.json !== undefined) {
        body = JSON.stringify(spec.json);
        headers['content-type'] = 'application/json';
      } else if (spec.body !== undefined) body = spec.body;
      Object.assign(headers, spec.headers);
      // a probe of a policy rule is deliberately off-contract: it bypasses a validating proxy in front
      const base = spec.policyProbe && cfg.capabilities.validatingProxy ? cfg.bases.site : cfg.bases[surface];
      const url = `${base}${spec.path}${queryString(spec.query)}`;
      const ex = await send({ method: spec.method ?? 'GET', url, headers, ...(body !== undefined ? { body } : {}) }, cfg.requestTimeoutMs);
      for (const o of observers) o(ex, surface, spec);
      return ex;
    },
    observe(fn) {
      observers.add(fn);
      return () => observers.delete(fn);
    },
  };
}
