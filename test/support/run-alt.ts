// Runs the harness against the alternate deployment (keys-only) from the command line, for development:
//   npx tsx test/support/run-alt.ts [--violation name] [--only X] [--runs n]
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { runConformance } from '../../conformance/index.js';
import { startAltDeployment } from '../alt-deployment/index.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const { values } = parseArgs({ options: { violation: { type: 'string', multiple: true }, only: { type: 'string', multiple: true }, runs: { type: 'string' }, 'report-dir': { type: 'string' }, 'no-rate-windows': { type: 'boolean' }, 'allow-spend': { type: 'string', multiple: true } } });
const port = await freePort();
const webhookUrl = `http://127.0.0.1:${port}/alt-hooks`;
const alt = await startAltDeployment({ violations: values.violation ?? [], webhookUrl });
try {
  const p = alt.profile;
  const r = await runConformance({
    ...p,
    webhookListen: `127.0.0.1:${port}`,
    seed: 11,
    runs: Number(values.runs ?? 5),
    only: values.only ?? [],
    reportDir: values['report-dir'] ?? null,
    rateWindows: !values['no-rate-windows'],
    allowSpend: values['allow-spend'] ?? [],
    progress: true,
  });
  const must = r.requirements.filter((x) => x.level === 'must');
  console.log('ok', r.ok, 'harnessErrors', r.harnessErrors);
  for (const x of must.filter((x) => x.status === 'fail')) console.log('FAIL', x.id, x.failures.map((f) => `${f.check}: ${f.why}`).join(' | ').slice(0, 600));
  for (const x of must.filter((x) => x.status === 'error')) console.log('ERROR', x.id, x.reasons.join(' | ').slice(0, 300));
  for (const x of must.filter((x) => x.status === 'skip' || x.status === 'not-covered' || x.status === 'not-observable')) console.log(x.status.toUpperCase(), x.id, x.reasons.join(' | ').slice(0, 200));
  console.log('counts', JSON.stringify(r.counts.must), 'ms', r.durationMs, r.notes.slice(-1), JSON.stringify(Object.fromEntries(alt.profile ? Object.entries(alt.profile.keys).map(([k, v]) => [k, v.slice(-4)]) : [])));
} finally {
  await alt.stop();
}
