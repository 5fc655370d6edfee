// Every `must` id of the jobs, market and MCP document that a client can observe has at least one planted
// violation in this deployment; the others are marked `observable: false` in the catalogue.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { expect, it } from 'vitest';
import { VIOLATIONS } from './index.js';

interface Req {
  id: string;
  level: string;
  observable?: boolean;
  observes?: string;
  source: { doc: string };
}

const reqs = (
  parse(readFileSync(new URL('../../contracts/requirements.yaml', import.meta.url), 'utf8')).requirements as Req[]
).filter((r) => r.level === 'must' && r.source.doc === 'jobs-market-mcp-api.md');

it('every observable must id of the jobs, market and MCP document has a planted violation', () => {
  const planted = new Set(VIOLATIONS.map((v) => v.requirement));
  expect(reqs.filter((r) => r.observable !== false && !planted.has(r.id)).map((r) => r.id)).toEqual([]);
  expect(reqs.filter((r) => r.observable === false).map((r) => r.id)).toEqual(['JOB-AUTH-4', 'JOB-APPLY-6']);
});

it('every must id of that document says what its check observes', () => {
  expect(reqs.filter((r) => typeof r.observes !== 'string' || r.observes.trim() === '').map((r) => r.id)).toEqual([]);
});
