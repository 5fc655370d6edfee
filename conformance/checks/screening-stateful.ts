// Model-based sequences over the screening API: random mixes of new submissions, replays, usage reads,
// audit walks, invalid bodies and wallet top-ups, each checked against a model of credits and requests.
// A failing sequence shrinks to the shortest one that still fails and is saved for every later run.

import fc from 'fast-check';
import type { Check } from '../check.js';
import { bodyGenerators } from '../arbitraries/requests.js';
import { nonce, orderedBand } from './support.js';
import { submitRequirement } from './screening-submit.js';
import { commandArbitraries, commandFromData, commandsToData, type CommandData, type Real, type ScreeningModel } from '../stateful/screening-model.js';

const stateful: Check = {
  id: 'screening.stateful',
  title: 'Random sequences of submits, replays, usage reads, audit walks, invalid bodies and top-ups agree with a model of credits and requests',
  requirements: ['SCR-IDEMP-1', 'SCR-IDEMP-2', 'SCR-IDEMP-3', 'SCR-CREDIT-1', 'SCR-CREDIT-2', 'SCR-CREDIT-4', 'SCR-USAGE-7', 'SCR-AUDIT-3', 'SCR-AUDIT-4'],
  appliesTo: { surface: 'screening', needs: ['freshTenants', 'creditControl'] },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const cmds = commandArbitraries({
      validBody: gen.valid.map(orderedBand),
      invalidBody: ctx.capabilities.negativeInput ? gen.invalid(false).map((m) => ({ body: m.value, defect: m.description, requirement: submitRequirement(m) })) : null,
      topUps: true,
    });
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
        await fc.asyncModelRun(() => ({ model: { credits: initial, requests: new Map() }, real: { ctx, tenant, prefix: nonce('seq') } }), commands);
      },
    });
  },
};

export const statefulChecks = [stateful];
