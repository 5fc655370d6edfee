// Direct probes of the screening document's planted violations (the second round in violations.ts): each is
// false on a clean deployment and true with its switch on. Used by violations.test.ts.
import { createHmac } from 'node:crypto';
import type { AltDeployment } from './index.js';
import { call, submitBody, type Receiver } from './test-support.js';

type Probe = (d: AltDeployment) => Promise<boolean>;

const SCR = '/api/screening/v1';
const keys = (d: AltDeployment) => d.profile.keys;
const submit = (d: AltDeployment, key = keys(d).pro, body: unknown = submitBody()) =>
  call(d.baseUrl, key, `${SCR}/screen`, body);
const usage = async (d: AltDeployment, key = keys(d).pro) => (await call(d.baseUrl, key, `${SCR}/usage`)).body;
const audit = async (d: AltDeployment, key = keys(d).pro, query = 'limit=500') =>
  (await call(d.baseUrl, key, `${SCR}/audit?${query}`)).body;
const candidate = (over: Record<string, unknown>) =>
  submitBody({ candidate: { kind: 'structured', fullName: 'Dewi Lestari', ...over } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A race shows only when the calls overlap in the deployment, which a loaded machine does not give every time (the
 * calls may arrive one after another): up to four tries. A deployment without the race never shows it, however often.
 */
async function raced(attempt: () => Promise<boolean>, tries = 4): Promise<boolean> {
  for (let i = 0; i < tries; i++) if (await attempt()) return true;
  return false;
}

/** Submits new keys with the free key until it answers 402; returns how many were accepted (at most 152). */
async function spendFree(d: AltDeployment): Promise<number> {
  for (let i = 0; i < 152; i++) if ((await submit(d, keys(d).free)).status === 402) return i;
  return 152;
}

export function screeningProbes(receiver: () => Receiver): Record<string, Probe> {
  /** Submits one pro request and waits for its delivery of `event`; returns its hooks and its ledger rows. */
  async function lifecycle(d: AltDeployment, event = 'screening.review_decided') {
    const rx = receiver();
    const id = (await submit(d)).body.requestId;
    await rx.until((hs) => hs.some((h) => h.body.requestId === id && h.body.event === event));
    await sleep(50);
    const rows = (await audit(d)).events.filter((r: any) => r.requestId === id);
    return { id, hooks: rx.hooks.filter((h) => h.body.requestId === id), rows };
  }
  const decided = (hooks: { body: any }[]) => hooks.find((h) => h.body.event === 'screening.review_decided')!;

  return {
    'scr-no-key-403': async (d) => (await call(d.baseUrl, undefined, `${SCR}/usage`)).status === 403,
    'scr-unknown-key-403': async (d) =>
      (await call(d.baseUrl, 'altk_live_000000000000000000000000', `${SCR}/usage`)).status === 403,
    'scr-forbidden-code': async (d) => (await usage(d, keys(d).noScreeningScope)).error.code === 'access_denied',
    'scr-error-no-message': async (d) => (await usage(d, '')).error.message === undefined,
    'scr-error-code-bad-request': async (d) => (await submit(d, keys(d).pro, {})).body.error.code === 'bad_request',
    'audit-limit-422': async (d) => (await call(d.baseUrl, keys(d).pro, `${SCR}/audit?limit=0`)).status === 422,
    'scr-no-scope-404': async (d) => (await call(d.baseUrl, keys(d).noScreeningScope, `${SCR}/usage`)).status === 404,
    'usage-path-moved': async (d) => (await call(d.baseUrl, keys(d).pro, `${SCR}/usage`)).status === 404,
    'submit-new-200': async (d) => (await submit(d)).status === 200,
    'request-id-bare': async (d) => !(await submit(d)).body.requestId.startsWith('scr_'),
    'jobspec-defaulted': async (d) => (await submit(d, keys(d).pro, submitBody({ jobSpec: undefined }))).status === 201,
    'kind-inferred': async (d) =>
      (await submit(d, keys(d).pro, submitBody({ candidate: { fullName: 'Dewi Lestari' } }))).status === 201,
    'candidate-open': async (d) => (await submit(d, keys(d).pro, candidate({ nickname: 'Dee' }))).status === 201,
    'skills-any-type': async (d) => (await submit(d, keys(d).pro, candidate({ skills: [1, 2] }))).status === 201,
    'idem-global': async (d) => {
      const b = submitBody();
      return (await submit(d, keys(d).free, b)).body.requestId === (await submit(d, keys(d).pro, b)).body.requestId;
    },
    'idem-cross-tenant-refused': async (d) => {
      const b = submitBody();
      await submit(d, keys(d).free, b);
      return (await submit(d, keys(d).pro, b)).status === 400;
    },
    'idem-race': (d) =>
      raced(async () => {
        const b = submitBody();
        const all = await Promise.all(Array.from({ length: 5 }, () => submit(d, keys(d).pro, b)));
        return new Set(all.map((r) => r.body.requestId)).size > 1;
      }),
    'charge-race': (d) =>
      raced(async () => {
        const before = (await usage(d)).creditsRemaining;
        await Promise.all(Array.from({ length: 5 }, () => submit(d)));
        return before - (await usage(d)).creditsRemaining !== 5;
      }),
    'replay-402-when-spent': async (d) => {
      const first = submitBody();
      await submit(d, keys(d).free, first);
      await spendFree(d);
      return (await submit(d, keys(d).free, first)).status === 402;
    },
    'invalid-charges': async (d) => {
      const before = (await usage(d)).creditsRemaining;
      await submit(d, keys(d).pro, submitBody({ jobSpec: { mustHaves: [] } }));
      return (await usage(d)).creditsRemaining !== before;
    },
    'free-cap-ignored': async (d) => (await spendFree(d)) > 150,
    'paid-overdraft': async (d) => (await submit(d, keys(d).screeningSpent)).status === 201,
    'free-cap-early': async (d) => (await spendFree(d)) < 150,
    'usage-no-tenant-id': async (d) => !('tenantId' in (await usage(d))),
    'usage-tier-capitalised': async (d) => (await usage(d)).planTier === 'Pro',
    'free-cap-on-paid': async (d) => 'freeScreenCap' in (await usage(d)),
    'reset-at-omitted': async (d) => !('resetAt' in (await usage(d, keys(d).free))),
    'usage-cached': async (d) => {
      const before = (await usage(d)).creditsRemaining;
      await submit(d);
      return (await usage(d)).creditsRemaining === before;
    },
    'audit-no-next-cursor': async (d) => !('nextCursor' in (await audit(d))),
    'since-unvalidated': async (d) =>
      (await call(d.baseUrl, keys(d).pro, `${SCR}/audit?since=yesterday`)).status === 200,
    'cursor-carries-tenant': async (d) => {
      const mine = [(await submit(d, keys(d).free)).body.requestId, (await submit(d, keys(d).free)).body.requestId];
      const cursor = (await audit(d, keys(d).free, 'limit=1')).nextCursor;
      return (await audit(d, keys(d).pro, `cursor=${cursor}`)).events.some((r: any) => mine.includes(r.requestId));
    },
    'ledger-from-stale': async (d) =>
      (await lifecycle(d)).rows.some((r: any) => r.toState === 'pending_review' && r.fromState === 'received'),
    'ledger-rewrites-intake': async (d) =>
      (await lifecycle(d)).rows.some((r: any) => r.toState === 'received' && r.payload?.outcome !== undefined),
    'ledger-drops-scoring': async (d) => !(await lifecycle(d)).rows.some((r: any) => r.toState === 'scored'),
    'ledger-epoch-created': async (d) => {
      await submit(d);
      return typeof (await audit(d)).events[0].createdAt === 'number';
    },
    'state-in-review': async (d) => (await lifecycle(d)).rows.some((r: any) => r.toState === 'in_review'),
    'decided-hook-early': async (d) => decided((await lifecycle(d)).hooks).body.result.latencyMs < 20,
    'review-to-delivered': async (d) =>
      (await lifecycle(d)).rows.some((r: any) => r.toState === 'delivered' && r.actor.startsWith('reviewer:')),
    'no-scored-hook': async (d) => !(await lifecycle(d)).hooks.some((h) => h.body.event === 'screening.scored'),
    'no-decided-hook': async (d) => {
      const { id } = await lifecycle(d, 'screening.scored');
      await sleep(300);
      return !receiver().hooks.some((h) => h.body.requestId === id && h.body.event === 'screening.review_decided');
    },
    'decision-latency-text': async (d) => typeof decided((await lifecycle(d)).hooks).body.result.latencyMs === 'string',
    'signature-no-prefix': async (d) =>
      !String((await lifecycle(d)).hooks[0].headers['x-screening-signature']).startsWith('sha256='),
    'hook-first-tenant-secret': async (d) => {
      const { hooks } = await lifecycle(d);
      const good = (raw: string) =>
        'sha256=' + createHmac('sha256', d.profile.webhookSecrets.pro!).update(raw).digest('hex');
      return hooks.some((h) => String(h.headers['x-screening-signature']).toLowerCase() !== good(h.raw));
    },
    'description-version-2': async (d) =>
      (await call(d.baseUrl, undefined, '/api/openapi.json')).body.info.version !== '1.0.0',
    'resume-ref-no-dimensions': async (d) => {
      const rx = receiver();
      const id = (await submit(d, keys(d).pro, submitBody({ candidate: { kind: 'resume_ref', resumeRef: 'cv-1' } })))
        .body.requestId;
      await rx.until((hs) => hs.some((h) => h.body.requestId === id && h.body.event === 'screening.scored'));
      return rx.hooks.find((h) => h.body.requestId === id)!.body.result.dimensions.length === 0;
    },
    'hook-foreign-tenant': async (d) => (await lifecycle(d)).hooks[0].body.tenantId !== (await usage(d)).tenantId,
  };
}
