// One attempt of a webhook delivery: the body rebuilt with the attempt's time, signed with the tenant's
// current secret (and, during a secret rotation, a second signature with the previous one), the headers,
// then an injected chaos failure, a missing URL, the tenant's listener or a POST to its webhookUrl; the
// answer goes to the retry schedule (retries.ts). One attempt at a time per delivery: a retry that comes
// due while one is in flight runs after it. An attempt is its start (`attempt`: sign, record the delivery's
// `flight` as data, send) and its finish (`finishAttempt`: what the answer does), joined by `awaitAnswer`, so
// the finish can be attached again to an attempt restored in flight from a snapshot (snapshot.ts, D-137).
// Requirements: SCR-HOOK-3, SCR-HOOK-6, SCR-HOOK-7, SCR-HOOK-8, POL-HOOK-2, POL-HOOK-4; decisions D-09, D-10,
// D-100, D-101, D-102, D-119, D-137.

import { freezeData } from '../copy.js';
import type { AttemptStart, Delivery } from './delivery.js';
import { DELIVERY_HEADER, tenantOf, TEST_HEADER, USER_AGENT, viaListener, type Outbox } from './outbox.js';
import { attemptIdOf, LISTENER_URL } from './relay.js';
import type { SendOutcome, SentWebhook } from './sender.js';
import { clearScheduledRetry, recordAttempt } from './retries.js';
import { PREVIOUS_SIGNATURE_HEADER, SIGNATURE_HEADER, sign } from './signer.js';

/** The raw body of an attempt made at `now` (sandbox clock). */
export function bodyOf(o: Outbox, d: Delivery, now: number): string {
  return JSON.stringify({
    requestId: d.requestId,
    tenantId: d.tenantId,
    event: d.event,
    result: d.result,
    deliveredAt: o.ctx.clock.iso(now),
  });
}

/** The signature header value of `body` under `secret` (the planted bug wrong_webhook_secret applies here). */
export function signatureOf(o: Outbox, secret: string, body: string): string {
  return sign(o.ctx.faults.planted.signingSecret(secret), body);
}

function headersOf(d: Delivery, previousSignature: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    [SIGNATURE_HEADER]: d.signature,
    [DELIVERY_HEADER]: d.id,
    'X-Screening-Event': d.event,
  };
  if (previousSignature) headers[PREVIOUS_SIGNATURE_HEADER] = previousSignature;
  if (d.test) headers[TEST_HEADER] = 'true';
  return headers;
}

/** Makes an attempt now: `manual` for a person's redelivery, which leaves the automatic schedule alone. */
export function attempt(o: Outbox, d: Delivery, manual: boolean): void {
  const { ctx } = o;
  if (d.inFlight) {
    if (!manual) d.retryAfterFlight = true;
    return;
  }
  if (!manual) clearScheduledRetry(d);
  const n = d.attempts.length + 1;
  const now = ctx.clock.of(d.tenantId).now();
  const at = ctx.clock.iso(now);
  const tenant = tenantOf(o, d.tenantId);
  d.body = bodyOf(o, d, now);
  d.signature = tenant ? signatureOf(o, tenant.webhookSecret, d.body) : '';
  const previous = tenant ? ctx.tenants.previousSecretOf(tenant) : null;
  const previousSignature = previous ? signatureOf(o, previous, d.body) : null;
  const relayed = viaListener(o, d.tenantId);
  d.url = relayed ? LISTENER_URL : (tenant?.webhookUrl ?? null);
  const requestHeaders = headersOf(d, previousSignature);
  const start: AttemptStart = {
    attempt: n,
    at,
    manual,
    url: d.url,
    requestHeaders,
    body: d.body,
    signature: d.signature,
  };
  const unsent = { responseBody: '', responseTruncated: false, durationMs: 0 };
  const injected = ctx.faults.takeWebhookFailure(d.tenantId);
  if (injected !== null) {
    const error = `receiver answered ${injected} (injected by a sandbox chaos rule; nothing was sent)`;
    recordAttempt(o, d, { ...start, ...unsent, statusCode: injected, error }, false, retryOf(o, d));
    return;
  }
  if (!d.url) {
    const error = 'the tenant has no webhookUrl configured';
    recordAttempt(o, d, { ...start, ...unsent, statusCode: null, error }, false, retryOf(o, d));
    return;
  }
  d.inFlight = true;
  const sent: SentWebhook = relayed
    ? o.relay!.forward(
        {
          attemptId: attemptIdOf(d.id, n),
          deliveryId: d.id,
          attempt: n,
          tenantId: d.tenantId,
          requestId: d.requestId,
          event: d.event,
          headers: requestHeaders,
          body: d.body,
        },
        o.timeoutMs,
      )
    : o.send(d.url, requestHeaders, d.body, o.timeoutMs, attemptIdOf(d.id, n));
  // what is in flight never changes: frozen, an export shares it (D-158)
  d.flight = freezeData({ start, key: relayed ? null : (sent.key ?? null) });
  awaitAnswer(o, d, sent);
}

const retryOf = (o: Outbox, d: Delivery) => () => attempt(o, d, false);

/** Attaches the finish of the delivery's attempt in flight to its answer (dropped after a reset). */
export function awaitAnswer(o: Outbox, d: Delivery, answer: Promise<SendOutcome>): void {
  const gen = o.generation;
  void answer.then((out) => {
    if (gen !== o.generation) return;
    finishAttempt(o, d, out);
  });
}

/** What an attempt's answer does: records it, moves the schedule on, then runs a retry that came due meanwhile. */
function finishAttempt(o: Outbox, d: Delivery, out: SendOutcome): void {
  const { start } = d.flight!;
  d.inFlight = false;
  d.flight = null;
  // the answer's fields where the attempt record has always had them
  const unsent = { responseBody: '', responseTruncated: false, durationMs: 0 };
  recordAttempt(o, d, { ...start, ...unsent, ...out }, true, retryOf(o, d));
  if (d.retryAfterFlight) {
    d.retryAfterFlight = false;
    if (d.status === 'retrying') attempt(o, d, false);
  }
}
