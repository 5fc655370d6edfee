import { describe, expect, it } from 'vitest';
import { DomainError, notFound } from './errors.js';

const frames = (e: Error) => (e.stack ?? '').split('\n').filter((l) => l.trim().startsWith('at '));

describe('DomainError (D-182)', () => {
  it('is an answer, not a fault: it captures no stack, and leaves the stacks of other errors as they were', () => {
    const limit = Error.stackTraceLimit;
    const e = notFound('no route GET /nope');
    expect(e).toBeInstanceOf(DomainError);
    expect(e.message).toBe('no route GET /nope');
    expect(e.status).toBe(404);
    expect(frames(e)).toEqual([]);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(frames(new Error('a fault')).length).toBeGreaterThan(0);
  });
});
