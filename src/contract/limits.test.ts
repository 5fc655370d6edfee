import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIMITS_PATH, limits, parseLimits } from './limits.js';

describe('contracts/limits.yaml', () => {
  const text = readFileSync(LIMITS_PATH, 'utf8');

  it('is read and checked once', () => {
    expect(parseLimits(text)).toEqual(limits);
    expect(Object.isFrozen(limits)).toBe(true);
  });

  it('refuses a missing, mistyped or unknown field, naming its path', () => {
    expect(() => parseLimits(text.replace(/^ {2}creditsPerScreen: 1\n/m, ''))).toThrow(
      /spec\.creditsPerScreen: Required/,
    );
    expect(() => parseLimits(text.replace('rateLimitPerMinute: 120', "rateLimitPerMinute: '120'"))).toThrow(
      /spec\.jobs\.starter\.rateLimitPerMinute: Expected number/,
    );
    expect(() =>
      parseLimits(text.replace('  hireStrongMatchScore: 75', '  hireStrongMatchScore: 75\n  hireStrongMatchScor: 80')),
    ).toThrow(/policy: Unrecognized key\(s\) in object: 'hireStrongMatchScor'/);
    expect(() => parseLimits(text.replace('resets: never', 'resets: weekly'))).toThrow(
      /policy\.screening\.free\.resets/,
    );
  });
});
