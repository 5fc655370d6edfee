import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadHarnessContract } from '../contract.js';
import { ContractValidator } from '../validation.js';
import { mutationsOf } from './mutate.js';
import { queryMutations } from './query.js';
import { arbitraryFor, fullValue } from './schema.js';

describe('mutationsOf', async () => {
  const contract = await loadHarnessContract();
  const validator = new ContractValidator(contract);
  const submit = contract.operation('submitScreen').requestBody!;

  it('every specification-level mutation of a valid SubmitRequest breaks the specification', () => {
    fc.assert(
      fc.property(arbitraryFor(submit), (valid) => {
        for (const m of mutationsOf(submit, valid).filter((x) => !x.policy)) {
          expect(validator.schema('SubmitRequest', m.value).must, `${m.kind} at ${m.path}`).not.toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('every policy-level mutation is valid for the specification but not for the policy', () => {
    fc.assert(
      fc.property(arbitraryFor(submit), (valid) => {
        for (const m of mutationsOf(submit, valid).filter((x) => x.policy)) {
          const v = validator.schema('SubmitRequest', m.value);
          expect(v.must, `${m.kind} at ${m.path}`).toEqual([]);
          expect(v.policy.length, `${m.kind} at ${m.path}`).toBeGreaterThan(0);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('produces the defects the harness relies on, each naming its field', () => {
    const ms = mutationsOf(submit, fullValue(submit));
    const has = (kind: string, path: string) => ms.some((m) => m.kind === kind && m.path === path);
    expect(has('missing-required', 'idempotencyKey')).toBe(true);
    expect(has('missing-required', 'jobSpec.mustHaves')).toBe(true);
    expect(has('mixed-variants', 'candidate')).toBe(true);
    expect(has('unknown-property', 'jobSpec.unexpectedField')).toBe(true);
    expect(has('bad-enum', 'candidate.kind')).toBe(true);
    expect(has('wrong-type', 'candidate.experienceYears')).toBe(true);
    expect(has('not-an-object', '')).toBe(true);
    const tooLong = ms.find((m) => m.kind === 'too-long' && m.path === 'jobSpec.title');
    expect(tooLong?.policy).toBe(true); // maxLength is an x-policy keyword there
    expect(ms.find((m) => m.kind === 'unknown-property' && m.path === 'unexpectedField')?.policy).toBe(true);
    expect(ms.find((m) => m.kind === 'unknown-property' && m.path === 'candidate.unexpectedField')?.policy).toBe(false);
    expect(ms.find((m) => m.path === 'jobSpec.title' && m.kind === 'missing-required')?.field).toBe('title');
  });

  it('query mutations break one parameter at a time', () => {
    const params = contract.operation('getAudit').query;
    const ms = queryMutations(params, { limit: '10' }, { limit: 10 });
    const limits = ms.filter((m) => m.param === 'limit').map((m) => m.query.limit);
    expect(limits).toEqual(expect.arrayContaining(['0', '501', '10.5']));
    expect(ms.find((m) => m.kind === 'unknown-parameter')?.policy).toBe(true);
  });
});
