// Saved counterexamples (per target, under the report directory by default): every shrunk failing input
// a run finds is written there, and every run replays the saved ones of each property before generating new inputs, so a bug
// once found stays covered. A file holds the minimal input itself (JSON), not only a seed and a path,
// so it keeps replaying after the generators change.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Regression {
  /** The target it was found on; a saved counterexample is only replayed against that target. */
  target?: string;
  check: string;
  property: string;
  requirement: string;
  why: string;
  value: unknown;
  seed: number;
  path?: string;
  savedAt: string;
}

export interface StoredRegression extends Regression {
  file: string;
}

const slug = (s: string) =>
  s
    .replace(/[^a-zA-Z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();

export function loadRegressions(dir: string, target?: string): StoredRegression[] {
  if (!existsSync(dir)) return [];
  const out: StoredRegression[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.json')) continue;
    const file = path.join(dir, f);
    const data = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof data?.check !== 'string' || typeof data?.property !== 'string' || !('value' in data)) {
      throw new Error(`${file}: not a saved counterexample (needs check, property and value)`);
    }
    if (data.valueUndefined === true) data.value = undefined;
    if (target && typeof data.target === 'string' && data.target !== target) continue;
    out.push({ ...data, file });
  }
  return out;
}

export function loadRegressionFile(file: string): StoredRegression {
  const data = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof data?.check !== 'string' || typeof data?.property !== 'string' || !('value' in data)) {
    throw new Error(`${file}: not a saved counterexample (needs check, property and value)`);
  }
  if (data.valueUndefined === true) data.value = undefined;
  return { ...data, file: path.resolve(file) };
}

/** Writes a counterexample once (the file name carries a hash of the input); returns its path. */
export function saveRegression(dir: string, r: Regression): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([r.check, r.property, r.value]))
    .digest('hex')
    .slice(0, 10);
  const file = path.join(dir, `${slug(r.check)}--${slug(r.property)}--${hash}.json`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // JSON has no `undefined`: a minimal input that is undefined is stored as a flag
    const stored = r.value === undefined ? { ...r, value: null, valueUndefined: true } : r;
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`);
  }
  return file;
}
