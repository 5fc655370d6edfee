// Development sweep: one harness run per planted violation of the alternate deployment; prints, per
// violation, whether the run failed under the violation's own requirement id.
import { createServer } from 'node:net';
import { runConformance } from '../../conformance/index.js';
import { startAltDeployment, VIOLATIONS } from '../alt-deployment/index.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const names = process.argv.slice(2);
for (const v of VIOLATIONS.filter((x) => !names.length || names.includes(x.name))) {
  const port = await freePort();
  const alt = await startAltDeployment({ violations: [v.name], webhookUrl: `http://127.0.0.1:${port}/alt-hooks` });
  try {
    const r = await runConformance({ ...alt.profile, webhookListen: `127.0.0.1:${port}`, seed: 11, runs: 3, reportDir: null, progress: false, rateWindows: process.env.RATE !== '0' });
    const failing = r.requirements.filter((x) => x.level === 'must' && (x.status === 'fail' || x.status === 'error')).map((x) => x.id);
    console.log(JSON.stringify({ name: v.name, requirement: v.requirement, caught: failing.includes(v.requirement), ok: r.ok, failing, errors: r.harnessErrors, skip: r.requirements.find((x) => x.id === v.requirement)?.reasons }));
  } finally {
    await alt.stop();
  }
}
