// REST fast path: the hot reads (GET /api/v1/jobs, GET /api/v1/jobs/{id}, GET /api/screening/v1/audit)
// and plain submits answered on Node's request and response, without a Web Request, a Hono context and a
// Response per call. It is a branch of the one request pipeline (D-131), not a second copy of it: every
// step is the function the routed app (app.ts) calls, in the same order -- CORS (web/cors.ts), chaos
// (web/chaos.ts over domain/faults.ts), the key (web/auth.ts; SCR-AUTH-1, JOB-AUTH-1) and its window with
// the rate headers (web/rateHeaders.ts; JOB-RATE-1, JOB-RATE-3, JOB-RATE-4), the contract's parameter
// checks and the domain's answer (http/jobs.ts, http/screening.ts), the error envelope (web/envelope.ts;
// SCR-ERR-1, JOB-ERR-1), self-check (web/selfcheck.ts) and the request-log record (web/callLog.ts). What is
// its own is only the transport: reading Node's request, and writing the headers in the order and case
// @hono/node-server writes a Hono context's (HeaderSet below; pinned with the versions, checked by
// test/framework-internals.test.ts). test/rest-fastpath.test.ts proves both paths answer the same bytes
// on generated calls. Every other call, and any URL the router would normalise first, is the routed app's.

import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { Core } from '../domain/core.js';
import type { RateDecision } from '../domain/ratelimit/limiter.js';
import type { Principal, Scope } from '../domain/tenants.js';
import { limits } from '../domain/plans.js';
import { authenticateCall } from '../web/auth.js';
import { isJsonType, parseJsonBytes } from '../web/body.js';
import { isIdentityEncoding, readNode } from '../web/bodyStream.js';
import { applyChaos, callerTenant } from '../web/chaos.js';
import { peerIp } from '../web/clientIp.js';
import { CORS_ANSWER } from '../web/cors.js';
import { COPY_LIMIT, recordCall } from '../web/callLog.js';
import { errorAnswer } from '../web/envelope.js';
import { rawHeaderValue } from '../web/headers.js';
import { rateHeadersOnError, writeRateHeaders, type SetHeader } from '../web/rateHeaders.js';
import { checksAnswersOf, FAILURE_TYPE, failureBody, selfCheckFailure } from '../web/selfcheck.js';
import { jobAnswer, keyWindow, searchAnswer } from './jobs.js';
import { auditAnswer, submitAnswer } from './screening.js';

/** What a route's answer needs from its call. */
interface Asked {
  core: Core;
  principal: Principal;
  url: string;
  path: string;
  /** The parsed JSON body (POST routes). */
  body: unknown;
  /** Sets a header before the answer is built (Hono's c.header); the name in lower case. */
  header(name: string, value: string): void;
}

interface Route {
  method: 'GET' | 'POST';
  scope: Scope;
  /** /api/v1 answers carry the rate headers (jobs.ts). */
  rated: boolean;
  /** How the routed handler names its content type: alone, Hono keeps a single header's spelling. */
  typeName: 'content-type' | 'Content-Type';
  answer(a: Asked): { status: number; body: string | Uint8Array };
}

const ok = (body: string | Uint8Array) => ({ status: 200, body });
const SEARCH: Route = {
  method: 'GET',
  scope: 'jobs',
  rated: true,
  typeName: 'content-type',
  answer: (a) => ok(searchAnswer(a.core, a.principal, a.url)),
};
const JOB: Route = {
  method: 'GET',
  scope: 'jobs',
  rated: true,
  typeName: 'content-type',
  answer: (a) => ok(jobAnswer(a.core, a.url, a.path.slice(JOB_PREFIX.length))),
};
const AUDIT: Route = {
  method: 'GET',
  scope: 'screening',
  rated: false,
  typeName: 'Content-Type',
  answer: (a) => ok(auditAnswer(a.core, a.principal, a.url)),
};
const SUBMIT: Route = {
  method: 'POST',
  scope: 'screening',
  rated: false,
  typeName: 'Content-Type',
  answer(a) {
    const out = submitAnswer(a.core, a.principal, a.body);
    if (out.replayed) a.header('idempotent-replayed', 'true');
    return { status: out.status, body: JSON.stringify(out.result) };
  },
};

const JOB_PREFIX = '/api/v1/jobs/';
const SUBMIT_PATH = '/api/screening/v1/screen';
// Request targets the router takes as they are: no percent-decoding of the path, no characters the URL
// parser would escape or drop, nothing to resolve. Anything else goes the routed way.
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;
const JOB_ID = /^[A-Za-z0-9_-]+$/;

/**
 * Whether the routed app's server adapter accepts this Host header (its own check: the URL parser must
 * keep the host name as sent); a refused one is answered there. Decided once per distinct header.
 * Framework internal (D-131): @hono/node-server's Host check; test/rest-fastpath.test.ts sends hosts it
 * refuses or rewrites, so a change shows there as a divergence.
 */
