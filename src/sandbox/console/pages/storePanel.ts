// The "Where the state is kept" panel of the Demo & reset page (D-138): for a shared sandbox, what a
// start replays (steps and bytes since the newest snapshot), the snapshots' count, size and age, the
// versions, how the newest is stored (its parts, D-146), and what this instance loaded and last wrote;
// for the in-memory default, its kind.

import type { Context } from 'hono';
import type { StoreReport } from '../../../domain/store.js';
import { controlError, time } from '../components.js';
import { html, type Html } from '../html.js';
import type { ConsoleEnv } from '../types.js';

type Report = Pick<StoreReport, 'kind'> & { [K in Exclude<keyof StoreReport, 'kind'>]: StoreReport[K] | null };

const size = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
const count = (n: number) => n.toLocaleString('en-US');

function shared(r: Report): Html {
  const { log, snapshots, versions, instance } = r;
  if (!log || !snapshots || !versions || !instance) return html``;
  const newest = snapshots.newest;
  return html`<dl class="facts">
  <div><dt>A start replays</dt><dd data-field="since-snapshot">${count(log.stepsSinceSnapshot)} steps (${size(log.bytesSinceSnapshot)}) after the newest snapshot</dd></div>
  <div><dt>Log kept</dt><dd data-field="log">${count(log.steps)} steps${log.firstSeq !== null ? html`, ${count(log.firstSeq)} to ${count(log.lastSeq ?? 0)}` : ''}; ${size(log.tableBytes)} on disk</dd></div>
  <div><dt>Snapshots</dt><dd data-field="snapshots">${count(snapshots.count)} kept, ${size(snapshots.bytes)} compressed; ${snapshots.every ? `one every ${count(snapshots.every)} steps` : 'only at a clean stop'} and at each clean stop</dd></div>
  <div><dt>Newest snapshot</dt><dd data-field="newest">${newest ? html`step ${count(newest.seq)}, ${size(newest.bytes)} (${size(newest.rawBytes)} before compression), ${time(newest.createdAt)}, ${count(newest.ageSeconds)} s ago, written by sandbox ${newest.codeVersion}` : 'none yet'}</dd></div>
  ${newest ? html`<div><dt>Stored as</dt><dd data-field="parts">${newest.parts ? `${count(newest.parts.count)} parts, one per tenant and one for the rest (${size(newest.parts.globalBytes)}); the largest tenant's ${size(newest.parts.largestTenantBytes)}` : 'one whole row (written before snapshots were stored by part)'}</dd></div>` : ''}
  <div><dt>Versions</dt><dd data-field="versions">log format ${versions.logFormat}, snapshot format ${versions.snapshotFormat}, sandbox ${versions.codeVersion}</dd></div>
  <div><dt>This instance</dt><dd data-field="instance">at step ${count(instance.appliedSeq)}; ${instance.loadedFrom ? (instance.loadedFrom.seq ? `started from the snapshot of step ${count(instance.loadedFrom.seq)} and ${count(instance.loadedFrom.replayedSteps)} steps after it` : `started by replaying ${count(instance.loadedFrom.replayedSteps)} steps`) + ` in ${count(instance.loadedFrom.readyMs)} ms` : ''}${instance.lastWritten ? `; last wrote the snapshot of step ${count(instance.lastWritten.seq)} (calls waited ${instance.lastWritten.exportMs} ms)` : ''}${instance.writing ? '; writing a snapshot now' : ''}${instance.waiting ? '; a snapshot is due and waits for the one being written, or as long again after it' : ''}</dd></div>
</dl>`;
}

/** The panel, read from GET /sandbox/v1/store. */
export async function storePanel(c: Context<ConsoleEnv>): Promise<Html> {
  const res = await c.var.ctl.get<Report>('/store');
  const body = !res.ok
    ? controlError('where the state is kept', res)
    : res.data.kind === 'memory' || !res.data.log
      ? html`<p data-field="kind">In this process's memory (<code>${res.data.kind}</code>): nothing survives a restart but the demo keys, and there is no log or snapshot.</p>`
      : html`<p data-field="kind">In PostgreSQL, shared by every instance on the database: a log of recorded steps and snapshots of the state.</p>${shared(res.data)}`;
  return html`<section class="panel" aria-labelledby="store-h"><h2 id="store-h">Where the state is kept</h2>${body}</section>`;
}
