import { describe, expect, it } from 'vitest';
import { fold, stem, tokenize } from './text.js';
import { midpointIdrMonthly, percentile, toIdrMonthly } from './pay.js';

describe('text normalization', () => {
  it('folds case and diacritics', () => {
    expect(fold('Jakártá CAFÉ')).toBe('jakarta cafe');
  });

  it('keeps C++ and C# apart from C, splits on punctuation and drops duplicates', () => {
    expect(tokenize('C++, C# and C; Node.js node')).toEqual(['c++', 'c#', 'and', 'c', 'node', 'js']);
  });

  it('stems plurals lightly and leaves short words and double s alone', () => {
    expect(stem('developers')).toBe('developer');
    expect(stem('companies')).toBe('company');
    expect(stem('css')).toBe('css');
    expect(stem('aws')).toBe('aws');
    expect(stem('business')).toBe('business');
  });
});

describe('pay normalization', () => {
  it('converts to IDR per month at the documented rates', () => {
    expect(toIdrMonthly(10, 'USD', 'hour')).toBe(10 * 16_000 * 173);
    expect(toIdrMonthly(120_000, 'USD', 'year')).toBe(160_000_000);
    expect(toIdrMonthly(100, 'USD', 'day')).toBe(Math.round(100 * 16_000 * 21.7));
    expect(toIdrMonthly(15_000_000, 'IDR', 'month')).toBe(15_000_000);
    expect(midpointIdrMonthly(10_000_000, 20_000_000, 'IDR', 'month')).toBe(15_000_000);
    expect(midpointIdrMonthly(null, null, 'USD', 'hour')).toBeNull();
  });

  it('interpolates percentiles between closest ranks', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(percentile([7], 0.75)).toBe(7);
  });
});
