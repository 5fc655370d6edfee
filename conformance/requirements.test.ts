// The requirements catalogue is read once per process and file, and read again when the file changes; the
// contract's validator is made once per contract. A test suite or a CI job that runs the harness many times in
// one process paid both at every run.

import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHarnessContract } from './contract.js';
import { loadCatalogue } from './requirements.js';
import { validatorFor } from './validation.js';

const entry = (id: string, text: string) => `- id: ${id}\n  level: must\n  text: ${text}\n`;

describe('the requirements catalogue', () => {
  it('is read once while its file is unchanged, and read again once it changes', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'catalogue-')), 'requirements.yaml');
    writeFileSync(file, entry('SCR-X-1', 'one'));
    const first = loadCatalogue(file);
    expect(loadCatalogue(file)).toBe(first);
    expect(first.all.map((r) => r.text)).toEqual(['one']);
    // shared by every run: nothing may change it
    expect(Object.isFrozen(first.all[0])).toBe(true);
    writeFileSync(file, entry('SCR-X-1', 'one') + entry('SCR-X-2', 'two'));
    const second = loadCatalogue(file);
    expect(second.all.map((r) => r.id)).toEqual(['SCR-X-1', 'SCR-X-2']);
    // the same size, another text: its time of change tells
    writeFileSync(file, entry('SCR-X-1', 'uno') + entry('SCR-X-2', 'dos'));
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(loadCatalogue(file).all.map((r) => r.text)).toEqual(['uno', 'dos']);
  });
});

describe("the contract's validator", () => {
  it('is made once per contract, whose schemas compile once', async () => {
    const contract = await loadHarnessContract();
    expect(await loadHarnessContract()).toBe(contract);
    const validator = validatorFor(contract);
    expect(validatorFor(contract)).toBe(validator);
    const v = validator.schema('ErrorEnvelope', { error: {} });
    expect(v.must.length).toBeGreaterThan(0);
  });
});
