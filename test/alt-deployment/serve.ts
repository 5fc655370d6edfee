// Runs the alternate deployment until interrupted and writes its keys-only profile as YAML.
// Usage: npx tsx test/alt-deployment/serve.ts --profile <file.yaml> [--webhook-url <url>] [--violations a,b]
//        [--review-delay-ms n] [--scoring-delay-ms n] [--shape-seed n]
import { parseArgs } from 'node:util';
import { startAltDeployment, writeProfileYaml } from './index.js';
import { describeStyle } from './shape-style.js';

const { values } = parseArgs({
  options: {
    profile: { type: 'string' },
    'webhook-url': { type: 'string' },
    violations: { type: 'string' },
    'review-delay-ms': { type: 'string' },
    'scoring-delay-ms': { type: 'string' },
    'shape-seed': { type: 'string' },
  },
});
if (!values.profile) {
  console.error('--profile <file.yaml> is required');
  process.exit(2);
}
const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
const d = await startAltDeployment({
  webhookUrl: values['webhook-url'],
  violations: values.violations ? values.violations.split(',').filter(Boolean) : [],
  reviewDelayMs: num(values['review-delay-ms']),
  scoringDelayMs: num(values['scoring-delay-ms']),
  shapeStyle: num(values['shape-seed']),
});
await writeProfileYaml(d.profile, values.profile);
console.log(
  `alternate deployment at ${d.baseUrl} (anonymous MCP ${d.anonMcpUrl}); profile written to ${values.profile}; open shapes: ${describeStyle(d.shapeStyle)}`,
);
const stop = () => void d.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
