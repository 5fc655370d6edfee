// Requirements: none of the documents (reading request headers from Node's raw list must give what the
// standard Headers object gives, which every adapter's checks are written against).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rawHeaderValue } from './headers.js';

const names = ['authorization', 'content-type', 'origin', 'host', 'x-k'];
// names in any case, values with HTTP whitespace around and inside, repeated fields
const field = fc.tuple(
  fc.constantFrom(...names, 'authorizatioN', 'AUTHORIZATION', 'Content-Type', 'x-K', 'authorisation', 'x-kk', 'ª', 'Ä'),
  fc.stringMatching(/^[\t\n\r a-zA-Z0-9,;=é]{0,8}$/),
);

describe('rawHeaderValue', () => {
  it('gives what Headers.get gives for any raw list', () => {
    fc.assert(
      fc.property(fc.array(field, { maxLength: 8 }), fc.constantFrom(...names), (fields, name) => {
        const headers = new Headers();
        const valid = fields.filter(([n, v]) => {
          try {
            new Headers([[n, v]]);
            return true;
          } catch {
            return false;
          }
        });
        for (const [n, v] of valid) headers.append(n, v);
        expect(rawHeaderValue(valid.flat(), name)).toBe(headers.get(name) ?? undefined);
      }),
      { numRuns: 500 },
    );
  });
});
