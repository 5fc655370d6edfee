// Raw options (environment, CLI flags, test overrides) become one resolved, frozen config here,
// which is then passed down. Nothing else reads process.env. OPTIONS is the one list of the options:
// the CLI parses its flags from it, `--help` prints it and the README's table is generated from it.

import { secureToken } from './domain/rng.js';
import type { Settings } from './domain/settings.js';

export type SandboxConfig = Settings;

/** What the sandbox keeps its state in: null for the in-memory default, or a PostgreSQL URL. */
export interface StoreOption {
  store?: string;
}

export type ConfigInput = Partial<SandboxConfig> & StoreOption;

type Key = keyof ConfigInput;
type Kind = 'int' | 'string' | 'on' | 'off' | 'list';

export interface OptionSpec {
  /** The config field it sets. */
  key: Key;
  /** Its command-line flag (a repeatable one for lists), if any. */
  flag?: string;
  /** Its environment variable, if any. */
  env?: string;
  kind: Kind;
  /** The default, as the README and --help show it. */
  shown: string;
  meaning: string;
}

/**
 * While callers compete, the calls of one caller in progress at once (D-165): 2 since D-169. With 4, a first
 * tenant's burst kept its second tenant's p50 at 1.19–1.28× alone; with 2 at 0.99–1.00×, the burst's own rate
 * while another tenant calls falling by about a fifth. Fewer than 2 would let a held-open stream (an MCP session's
 * events) stop its caller's other calls for a whole hold.
 */
export const CALLS_PER_CALLER = 2;

export const OPTIONS: readonly OptionSpec[] = [
  {
    key: 'port',
    flag: '--port',
    env: 'PORT',
    kind: 'int',
    shown: '8787',
    meaning: 'main port (REST, keyed MCP, control API, console, docs)',
  },
  {
    key: 'anonMcpPort',
    flag: '--anon-port',
    env: 'ANON_MCP_PORT',
    kind: 'int',
    shown: '8788',
    meaning: "the anonymous MCP server's port",
  },
  { key: 'host', flag: '--host', env: 'HOST', kind: 'string', shown: '127.0.0.1', meaning: 'listen address' },
  {
    key: 'adminToken',
    env: 'SANDBOX_ADMIN_TOKEN',
    kind: 'string',
    shown: 'generated',
    meaning: 'bearer token of the control API and the console (printed at start only when generated)',
  },
  {
    key: 'seed',
    flag: '--seed',
    env: 'SANDBOX_SEED',
    kind: 'int',
    shown: '20261122',
    meaning: 'seeds the corpus, ids and demo keys',
  },
  {
    key: 'corpusSize',
    flag: '--corpus',
    env: 'SANDBOX_CORPUS_SIZE',
    kind: 'int',
    shown: '2000',
    meaning: 'active jobs in the generated corpus (`--corpus 100000` for benchmarks)',
  },
  {
    key: 'seedDemo',
    flag: '--no-demo',
    env: 'SANDBOX_DEMO',
    kind: 'off',
    shown: 'demo on',
    meaning: 'do not seed demo tenants (`SANDBOX_DEMO=0`)',
  },
  {
    key: 'noRateLimits',
    flag: '--no-rate-limits',
    env: 'SANDBOX_NO_RATE_LIMITS',
    kind: 'on',
    shown: 'off',
    meaning: 'lift every rate limit (headers still sent); for load tests',
  },
  {
    key: 'selfCheck',
    flag: '--self-check',
    env: 'SANDBOX_SELF_CHECK',
    kind: 'on',
    shown: 'off',
    meaning: 'validate every API response against the contract; a mismatch becomes a 500 naming it',
  },
  {
    key: 'bugs',
    flag: '--bug',
    env: 'SANDBOX_BUGS',
    kind: 'list',
    shown: 'none',
    meaning: 'switch on a planted bug, by name (harness self-tests only; the variable takes `a,b`)',
  },
  {
    key: 'publicUrl',
    env: 'SANDBOX_PUBLIC_URL',
    kind: 'string',
    shown: '`http://host:port`',
    meaning: 'base of links the sandbox returns',
  },
  {
    key: 'appUrl',
    flag: '--app-url',
    env: 'SANDBOX_APP_URL',
    kind: 'string',
    shown: '`<public url>/app`',
    meaning:
      "where integrators reach the account dashboard (served at `/app` on the main port); the 402 upsell's `upgradeUrl` is its billing page",
  },
  { key: 'log', flag: '--log', env: 'SANDBOX_LOG', kind: 'on', shown: 'off', meaning: 'one line per request' },
  {
    key: 'store',
    flag: '--store',
    env: 'SANDBOX_DATABASE_URL',
    kind: 'string',
    shown: '`memory`',
    meaning:
      '`postgres://user:password@host:port/db`: a shared, durable sandbox on PostgreSQL, several instances on one database (see [State](#state-the-store-port-and-postgresql))',
  },
  {
    key: 'fastPath',
    env: 'SANDBOX_FAST_PATH',
    kind: 'off',
    shown: 'on',
    meaning:
      'answer every call through the routed app, without the REST fast path (same bytes; for comparing the two; `SANDBOX_FAST_PATH=0`); on a shared sandbox the fast path answers recorded submits (D-144)',
  },
  {
    key: 'snapshotEvery',
    flag: '--snapshot-every',
    env: 'SANDBOX_SNAPSHOT_EVERY',
    kind: 'int',
    shown: '10000',
    meaning:
      'a shared sandbox snapshots its state every this many recorded steps (and at a clean stop), so a start replays only the steps after the newest snapshot; 0: only at a clean stop',
  },
  {
    key: 'residentTenants',
    flag: '--resident-tenants',
    env: 'SANDBOX_RESIDENT_TENANTS',
    kind: 'int',
    shown: '1000',
    meaning:
      'a shared sandbox keeps at most this many tenants in memory beyond those with work under way (webhook attempts in flight, connected listeners) and loads the others from the database on their first call (D-150); 0: every tenant in memory',
  },
  {
    key: 'callsPerCaller',
    flag: '--calls-per-caller',
    env: 'SANDBOX_CALLS_PER_CALLER',
    kind: 'int',
    shown: String(CALLS_PER_CALLER),
    meaning:
      "while more than one caller calls, the calls of one caller (a credential or session, else a client address) in progress at once; its later calls wait their turn, so one caller's burst does not hold up another's calls; a caller alone is never held, nor held for another caller's one call, nor while it has at most half the calls another has in progress or waiting (D-165, D-169, D-171, D-197); 0: no limit",
  },
];