function hostAccepted(host: string): boolean {
  let ok = hostsSeen.get(host);
  if (ok === undefined) {
    try {
      const { hostname } = new URL(`http://${host}/`);
      ok = hostname.length === host.length || hostname === host.replace(/:\d+$/, '');
    } catch {
      ok = false;
    }
    if (hostsSeen.size >= 64) hostsSeen.clear();
    hostsSeen.set(host, ok);
  }
  return ok;
}
const hostsSeen = new Map<string, boolean>();

function routeOf(method: string | undefined, path: string): Route | null {
  if (method === 'POST') return path === SUBMIT_PATH ? SUBMIT : null;
  if (method !== 'GET') return null;
  if (path === '/api/v1/jobs') return SEARCH;
  if (path === '/api/screening/v1/audit') return AUDIT;
  if (path.startsWith(JOB_PREFIX) && JOB_ID.test(path.slice(JOB_PREFIX.length))) return JOB;
  return null;
}

/**
 * A body the fast path reads: a declared length within the limit, JSON, not encoded. Any other body is
 * refused before it is read, and its refusal (with the adapter's handling of the unread rest) is the
 * routed app's; so are calls that a chaos rule might hit or that no key admits, all decided without
 * any effect. Null when the call is the routed app's, else the declared length.
 */
function plainBody(core: Core, raw: readonly string[]): number | null {
  if (core.faults.armed) return null;
  const length = rawHeaderValue(raw, 'content-length');
  if (length === undefined || !/^\d{1,9}$/.test(length) || Number(length) > limits.policy.bodyMaxBytes) return null;
  if (rawHeaderValue(raw, 'transfer-encoding') !== undefined) return null;
  if (!isJsonType(rawHeaderValue(raw, 'content-type')) || !isIdentityEncoding(rawHeaderValue(raw, 'content-encoding')))
    return null;
  return Number(length);
}

// CORS_ANSWER's headers as the context keeps them
const CORS_SET = CORS_ANSWER.map(([name, value]) => [name.toLowerCase(), value] as const);

/**
 * Headers set on a call before its answer, as Hono's context keeps them: lower-case names, one value each,
 * written sorted by name. At most a handful, so kept in two short arrays.
 * Framework internal (D-131): how hono's Context and @hono/node-server's writer name and order the headers
 * (a lone content type keeps c.json's spelling, a Headers object goes out sorted in lower case, the
 * adapter adds Content-Length last; reading a response's headers turns the kept object into Headers).
 * Both are pinned exactly in package.json; test/framework-internals.test.ts fails when any of it changes.
 */
class HeaderSet {
  readonly names: string[] = [];
  readonly values: string[] = [];

  /** `name` in lower case; undefined removes it. */
  set(name: string, value: string | undefined): void {
    const i = this.names.indexOf(name);
    if (value === undefined) {
      if (i >= 0) {
        this.names.splice(i, 1);
        this.values.splice(i, 1);
      }
    } else if (i >= 0) this.values[i] = value;
    else {
      this.names.push(name);
      this.values.push(value);
    }
  }

  /** Name, value, name, value…: sorted by name, then Content-Length last. */
  flat(length: number): OutgoingHttpHeader[] {
    const { names, values } = this;
    const order = names.map((_, i) => i).sort((a, b) => (names[a] < names[b] ? -1 : 1));
    const out: OutgoingHttpHeader[] = [];
    for (const i of order) out.push(names[i], values[i]);
    out.push('Content-Length', length);
    return out;
  }
}

/** One call on the fast path, from arrival to its record in the request log. */
class Call implements Asked {
  private readonly atMs: number;
  private readonly t0 = performance.now();
  /** Headers set before the answer is built, as Hono's c.header() keeps them. */
  private set: HeaderSet | null = null;
  principal!: Principal;
  private rateSet = false;
  private bytes: Uint8Array | null = null;
  body: unknown = undefined;

  constructor(
    readonly core: Core,
    private readonly route: Route,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly url: string,
    readonly path: string,
    private readonly authorization: string | undefined,
    origin: string | undefined,
    /** The declared body length (POST), or null. */
    private readonly declared: number | null,
    /** Already admitted (POST: the key is checked before the call is taken). */
    principal: Principal | null,
  ) {
    if (principal) this.principal = principal;
    if (origin) for (const [name, value] of CORS_SET) this.header(name, value);
    this.atMs = core.clock.now();
  }

  /** The request body's text when the log keeps it (within callLog.ts's copy limit), else ''. */
  private requestText(): string {
    const bytes = this.bytes;
    if (bytes === null || this.declared === null || this.declared > COPY_LIMIT) return '';
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }

  header(name: string, value: string | undefined): void {
    if (value !== undefined || this.set !== null) (this.set ??= new HeaderSet()).set(name, value);
  }

  /** header(), as the step functions take it. */
  private readonly setHeader: SetHeader = (name, value) => this.header(name, value);

  private rateHeaders(d: RateDecision): void {
    writeRateHeaders(this.setHeader, d, this.core.faults);
    this.rateSet = true;
  }

