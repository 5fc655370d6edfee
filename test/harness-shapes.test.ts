// The harness reads open shapes without field names: the alternate deployment answers every body the
// documents leave open ("not shown") in a shape style drawn from a seed (keys in camelCase, snake_case or
// kebab-case; wrapped in `data` or `result` or bare; a list longer than the main list inside every item;
// extra fields), and the checks that read those bodies pass every style with no `must` failure, while
// the planted violations of the requirements they judge are still caught under a non-plain style.
// Three seeds cover every casing and wrapping; a fourth style is drawn per run (its seed is in the
// test's name, and SHAPE_SEED=n runs that style again).

import { describe, expect, it } from 'vitest';
import { VIOLATIONS } from './alt-deployment/index.js';
import { describeStyle, styleFromSeed } from './alt-deployment/shape-style.js';
import { runAgainstAlt } from './support/alt-run.js';

/** The checks that read an open shape (GET /me, market bodies, the apply result, MCP tool results). */
const OPEN_SHAPE_CHECKS = [
  'jobs.me',
  'jobs.market.every-tier',
  'jobs.market.roles',
  'jobs.market.skills',
  'jobs.apply.paid',
  'jobs.apply.free-tier',
  'mcp.keyed.seeker-tools',
  'mcp.tools.draft',
  'mcp.tools.grounding',
  'mcp.tools.employer',
  'mcp.tools.hire',
  'mcp.anon.server',
  'mcp.anon.read-only',
];

/** Must ids judged by reading an open shape: each must be observed (pass) in every style. */
const OPEN_SHAPE_MUSTS = [
  'JOB-ME-1',
  'JOB-ME-2',
  'JOB-TIER-3',
  'JOB-MKT-2',
  'JOB-MKT-4',
  'JOB-APPLY-2',
  'JOB-APPLY-5',
  'MCP-TOOL-3',
  'MCP-TOOL-4',
  'MCP-TOOL-7',
  'MCP-TOOL-8',
  'MCP-TOOL-9',
  'MCP-TOOL-11',
  'MCP-TOOL-12',
  'MCP-TOOL-13',
  'MCP-KEYED-5',
  'MCP-ANON-6',
];

/** Seeds whose styles cover every casing and every wrapping, each with nested lists and extra fields. */
const SEEDS = [3, 11, 24];

/** One more style, drawn for this run (SHAPE_SEED=n replays one). */
const DRAWN = process.env.SHAPE_SEED ? Number(process.env.SHAPE_SEED) : Math.floor(Math.random() * 2 ** 31);

/** The style of the violation runs: none of the clean runs' (snake_case, `result`, nested lists, extra fields). */
const VIOLATION_SEED = 25;

describe.concurrent(
  'open shapes: the harness against the alternate deployment in several shape styles (keys only)',
  () => {
    it('the seeds cover every casing and wrapping', () => {
      const styles = SEEDS.map(styleFromSeed);
      expect(new Set(styles.map((s) => s.casing))).toEqual(new Set(['camel', 'snake', 'kebab']));
      expect(new Set(styles.map((s) => s.wrap))).toEqual(new Set(['bare', 'data', 'result']));
      expect(styles.every((s) => s.nestedLists && s.extraFields)).toBe(true);
      expect(styleFromSeed(VIOLATION_SEED)).toEqual({
        casing: 'snake',
        wrap: 'result',
        nestedLists: true,
        extraFields: true,
      });
    });

    for (const seed of [...SEEDS, DRAWN]) {
      it(`clean, style of seed ${seed}${seed === DRAWN ? ' (drawn for this run; SHAPE_SEED replays it)' : ''} (${describeStyle(styleFromSeed(seed))}): no must failure, every open-shape must observed`, async () => {
        const { result: r } = await runAgainstAlt(
          [],
          { only: OPEN_SHAPE_CHECKS, allowSpend: ['free'], rateWindows: false },
          { shapeStyle: seed },
        );
        const must = r.requirements.filter((x) => x.level === 'must');
        expect(r.harnessErrors).toEqual([]);
        expect(
          must
            .filter((x) => x.status === 'fail' || x.status === 'error')
            .map((x) => `${x.id}: ${x.failures[0]?.why ?? x.reasons[0]}`),
        ).toEqual([]);
        const status = Object.fromEntries(must.map((x) => [x.id, x.status]));
        expect(Object.fromEntries(OPEN_SHAPE_MUSTS.map((id) => [id, status[id]]))).toEqual(
          Object.fromEntries(OPEN_SHAPE_MUSTS.map((id) => [id, 'pass'])),
        );
        expect(r.ok).toBe(true);
      }, 180_000);
    }

    for (const v of VIOLATIONS.filter((x) => OPEN_SHAPE_MUSTS.includes(x.requirement))) {
      it(`${v.name} → ${v.requirement}, style of seed ${VIOLATION_SEED} (${describeStyle(styleFromSeed(VIOLATION_SEED))})`, async () => {
        const { result: r } = await runAgainstAlt(
          [v.name],
          { only: [v.requirement], allowSpend: ['free'], rateWindows: false },
          { shapeStyle: VIOLATION_SEED },
        );
        expect(r.harnessErrors).toEqual([]);
        expect(
          r.requirements.filter((x) => x.level === 'must' && x.status === 'fail').map((x) => x.id),
          `${v.name} (${v.what})`,
        ).toContain(v.requirement);
      }, 120_000);
    }
  },
);