/** The value an on/off variable is set to: `1` turns an off-by-default switch on, `0` turns an on-by-default one off. */
const envSwitch = (kind: Kind) => (kind === 'on' ? '1' : '0');

function integer(name: string, v: string): number {
  const n = Number(v);
  if (v === '' || !Number.isInteger(n) || n < 0) throw new Error(`${name} needs a non-negative integer, got '${v}'`);
  return n;
}

function fromText(spec: OptionSpec, name: string, v: string): unknown {
  switch (spec.kind) {
    case 'int':
      return integer(name, v);
    case 'list':
      return v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'on':
    case 'off':
      return (v === envSwitch(spec.kind)) === (spec.kind === 'on');
    default:
      return v;
  }
}

/** Flags to config input; an unknown flag or a missing value is an error naming it. `--help` is the caller's. */
export function parseFlags(argv: readonly string[]): ConfigInput {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const spec = OPTIONS.find((o) => o.flag === a);
    if (!spec) throw new Error(`unknown option ${a} (try --help)`);
    if (spec.kind === 'on' || spec.kind === 'off') {
      out[spec.key] = spec.kind === 'on';
      continue;
    }
    const v = argv[++i];
    if (v === undefined) throw new Error(`${a} needs a value`);
    if (spec.kind === 'list') out[spec.key] = [...((out[spec.key] as string[]) ?? []), v];
    else out[spec.key] = fromText(spec, a, v);
  }
  return out;
}

