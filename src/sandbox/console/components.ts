// Small view pieces shared by the console pages: state badges, times, empty states, error panels,
// and the score card used by the review queue and the request timeline.

import { html, type Html } from './html.js';
import type { ControlResult } from './control.js';

const TONE: Record<string, string> = {
  delivered: 'good', approved: 'good', edited: 'good', queued: 'info', pending: 'info', retrying: 'warn',
  pending_review: 'warn', received: 'info', parsed: 'info', scored: 'info',
  rejected: 'bad', failed: 'bad', expired: 'bad', exhausted: 'bad', disabled: 'bad', active: 'good',
};

export function badge(label: unknown): Html {
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

/** ScoreResultV1: overall score, rationale, dimensions with their evidence, model details. */
export function scoreCard(score: any, headingLevel: 'h2' | 'h3' | 'h4' = 'h3'): Html {
  if (!score || typeof score !== 'object') return html`<p class="muted">Not scored yet.</p>`;
  const dims: ScoreDimension[] = Array.isArray(score.dimensions) ? score.dimensions : [];
  const heading = (text: string) => (headingLevel === 'h2' ? html`<h2>${text}</h2>` : headingLevel === 'h3' ? html`<h3>${text}</h3>` : html`<h4>${text}</h4>`);
  return html`<div class="score">
    <div class="score-head">
      <div class="score-value" aria-label="Score ${score.score} out of 100"><span>${score.score}</span><small>/100</small></div>
      <dl class="facts">
        <div><dt>Confidence</dt><dd>${score.confidence}</dd></div>
        <div><dt>Model</dt><dd><code>${score.modelId}</code></dd></div>
        <div><dt>Prompt</dt><dd><code>${score.promptVersion}</code></dd></div>
      </dl>
    </div>
    ${heading('Rationale')}
    <p class="rationale">${score.rationale}</p>
    ${heading('Dimensions')}
    <table class="dims">
      <thead><tr><th scope="col">Dimension</th><th scope="col" class="num">Score</th><th scope="col">Evidence</th></tr></thead>
      <tbody>${dims.map((d) => html`<tr><th scope="row">${d.name}</th><td class="num">${d.score}</td><td class="evidence">${d.evidence}</td></tr>`)}</tbody>
    </table>
  </div>`;
}
