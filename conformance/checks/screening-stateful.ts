// Model-based sequences over the screening API: random mixes of new submissions, replays, usage reads,
// audit walks, invalid bodies and wallet top-ups, each checked against a model of credits and requests.
// A failing sequence shrinks to the shortest one that still fails and is saved for every later run.

import fc from 'fast-check';
import type { Check, CheckContext } from '../check.js';
import { bodyGenerators } from '../arbitraries/requests.js';
import { skip } from '../failure.js';
import { nonce, orderedBand, readUsage, sinceOf } from './support.js';
import { submitRequirement } from './screening-submit.js';
import {
  commandArbitraries,
  commandFromData,
  commandsToData,
  type CommandData,
  type Real,
  type ScreeningModel,
} from '../stateful/screening-model.js';

/** The command arbitraries over contract-derived bodies (invalid ones only when they reach the service). */
function commandsFor(ctx: CheckContext, topUps: boolean) {
  const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
  const cmds = commandArbitraries({
    validBody: gen.valid.map(orderedBand),
    invalidBody: ctx.capabilities.negativeInput
      ? gen.invalid(false).map((m) => ({ body: m.value, defect: m.description, requirement: submitRequirement(m) }))
      : null,
    topUps,
  });
  return { gen, cmds };
}

const stateful: Check = {
  id: 'screening.stateful',
  title:
    'Random sequences of submits, replays, usage reads, audit walks, invalid bodies and top-ups agree with a model of credits and requests',
  requirements: [
    'SCR-IDEMP-1',
    'SCR-IDEMP-2',
    'SCR-IDEMP-3',
    'SCR-CREDIT-1',
    'SCR-CREDIT-2',
    'SCR-CREDIT-4',
    'SCR-USAGE-7',
    'SCR-AUDIT-3',
    'SCR-AUDIT-4',
  ],
  appliesTo: { surface: 'screening', needs: ['freshTenants', 'creditControl'] },
  async run(ctx) {
    const { cmds } = commandsFor(ctx, true);
    await ctx.property<Iterable<fc.AsyncCommand<ScreeningModel, Real>>>({
      name: 'command sequences',
      arbitrary: fc.commands(cmds, { maxCommands: 14 }),
      runs: ctx.runs(0.5),
      toJson: (c) => commandsToData(c),
      fromJson: (j) => (j as CommandData[]).map(commandFromData),
      predicate: async (commands) => {
        const tenant = await ctx.tenants.fresh('pro');
        const initial = 3;
        await ctx.tenants.patch(tenant, { screeningCredits: initial });
        await fc.asyncModelRun(
          () => ({ model: { credits: initial, requests: new Map() }, real: { ctx, tenant, prefix: nonce('seq') } }),
          commands,
        );
      },
    });
  },
};

const fixedKey: Check = {
  id: 'screening.stateful.fixed-key',
  title:
    'The stateful model in a reduced form on one fixed key: submits, replays, usage reads, audit walks and invalid bodies agree with a model starting from the usage the key reports (no top-ups)',
  requirements: [
    'SCR-IDEMP-1',
    'SCR-IDEMP-2',
    'SCR-IDEMP-3',
    'SCR-CREDIT-1',
    'SCR-CREDIT-2',
    'SCR-USAGE-7',
    'SCR-AUDIT-4',
  ],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    if (ctx.tenants.canProvision) throw skip('the full model runs on fresh tenants (screening.stateful)');
    const tenant = await ctx.tenants.get('pro');
    const { gen, cmds } = commandsFor(ctx, false);
    await ctx.property<Iterable<fc.AsyncCommand<ScreeningModel, Real>>>({
      name: 'command sequences on a fixed key',
      arbitrary: fc.commands(cmds, { maxCommands: 10 }),
      // a new key, its replay, and reads of the wallet and the ledger (page by page) after them
      examples: [
        (
          [
            { t: 'submit', key: 0, body: gen.examples[1] },
            { t: 'submit', key: 0, body: gen.examples[1] },
            { t: 'submit', key: 1, body: gen.examples[0] },
            { t: 'submit', key: 2, body: gen.examples[1] },
            { t: 'usage' },
            { t: 'audit', limit: 1 },
            { t: 'audit', limit: 2 },
          ] as CommandData[]
        ).map(commandFromData),
      ],
      runs: ctx.runs(0.5),
      toJson: (c) => commandsToData(c),
      fromJson: (j) => (j as CommandData[]).map(commandFromData),
      predicate: async (commands) => {
        const start = await readUsage(ctx, tenant.apiKey);
        // the reduced model needs room for every new key of a sequence
        if (start.creditsRemaining < 10)
          throw skip(`the pro key has ${start.creditsRemaining} screening credits left; the reduced model needs 10`);
        await fc.asyncModelRun(
          () => ({
            model: { credits: start.creditsRemaining, requests: new Map() },
            real: { ctx, tenant, prefix: nonce('seq'), since: sinceOf(start.exchange) },
          }),
          commands,
        );
      },
    });
  },
};

export const statefulChecks = [stateful, fixedKey];
