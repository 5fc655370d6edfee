// Raw options (environment, CLI flags, test overrides) become one resolved, frozen config here,
// which is then passed down. Nothing else reads process.env.

import { secureToken } from './domain/rng.js';
import type { Settings } from './domain/settings.js';

export type SandboxConfig = Settings;

export type ConfigInput = Partial<SandboxConfig>;

function num(v: string | undefined, fallback: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`expected a number, got '${v}'`);
  return n;
}

export function resolveConfig(input: ConfigInput = {}, env: NodeJS.ProcessEnv = {}): Readonly<SandboxConfig> {
  const host = input.host ?? env.HOST ?? '127.0.0.1';
  const port = input.port ?? num(env.PORT, 8787);
  const envToken = input.adminToken ?? env.SANDBOX_ADMIN_TOKEN;
  const adminToken = envToken || `sat_${secureToken(32)}`;
  const cfg: SandboxConfig = {
    host,
    port,
    anonMcpPort: input.anonMcpPort ?? num(env.ANON_MCP_PORT, 8788),
    adminToken,
    adminTokenGenerated: !envToken,
    seed: input.seed ?? num(env.SANDBOX_SEED, 20261122),
    corpusSize: input.corpusSize ?? num(env.SANDBOX_CORPUS_SIZE, 2000),
    seedDemo: input.seedDemo ?? env.SANDBOX_DEMO !== '0',
    selfCheck: input.selfCheck ?? env.SANDBOX_SELF_CHECK === '1',
    noRateLimits: input.noRateLimits ?? env.SANDBOX_NO_RATE_LIMITS === '1',
    bugs: input.bugs ?? (env.SANDBOX_BUGS ? env.SANDBOX_BUGS.split(',').map((s) => s.trim()).filter(Boolean) : []),
    publicUrl: input.publicUrl ?? env.SANDBOX_PUBLIC_URL ?? `http://${host}:${port}`,
    log: input.log ?? env.SANDBOX_LOG === '1',
    fastPath: input.fastPath ?? env.SANDBOX_FAST_PATH !== '0',
  };
  return Object.freeze(cfg);
}