/** The options as a Markdown table: the README's, kept equal to this by a test. */
export function optionsTable(): string {
  const rows = OPTIONS.map((o) => {
    const names = [o.flag && `\`${o.flag}${o.kind === 'list' ? ' NAME' : ''}\``, o.env && `\`${o.env}\``]
      .filter(Boolean)
      .join(' / ');
    return `| ${names} | ${o.shown} | ${o.meaning} |`;
  });
  return ['| flag / variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** What `--help` prints. */
export function usage(): string {
  const arg = (o: OptionSpec) => (o.kind === 'on' || o.kind === 'off' ? '' : o.kind === 'int' ? ' N' : ' VALUE');
  const flags = OPTIONS.filter((o) => o.flag).map((o) => `[${o.flag}${arg(o)}]`);
  const envs = OPTIONS.filter((o) => o.env).map(
    (o) => `  ${o.env!.padEnd(24)} ${o.meaning.replace(/\s*\(see \[.*$/, '')}`,
  );
  return [
    `usage: remote-jobs-sandbox (in a checkout: npm start --) ${flags.join(' ')}`,
    '',
    'environment:',
    ...envs,
  ].join('\n');
}

/** The options given by flags or input first, then the environment; unset ones are absent. */
function gather(input: ConfigInput, env: NodeJS.ProcessEnv): ConfigInput {
  const out: Record<string, unknown> = {};
  for (const o of OPTIONS) {
    const given = input[o.key];
    if (given !== undefined) out[o.key] = given;
    else if (o.env && env[o.env] !== undefined && env[o.env] !== '') out[o.key] = fromText(o, o.env, env[o.env]!);
  }
  return out;
}

/** The store URL, or null for the in-memory default; anything else is refused with the way forward. */
function storeUrl(value: string | undefined): string | null {
  if (value === undefined || value === '' || value === 'memory') return null;
  if (!/^postgres(ql)?:\/\//.test(value))
    throw new Error(
      `unknown store '${value}': use memory (the default) or a postgres://user:password@host:port/db URL`,
    );
  return value;
}

/** An absolute http(s) URL without a trailing slash (links are built by appending paths to it). */
function absoluteUrl(name: string, value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`${name} needs an absolute http(s) URL, got '${value}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`${name} needs an absolute http(s) URL, got '${value}'`);
  return value.replace(/\/+$/, '');
}

/** Every option resolved once, before the ports are bound: `publicUrl` is null until the address is known. */
export interface ResolvedOptions extends Omit<SandboxConfig, 'publicUrl' | 'appUrl'> {
  publicUrl: string | null;
  /** Null until the public URL is known: it defaults to `<publicUrl>/app`. */
  appUrl: string | null;
  /** A PostgreSQL URL, or null for the in-memory default. */
  store: string | null;
}

export function resolveOptions(input: ConfigInput = {}, env: NodeJS.ProcessEnv = {}): Readonly<ResolvedOptions> {
  const g = gather(input, env);
  return Object.freeze({
    host: g.host ?? '127.0.0.1',
    port: g.port ?? 8787,
    anonMcpPort: g.anonMcpPort ?? 8788,
    adminToken: g.adminToken || `sat_${secureToken(32)}`,
    adminTokenGenerated: !g.adminToken,
    seed: g.seed ?? 20261122,
    corpusSize: g.corpusSize ?? 2000,
    seedDemo: g.seedDemo ?? true,
    selfCheck: g.selfCheck ?? false,
    noRateLimits: g.noRateLimits ?? false,
    bugs: g.bugs ?? [],
    publicUrl: g.publicUrl ?? null,
    appUrl: g.appUrl === undefined ? null : absoluteUrl('SANDBOX_APP_URL (--app-url)', g.appUrl),
    log: g.log ?? false,
    fastPath: g.fastPath ?? true,
    snapshotEvery: g.snapshotEvery ?? 10_000,
    residentTenants: g.residentTenants ?? 1000,
    callsPerCaller: g.callsPerCaller ?? CALLS_PER_CALLER,
    store: storeUrl(g.store),
  });
}

/** The config once the ports are bound (port 0 picks a free one): the public URL defaults to that address. */
export function bindConfig(
  options: Readonly<ResolvedOptions>,
  port = options.port,
  anonMcpPort = options.anonMcpPort,
): Readonly<SandboxConfig> {
  const { store: _store, ...rest } = options;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const publicUrl = options.publicUrl ?? `http://${host}:${port}`;
  return Object.freeze({
    ...rest,
    port,
    anonMcpPort,
    publicUrl,
    appUrl: options.appUrl ?? `${publicUrl.replace(/\/+$/, '')}/app`,
  });
}

/** Options resolved and bound to the configured ports at once (tests and benchmarks that build a core). */
export function resolveConfig(input: ConfigInput = {}, env: NodeJS.ProcessEnv = {}): Readonly<SandboxConfig> {
  return bindConfig(resolveOptions(input, env));
}
