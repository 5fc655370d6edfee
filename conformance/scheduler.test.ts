import { describe, expect, it } from 'vitest';
import { Scheduler, type Job } from './scheduler.js';

interface T extends Job {
  name: string;
}
const job = (index: number, name: string, resources: string[] = [], o: Partial<Job> = {}): T => ({
  index,
  name,
  resources: new Set(resources),
  exclusive: false,
  strict: false,
  ...o,
});
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** Runs the jobs, each "working" `ms` (with an optional wait in the middle); returns the log of starts, ends and overlaps. */
async function trace(
  jobs: T[],
  concurrency: number,
  body: Record<string, (w: <X>(fn: () => Promise<X>) => Promise<X>, log: string[]) => Promise<void>> = {},
) {
  const log: string[] = [];
  const running = new Set<string>();
  let peak = 0;
  const overlaps: string[][] = [];
  await new Scheduler(jobs, concurrency).runAll(async (j, whileWaiting) => {
    running.add(j.name);
    peak = Math.max(peak, running.size);
    overlaps.push([...running].sort());
    log.push(`+${j.name}`);
    await (body[j.name] ? body[j.name](whileWaiting, log) : tick(10));
    log.push(`-${j.name}`);
    running.delete(j.name);
  });
  return { log, peak, overlaps };
}

describe('Scheduler', () => {
  it('runs jobs without shared resources side by side, up to the bound', async () => {
    const { peak, log } = await trace([job(0, 'a'), job(1, 'b'), job(2, 'c'), job(3, 'd')], 3);
    expect(peak).toBe(3);
    expect(log.filter((x) => x.startsWith('+'))).toHaveLength(4);
    expect((await trace([job(0, 'a'), job(1, 'b'), job(2, 'c')], 1)).log).toEqual(['+a', '-a', '+b', '-b', '+c', '-c']);
  });

  it('runs jobs sharing a resource one after another, in registry order, others beside them', async () => {
    const { log, overlaps } = await trace(
      [
        job(0, 'p1', ['key:pro']),
        job(1, 'p2', ['key:pro']),
        job(2, 's', ['key:starter']),
        job(3, 'p3', ['key:pro', 'key:starter']),
      ],
      8,
    );
    const order = log.filter((x) => x.startsWith('+p'));
    expect(order).toEqual(['+p1', '+p2', '+p3']);
    expect(log.indexOf('+p2')).toBeGreaterThan(log.indexOf('-p1'));
    expect(log.indexOf('+p3')).toBeGreaterThan(log.indexOf('-s'));
    expect(overlaps.some((o) => o.includes('p1') && o.includes('s'))).toBe(true);
    for (const o of overlaps) expect(o.filter((n) => n.startsWith('p')).length).toBeLessThanOrEqual(1);
  });

  it('an exclusive job runs alone, after every job before it and before every job after it', async () => {
    const { log, overlaps } = await trace(
      [job(0, 'a'), job(1, 'b'), job(2, 'x', [], { exclusive: true }), job(3, 'c')],
      8,
    );
    expect(log.indexOf('+x')).toBeGreaterThan(Math.max(log.indexOf('-a'), log.indexOf('-b')));
    expect(log.indexOf('+c')).toBeGreaterThan(log.indexOf('-x'));
    expect(overlaps.filter((o) => o.includes('x'))).toEqual([['x']]);
  });

  it('a waiting job lends its resources to the next job sharing them and takes them back after it', async () => {
    const body = {
      p1: async (w: <X>(fn: () => Promise<X>) => Promise<X>, log: string[]) => {
        await w(async () => {
          log.push('p1 waits');
          await tick(40);
        });
        log.push('p1 resumes');
      },
      p2: async (_w: unknown, log: string[]) => {
        log.push('p2 works');
        await tick(10);
      },
    };
    const { log } = await trace([job(0, 'p1', ['key:pro']), job(1, 'p2', ['key:pro'])], 8, body);
    expect(log).toEqual(['+p1', 'p1 waits', '+p2', 'p2 works', '-p2', 'p1 resumes', '-p1']);
  });

  it('a job coming back from its wait waits for the borrower to finish (or wait in turn)', async () => {
    const body = {
      p1: async (w: <X>(fn: () => Promise<X>) => Promise<X>, log: string[]) => {
        await w(() => tick(5));
        log.push('p1 resumes');
      },
      p2: async (_w: unknown, log: string[]) => {
        await tick(40);
        log.push('p2 done working');
      },
    };
    const { log } = await trace([job(0, 'p1', ['key:pro']), job(1, 'p2', ['key:pro'])], 8, body);
    expect(log.indexOf('p1 resumes')).toBeGreaterThan(log.indexOf('p2 done working'));
  });

  it('a strict (late) job neither starts beside a waiting job it conflicts with nor lends its own keys', async () => {
    const body = {
      p1: async (w: <X>(fn: () => Promise<X>) => Promise<X>) => {
        await w(() => tick(30));
      },
      late: async (w: <X>(fn: () => Promise<X>) => Promise<X>, log: string[]) => {
        await w(() => tick(30));
        log.push('late resumes');
      },
    };
    const { log } = await trace(
      [job(0, 'p1', ['key:pro']), job(1, 'late', ['key:pro'], { strict: true }), job(2, 'p2', ['key:pro'])],
      8,
      body,
    );
    expect(log.indexOf('+late')).toBeGreaterThan(log.indexOf('-p1'));
    expect(log.indexOf('+p2')).toBeGreaterThan(log.indexOf('-late'));
  });

  it('a job that throws still frees its resources', async () => {
    const log: string[] = [];
    await new Scheduler([job(0, 'a', ['k']), job(1, 'b', ['k'])], 2).runAll(async (j) => {
      log.push(j.name);
      if (j.name === 'a') throw new Error('boom');
    });
    expect(log).toEqual(['a', 'b']);
  });
});
