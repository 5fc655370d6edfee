import { describe, expect, it } from 'vitest';
import { maskSecret, maskUrl } from './http.js';

describe('recorded exchanges never carry API keys', () => {
  it('masks bearer keys and keys in query strings', () => {
    const key = 'rjk_live_abcdefghijklmnopqrstuvwxyz012345';
    expect(maskSecret(`Bearer ${key}`)).toBe('Bearer rjk_live_…2345');
    expect(maskUrl(`http://h/api/v1/me?api_key=${key}&limit=2`)).not.toContain(key);
    expect(maskUrl('http://h/api/v1/jobs?q=x')).toBe('http://h/api/v1/jobs?q=x');
  });
});
