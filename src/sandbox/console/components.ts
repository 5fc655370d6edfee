// Small view pieces shared by the console pages: state badges, times, empty states, error panels,
// and the score card used by the review queue and the request timeline.

import { html, type Html } from './html.js';
import type { ControlResult } from './control.js';
import type { Wire } from './types.js';

const TONE: Record<string, string> = {
  // decided but not yet delivered is still in progress: only `delivered` is green
  delivered: 'good',
  approved: 'info',
  edited: 'info',
  queued: 'info',
  pending: 'info',
  retrying: 'warn',
  pending_review: 'warn',
  received: 'info',
  parsed: 'info',
  scored: 'info',
  rejected: 'bad',
  failed: 'bad',
  expired: 'bad',
  exhausted: 'bad',
  disabled: 'bad',
  active: 'good',
};

export function badge(label: string | number | boolean | null | undefined): Html {
  const text = String(label ?? 'unknown');
  return html`<span class="badge ${TONE[text] ?? 'neutral'}">${text.replace(/_/g, ' ')}</span>`;
}

export function time(iso: unknown): Html {
  if (typeof iso !== 'string' || !iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

export function empty(text: string | Html): Html {
  return html`<p class="empty">${text}</p>`;
}

/** Shown where a page's control API read failed, with the envelope's code and message. */
export function controlError(what: string, res: ControlResult): Html {
  if (res.ok) return html``;
  return html`<div class="panel error" role="alert"><p><strong>Could not load ${what}.</strong>
    The control API answered <code>${res.status} ${res.code}</code>: ${res.message}</p></div>`;
}

interface ScoreDimension {
  name: string;
  score: number;
  evidence: string;
}

export interface Edits {
  editedScore?: number;
  editedRationale?: string;
}

/**
 * ScoreResultV1: overall score, rationale, dimensions with their evidence, model details. A
 * reviewer's edits take the model's place, with the model's value kept beside them.
 */
export function scoreCard(
  score: Wire,
  headingLevel: 'h2' | 'h3' | 'h4' = 'h3',
  edits: Edits | null = null,
  notScored = 'Not scored yet.',
): Html {
  if (!score || typeof score !== 'object') return html`<p class="muted">${notScored}</p>`;
  const dims: ScoreDimension[] = Array.isArray(score.dimensions) ? score.dimensions : [];
  const heading = (text: string) =>
    headingLevel === 'h2'
      ? html`<h2>${text}</h2>`
      : headingLevel === 'h3'
        ? html`<h3>${text}</h3>`
        : html`<h4>${text}</h4>`;
  const shown = typeof edits?.editedScore === 'number' ? edits.editedScore : score.score;
  const rationale = typeof edits?.editedRationale === 'string' ? edits.editedRationale : score.rationale;
  return html`<div class="score">
    <div class="score-head">
      <div class="score-value" aria-label="Score ${shown} out of 100"><span>${shown}</span><small>/100</small></div>
      ${shown !== score.score ? html`<p class="edited" data-field="edited-score">Edited by the reviewer; the model scored <strong>${score.score}</strong>.</p>` : ''}
      <dl class="facts">
        <div><dt>Confidence</dt><dd>${score.confidence}</dd></div>
        <div><dt>Model</dt><dd><code>${score.modelId}</code></dd></div>
        <div><dt>Prompt</dt><dd><code>${score.promptVersion}</code></dd></div>
      </dl>
    </div>
    ${heading('Rationale')}
    <p class="rationale">${rationale}</p>
    ${rationale !== score.rationale ? html`<p class="edited" data-field="edited-rationale">Edited by the reviewer. The model wrote: <q>${score.rationale}</q></p>` : ''}
    ${heading('Dimensions')}
    <div class="table-wrap"><table class="dims">
      <thead><tr><th scope="col">Dimension</th><th scope="col" class="num">Score</th><th scope="col">Evidence</th></tr></thead>
      <tbody>${dims.map((d) => html`<tr><th scope="row">${d.name}</th><td class="num">${d.score}</td><td class="evidence">${d.evidence}</td></tr>`)}</tbody>
    </table></div>
  </div>`;
}

/** "Next page" (and "First page" once paged) links that keep the page's other query parameters. */
export function pager(url: string, nextCursor: string | null | undefined, label = 'results'): Html {
  const u = new URL(url);
  const paged = u.searchParams.has('cursor');
  if (!nextCursor && !paged) return html``;
  const first = new URL(u);
  first.searchParams.delete('cursor');
  const next = new URL(u);
  if (nextCursor) next.searchParams.set('cursor', nextCursor);
  return html`<nav class="pager" aria-label="Pages of ${label}">
    ${paged ? html`<a href="${first.pathname + first.search}">First page</a>` : ''}
    ${nextCursor ? html`<a href="${next.pathname + next.search}" rel="next">Next page →</a>` : html`<span class="muted">Last page</span>`}
  </nav>`;
}

/** A duration in words, coarse: "3 min", "5 h 20 min", "70 h 5 min" (hours up to 4 days: the review window is 72 h), "5 d 4 h". */
export function span(ms: number): string {
  const m = Math.max(0, Math.round(ms / 60_000));
  if (m < 1) return 'under a minute';
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 96) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  return h % 24 ? `${Math.floor(h / 24)} d ${h % 24} h` : `${Math.floor(h / 24)} d`;
}
