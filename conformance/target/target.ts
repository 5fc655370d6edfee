// The one interface through which checks reach a deployment: HTTP calls addressed by surface (screening
// API, jobs API, control API, site documents) and full contract paths, with every exchange recorded
// and offered to observers (the response monitor). The same suite runs against an in-process sandbox,
// a remote URL or a validating proxy, only the base URLs differ.

import type { HarnessConfig } from '../config.js';
import { send, type Exchange } from './http.js';
import { RateGovernor } from './rate-governor.js';

/** Retries of one call that keeps answering 429 before the 429 is handed to the check. */
const MAX_RETRIES = 3;

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
  /**
   * The call spends a rate window on purpose: it is neither paced nor retried, so the check sees the 429.
   * Every other call waits for its key's window and retries a 429 after Retry-After.
   */
  rateProbe?: boolean;
}

export type ExchangeObserver = (ex: Exchange, surface: Surface, spec: CallSpec) => void;

export interface Target {
  readonly bases: HarnessConfig['bases'];
  readonly mcpUrl: string;
  readonly anonMcpUrl: string | null;
  call(surface: Surface, spec: CallSpec): Promise<Exchange>;
  /** Paces the harness's own calls per key (shared with the MCP clients, whose calls count in the same window). */
  readonly governor: RateGovernor;
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
  const governor = new RateGovernor();
  return {
    governor,
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
      const credential = headers.authorization;
      for (let attempt = 0; ; attempt++) {
        const ticket = credential && !spec.rateProbe ? await governor.beforeCall(credential, surface) : undefined;
        let ex: Exchange;
        try {
          ex = await send(
            { method: spec.method ?? 'GET', url, headers, ...(body !== undefined ? { body } : {}) },
            cfg.requestTimeoutMs,
          );
        } finally {
          governor.release(ticket); // observe() below reads the answer; the place in the window is the call's until it is answered
        }
        const res = ex.response;
        if (credential && res) governor.observe(credential, res.status, res.headers, surface);
        for (const o of observers) o(ex, surface, spec);
        if (!res || res.status !== 429 || spec.rateProbe || attempt >= MAX_RETRIES) return ex;
        governor.retries++;
        await governor.pause(governor.retryDelay(res.headers));
      }
    },
    observe(fn) {
      observers.add(fn);
      return () => observers.delete(fn);
    },
  };
}