  start(): void {
    if (this.declared !== null) {
      readNode(this.req, limits.policy.bodyMaxBytes).then(
        (buf) => {
          this.bytes = buf;
          this.serve();
        },
        (err) => this.fail(err),
      );
      return;
    }
    let delay: Promise<void> | undefined;
    try {
      delay = applyChaos(this.core.faults, this.route.method, this.path, undefined, () =>
        callerTenant(this.core.tenants, this.req.headers.authorization),
      );
    } catch (err) {
      return this.fail(err);
    }
    if (delay)
      delay.then(
        () => this.serve(),
        (err) => this.fail(err),
      );
    else this.serve();
  }

  private serve(): void {
    let answer: { status: number; body: string | Uint8Array };
    try {
      const { core, route } = this;
      this.principal ??= authenticateCall(core.tenants, this.url, this.authorization, route.scope);
      if (route.rated) this.rateHeaders(keyWindow(core, this.principal, (d) => this.rateHeaders(d)));
      if (this.bytes !== null) this.body = parseJsonBytes(this.bytes);
      answer = route.answer(this);
    } catch (err) {
      return this.fail(err);
    }
    this.finishWith(answer.status, null, answer.body);
  }

  /** The envelope, as app.ts's error handler builds it (the envelope step, then the rate step's error part). */
  private fail(err: unknown): void {
    const { core, route } = this;
    const { status, body } = errorAnswer(err, this.setHeader, (status) => {
      if (!route.rated) return;
      const call = { authorization: this.authorization, ip: peerIp(this.req.socket?.remoteAddress) };
      rateHeadersOnError(this.setHeader, core, this.rateSet, call, status);
      this.rateSet = true;
    });
    // c.json's own spelling of its content type, kept when no header was set before
    this.finishWith(status, this.set === null ? 'Content-Type' : null, JSON.stringify(body));
  }

  /**
   * Writes the answer. Its headers: the ones set on the call, sorted, with the content type among them;
   * or, when none was set, the content type alone in the spelling `typeName` gives (Hono keeps a lone
   * header's case).
   */
  private finishWith(status: number, typeName: string | null, body: string | Uint8Array): void {
    const { core } = this;
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const { method } = this.route;
    let headers: OutgoingHttpHeader[];
    if (this.set === null) headers = [typeName ?? this.route.typeName, 'application/json', 'Content-Length', length];
    else {
      this.set.set('content-type', 'application/json');
      headers = this.set.flat(length);
    }
    if (core.config.selfCheck && checksAnswersOf(method, this.path)) {
      const answered = new Headers();
      for (let i = 0; i < headers.length - 2; i += 2) answered.append(String(headers[i]), String(headers[i + 1]));
      const text =
        typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
      const message = selfCheckFailure(core.contracts, method, this.path, status, text, answered);
      if (message !== null) {
        status = 500;
        body = failureBody(message);
        headers = ['content-type', FAILURE_TYPE, 'Content-Length', Buffer.byteLength(body)];
      } else {
        // the routed self-check reads the answer's headers, which turns the server adapter's kept header
        // object into Headers: every name goes out in lower case
        for (let i = 0; i < headers.length; i += 2) headers[i] = String(headers[i]).toLowerCase();
      }
    }
    recordCall(core, {
      atMs: this.atMs,
      t0: this.t0,
      t1: performance.now(),
      tenantId: this.principal?.tenant.id ?? callerTenant(this.core.tenants, this.authorization),
      api: 'rest',
      method,
      path: this.url,
      tool: null,
      status,
      hasBody: this.declared !== null,
      declared: this.declared ?? NaN,
      request: this.requestText(),
      response: body,
    });
    this.res.writeHead(status, headers);
    this.res.end(body);
  }
}

export interface FastPath {
  /** True when the fast path took the call (and answers it), false when it is the routed app's. */
  take(req: IncomingMessage, res: ServerResponse): boolean;
  /** How many calls it took since start (tests prove with it that the path under test was this one). */
  readonly taken: number;
}

/** The fast path, built once the core exists; `--log` mode leaves every call to the routed app. */
export function restFastPath(core: Core): FastPath {
  let taken = 0;
  const take = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (core.config.log) return false;
    const url = req.url ?? '';
    if (url.charCodeAt(0) !== 47 || !PLAIN_TARGET.test(url)) return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const route = routeOf(req.method, path);
    if (!route) return false;
    const raw = req.rawHeaders;
    const host = rawHeaderValue(raw, 'host');
    if (host !== undefined && !hostAccepted(host)) return false;
    const authorization = rawHeaderValue(raw, 'authorization');
    let declared: number | null = null;
    let principal: Principal | null = null;
    if (route.method === 'POST') {
      declared = plainBody(core, raw);
      if (declared === null || req.readableDidRead) return false;
      try {
        principal = authenticateCall(core.tenants, url, authorization, route.scope);
      } catch {
        return false;
      }
    }
    taken++;
    new Call(
      core,
      route,
      req,
      res,
      url,
      path,
      authorization,
      rawHeaderValue(raw, 'origin'),
      declared,
      principal,
    ).start();
    return true;
  };
  return {
    take,
    get taken() {
      return taken;
    },
  };
}
