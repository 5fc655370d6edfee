// Shapes shared by the mutation runner, its worker and the report, and the small helpers they share.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ALT_DIR = path.join(ROOT, 'test/alt-deployment');
export const RESULT_PREFIX = 'MUTANT-RESULT ';

/** What the harness run against one mutant is given (the same options as the clean run it is compared with). */
export interface WorkerOptions {
  seed: number;
  runs: number;
  allowSpend: string[];
  rateWindows: boolean;
  failFast: boolean;
  violations?: string[];
  only?: string[];
}

export interface WorkerResult {
  outcome: 'killed' | 'survived' | 'error';
  /** The `must` requirement ids whose checks failed. */
  failed: string[];
  harnessErrors: string[];
  /** The `must` ids that passed (a run that went to its end only). */
  passed?: string[];
  /** The first check with a `must` failure, and its first reason. */
  firstCheck?: string;
  why?: string;
  error?: string;
  durationMs: number;
}

/** The ids of every `must` requirement of contracts/requirements.yaml. */
export function mustIds(file = path.join(ROOT, 'contracts/requirements.yaml')): Set<string> {
  const doc = parse(readFileSync(file, 'utf8')) as unknown;
  const out = new Set<string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.id === 'string' && o.level === 'must') out.add(o.id);
    Object.values(o).forEach(visit);
  };
  visit(doc);
  return out;
}

// a free loopback port for the deployment's webhook receiver: the one helper the tests use too
export { freePort } from '../test/support/ports.js';
