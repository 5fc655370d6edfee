// What tests of cores run in process share. Secrets (API keys, webhook secrets, session ids) drawn from a numbered stream instead of crypto, so two
// cores that draw the same number of bytes hand out the same secrets; a twin starts where its original stands.

import { createHash } from 'node:crypto';
import type { Core } from '../../src/domain/core.js';

export class Entropy {
  drawn = 0;
  readonly draw = (length: number): Uint8Array => {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i += 32)
      createHash('sha256')
        .update(`entropy ${this.drawn++}`)
        .digest()
        .copy(out, i, 0, Math.min(32, length - i));
    return out;
  };
}

/** Lets deferred work, timers due now and webhook attempts in flight finish. */
export async function quiesce(core: Core): Promise<void> {
  for (let calm = 0; calm < 3;) {
    await new Promise((r) => setTimeout(r, 0));
    if (core.webhooks.list().some((d) => d.inFlight)) {
      calm = 0;
      await new Promise((r) => setTimeout(r, 2));
    } else calm++;
  }
}

/** A call through an app in process with a bearer key (the admin token by default), the answer's body parsed when JSON. */
export function appCaller(app: { fetch: (req: Request) => Response | Promise<Response> }, admin: string) {
  return async (method: string, path: string, body?: unknown, key: string = admin) => {
    const res = await app.fetch(
      new Request(`http://sandbox.test${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json, text/event-stream',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: compared as text
    }
    return { status: res.status, body: parsed };
  };
}

/** Real durations (the request log's, a receiver's answer time) differ between two runs; nothing else may. */
export function withoutDurations(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDurations);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v).flatMap(([k, x]) => (k === 'durationMs' ? [] : [[k, withoutDurations(x)]])),
    );
  return v;
}

/** The JSON-RPC body of an MCP `tools/call`. */
export const toolCall = (name: string, args: unknown) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** A drawn call of the employer tools or draft_application (`arg` picks a job, a query or a brief). */
export function employerToolCall(
  tool: 'draft_application' | 'talent_search' | 'hire',
  arg: number,
  jobs: readonly string[],
  queries: readonly string[],
) {
  const args =
    tool === 'draft_application'
      ? { id: jobs[arg % jobs.length] }
      : tool === 'talent_search'
        ? { query: queries[arg % queries.length] }
        : {
            brief: `${['Backend engineer', 'Data analyst', 'Zookeeper'][arg % 3]} needed for our team`,
            company: 'Acme Nusantara',
            contact_email: 'talent@acme.example',
            publish_if_no_match: true,
          };
  return toolCall(tool, args);
}

/** The candidates, job titles (one of them the magic title that expires a review at once) and search words drawn calls pick from. */
export const DRAWN_CANDIDATES = [
  { kind: 'structured', fullName: 'Sari Wulandari', skills: ['TypeScript', 'PostgreSQL'], experienceYears: 6 },
  { kind: 'structured', fullName: 'Budi Santoso', skills: ['Go'], experienceYears: 2 },
  { kind: 'resume_ref', resumeRef: 'res_demo_data' },
];
export const DRAWN_TITLES = ['Senior Backend Engineer', 'Go Developer', 'Sandbox Expire', 'Data Analyst'];
export const DRAWN_QUERIES = ['engineer', 'remote', 'design'];

/** The body of a drawn screening submit: its idempotency key, candidate and job title by index. */
export const drawnSubmit = (op: { idem: number; cand: number; title: number }) => ({
  idempotencyKey: `idem-${op.idem}`,
  candidate: DRAWN_CANDIDATES[op.cand],
  jobSpec: { title: DRAWN_TITLES[op.title], mustHaves: ['TypeScript'] },
});
