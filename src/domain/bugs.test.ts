// Planted bugs live in one layer (D-131): every bug has one hook in bugs.ts, the only code that reads its
// switch; the file BUG_SITES names for it calls that hook; and no other source file names a bug, so no
// call site can ask for a bug by name outside the layer.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUG_SITES, BUGS, PlantedBugs } from './bugs.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const LAYER = 'domain/bugs.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** A file's code without its comments (a header may well name the bug that applies there). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const files = sources(SRC).map((f) => ({
  file: relative(SRC, f).split('\\').join('/'),
  code: code(readFileSync(f, 'utf8')),
}));
const layer = files.find((f) => f.file === LAYER)!.code;

/** The hooks of PlantedBugs with the bugs each one reads, from bugs.ts's source. */
function hooksAndTheirBugs(): Map<string, string[]> {
  const body = layer.slice(layer.indexOf('export class PlantedBugs'));
  const out = new Map<string, string[]>();
  for (const m of body.matchAll(/^ {2}(\w+)(?:<[^>]*>)?\([^)]*\)[^{\n]*\{\n([\s\S]*?)^ {2}\}/gm)) {
    out.set(
      m[1],
      [...m[2].matchAll(/this\.on\('([a-z_0-9]+)'\)/g)].map((b) => b[1]),
    );
  }
  return out;
}

describe('planted bugs in one layer', () => {
  it('every bug has one hook in bugs.ts that reads its switch and no other', () => {
    expect(Object.keys(BUG_SITES).sort()).toEqual(Object.keys(BUGS).sort());
    const hooks = hooksAndTheirBugs();
    for (const [bug, { hook }] of Object.entries(BUG_SITES)) {
      expect(hooks.get(hook), `${bug}: PlantedBugs.${hook}`).toEqual([bug]);
    }
    // and no hook reads a bug that is not its own
    const owned = Object.values(BUG_SITES).map((s) => s.hook);
    for (const [hook, bugs] of hooks) if (!owned.includes(hook as never)) expect(bugs, hook).toEqual([]);
  });

  it('the file named for each bug calls its hook', () => {
    for (const [bug, { hook, site }] of Object.entries(BUG_SITES)) {
      const file = site.split(' ')[0];
      const text = files.find((f) => f.file === file)?.code ?? '';
      expect(text, `${bug}: ${file} calls planted.${hook}`).toMatch(new RegExp(`\\bplanted\\.${hook}\\(`));
    }
  });

  it('no source file outside bugs.ts names a bug', () => {
    const named = new RegExp(`(['"\`])(${Object.keys(BUGS).join('|')})\\1`);
    const askers = files
      .filter((f) => f.file !== LAYER && named.test(f.code))
      .map((f) => f.file)
      .sort();
    expect(askers, 'ask for a planted bug through its hook in bugs.ts (faults.planted), never by its name').toEqual([]);
  });

  it('the catalogue lists every bug, in order, with its description and whether it is on', () => {
    const list = new PlantedBugs((name) => name === 'skip_ledger_row').catalogue();
    expect(list.map((b) => [b.name, b.description])).toEqual(Object.entries(BUGS));
    expect(list.filter((b) => b.enabled).map((b) => b.name)).toEqual(['skip_ledger_row']);
  });
});
