// Planted bugs live in one layer: every bug has its site named in bugs.ts, that site asks bugs.ts for the
// bug's effect, and nothing else in src/ tests a bug's switch itself.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUG_SITES, BUGS } from './bugs.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

describe('planted bugs in one layer', () => {
  it('every bug names the file it applies in, and that file asks bugs.ts for it', () => {
    expect(Object.keys(BUG_SITES).sort()).toEqual(Object.keys(BUGS).sort());
    for (const [bug, site] of Object.entries(BUG_SITES)) {
      const file = site.split(' ')[0];
      expect(readFileSync(join(SRC, file), 'utf8'), `${bug}: ${file}`).toMatch(/\bplanted\.\w+\(/);
    }
  });

  it("no file but the catalogue and its control page reads a bug's switch", () => {
    const readers = sources(SRC)
      .filter((f) => /\.bug\(|\.on\('[a-z_]+'\)/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f))
      .sort();
    expect(readers).toEqual(['domain/bugs.ts', 'sandbox/control/system.ts']);
  });
});
