// What a reviewer judges, side by side: the candidate as submitted (name, summary, skills,
// experience, or the resume reference) and the job spec (must-haves, nice-to-haves, salary band).

import { html, type Html } from './html.js';
import type { Wire } from './types.js';

const list = (items: unknown, none: string): Html =>
  Array.isArray(items) && items.length > 0
    ? html`<ul class="chips">${items.map((s) => html`<li>${String(s)}</li>`)}</ul>`
    : html`<span class="muted">${none}</span>`;

const idr = (n: unknown) => (typeof n === 'number' ? `IDR ${n.toLocaleString('en-US')}` : null);

function candidateView(c: Wire): Html {
  if (!c || typeof c !== 'object') return html`<p class="muted">No candidate.</p>`;
  if (c.kind === 'resume_ref') {
    return html`<dl class="kv">
      <dt>Resume</dt><dd><code>${c.resumeRef}</code>${c.filename ? html` <span class="muted">(${c.filename})</span>` : ''}</dd>
      <dt>Content</dt><dd class="muted">Parsed from the sandbox's fixture resume of that reference; the score's evidence quotes it.</dd>
    </dl>`;
  }
  return html`<dl class="kv">
    <dt>Name</dt><dd>${c.fullName}</dd>
    ${c.summary ? html`<dt>Summary</dt><dd>${c.summary}</dd>` : ''}
    <dt>Skills</dt><dd>${list(c.skills, 'none given')}</dd>
    <dt>Experience</dt><dd>${typeof c.experienceYears === 'number' ? `${c.experienceYears} years` : html`<span class="muted">not given</span>`}</dd>
    ${c.email || c.phone ? html`<dt>Contact</dt><dd class="wrap">${[c.email, c.phone].filter(Boolean).join(' · ')}</dd>` : ''}
  </dl>`;
}

function jobView(j: Wire): Html {
  if (!j || typeof j !== 'object') return html`<p class="muted">No job spec.</p>`;
  const band = [idr(j.salaryBandMinIdr), idr(j.salaryBandMaxIdr)];
  return html`<dl class="kv">
    <dt>Title</dt><dd>${j.title}</dd>
    <dt>Must-haves</dt><dd>${list(j.mustHaves, 'none')}</dd>
    <dt>Nice-to-haves</dt><dd>${list(j.niceToHaves, 'none')}</dd>
    ${band[0] || band[1] ? html`<dt>Salary band</dt><dd>${band[0] ?? '…'} – ${band[1] ?? '…'}</dd>` : ''}
    ${j.description ? html`<dt>Description</dt><dd>${j.description}</dd>` : ''}
  </dl>`;
}

/** Candidate and job spec in two columns (one on a narrow screen). */
export function submissionView(
  submission: { candidate?: unknown; jobSpec?: unknown } | undefined,
  level: 'h2' | 'h3' = 'h3',
): Html {
  const h = (t: string) => (level === 'h2' ? html`<h2>${t}</h2>` : html`<h3>${t}</h3>`);
  return html`<div class="side-by-side">
    <section class="sub-col" aria-label="Candidate">${h('Candidate')}${candidateView(submission?.candidate)}</section>
    <section class="sub-col" aria-label="Job spec">${h('Job spec')}${jobView(submission?.jobSpec)}</section>
  </div>`;
}
