// Screening states in plain words, with the reason of a failure or an expiry taken from the
// request's ledger, and the health of a request's webhook deliveries for its badge.

import { badge } from './components.js';
import { html, type Html } from './html.js';

const WORDS: Record<string, string> = {
  received: 'Received: waiting to be parsed and scored.',
  parsed: 'Parsed: the candidate was read; scoring is next.',
  scored: 'Scored by the model; about to be queued for human review.',
  pending_review: 'Waiting for a human reviewer to approve, reject or edit the score.',
  approved: 'Approved by a reviewer; the decision is being delivered to the tenant’s webhook.',
  rejected: 'Rejected by a reviewer; the decision is being delivered to the tenant’s webhook.',
  edited: 'Edited by a reviewer; the decision is being delivered to the tenant’s webhook.',
  delivered: 'Done: the reviewer’s decision was delivered.',
  failed: 'Failed.',
  expired: 'Expired: no reviewer decided within the review window.',
};

interface LedgerRow {
  toState: string;
  payload?: unknown;
}

/** Why the request ended `failed` or `expired`, from the payload of the row that moved it there. */
export function reasonOf(state: string, ledger: readonly LedgerRow[]): string | null {
  if (state !== 'failed' && state !== 'expired') return null;
  const row = [...ledger].reverse().find((r) => r.toState === state);
  const p = row?.payload as { reason?: unknown } | undefined;
  return typeof p?.reason === 'string' ? p.reason : null;
}

export function stateInWords(state: string, ledger: readonly LedgerRow[]): Html {
  const reason = reasonOf(state, ledger);
  return html`<p class="state-words" data-field="state-words">${WORDS[state] ?? state}${reason ? html` <strong>Reason:</strong> ${reason}.` : ''}</p>`;
}

export type DeliveryHealth = 'none' | 'ok' | 'pending' | 'failing';

/** The worst of a request's deliveries: failing (retrying or exhausted) over pending over ok. */
export function deliveryHealth(deliveries: readonly { status: string }[]): DeliveryHealth {
  if (deliveries.length === 0) return 'none';
  if (deliveries.some((d) => d.status === 'retrying' || d.status === 'exhausted')) return 'failing';
  if (deliveries.some((d) => d.status === 'pending')) return 'pending';
  return 'ok';
}

export function healthBadge(h: DeliveryHealth): Html {
  const label = {
    none: 'no deliveries',
    ok: 'deliveries ok',
    pending: 'delivery pending',
    failing: 'delivery failing',
  }[h];
  const tone = { none: 'neutral', ok: 'good', pending: 'info', failing: 'bad' }[h];
  return html`<span class="badge ${tone}" data-health="${h}">${label}</span>`;
}

export { badge };
