import { describe, expect, it } from 'vitest';
import { loadContracts } from '../../contract/index.js';
import { argumentOf, toolCatalog } from '../toolContracts.js';
import { HANDLERS } from './index.js';

describe('tool handlers and contracts', () => {
  it('have a handler for every contract and a contract for every handler', async () => {
    const contracts = await loadContracts();
    for (const server of ['keyed', 'anon'] as const) {
      expect(Object.keys(HANDLERS[server]).sort(), server).toEqual(Object.keys(contracts.mcpTools[server]).sort());
    }
  });

  it('advertise output schemas for every tool, resolved from the REST contract where referenced', async () => {
    const catalog = toolCatalog(await loadContracts());
    for (const server of ['keyed', 'anon'] as const) {
      for (const t of catalog.list(server)) {
        expect(t.outputSchema?.type, `${server}/${t.name}`).toBe('object');
        expect(JSON.stringify(t.outputSchema)).not.toMatch(/"x-|"discriminator"/);
      }
    }
  });

  it('name the argument of a loader problem', () => {
    expect(argumentOf('limit must be an integer from 1 to 50')).toBe('limit');
    expect(argumentOf('id is required')).toBe('id');
    expect(argumentOf("unknown property 'foo'")).toBe('foo');
    expect(argumentOf('highlights[2] must be at most 300 characters long')).toBe('highlights[2]');
  });
});
