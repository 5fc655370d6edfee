// Raw options (CLI flags, a profile file, programmatic overrides) become one resolved, frozen harness
// config here; everything downstream receives it and nothing reads flags or files on its own.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { loadBaseline, parseBaseline, type Baseline } from './baseline.js';
import { loadCatalogue } from './requirements.js';

export const KEY_SLOTS = [
  'free',
  'starter',
  'pro',
  'scale',
  'noScreeningScope',
  'noJobsScope',
  'noMcpScope',
  'screeningSpent',
] as const;
export type KeySlot = (typeof KEY_SLOTS)[number];

/** Upper bounds for a deployment's asynchronous steps (a slow scorer, a human reviewer, webhook retries). */
export interface Waits {
  /** From submit until scoring is visible (ledger row or `screening.scored` delivery). */
  pipelineMs: number;
  /** From pending_review until a reviewer decided. */
  reviewMs: number;
  /** From a ledger transition until its webhook delivery arrived. */
  webhookMs: number;
}

export const DEFAULT_WAITS: Readonly<Waits> = Object.freeze({
  pipelineMs: 30_000,
  reviewMs: 120_000,
  webhookMs: 60_000,
});

/** What the target offers beyond the public APIs (null: decide by probing). */
export interface CapabilityFlags {
  reviewDecisions: boolean | null;
  clock: boolean | null;
  /** The target validates requests itself before the service sees them (e.g. a Prism proxy): negative-input checks are skipped. */
  validatingProxy: boolean;
}

/** The profile file: what the target offers (JSON or YAML). */
export interface Profile {
  target?: string;
  targets?: Partial<Record<'screening' | 'jobs' | 'control' | 'mcp' | 'anonMcp', string>>;
  adminToken?: string;
  keys?: Partial<Record<KeySlot, string>>;
  capabilities?: Partial<CapabilityFlags>;
  webhookReceiverUrl?: string;
  /** host:port the receiver listens on when webhookReceiverUrl is set (default 0.0.0.0 and the URL's port). */
  webhookListen?: string;
  /** Per key slot, the webhookSecret of that key's tenant (whose webhookUrl is webhookReceiverUrl). */
  webhookSecrets?: Partial<Record<KeySlot, string>>;
  /** The id of a job that exists but is not active (GET answers 404). */
  inactiveJobId?: string;
  waits?: Partial<Waits>;
}

export interface RawOptions extends Omit<Profile, 'capabilities'> {
  profile?: string;
  anonMcp?: string;
  targetJobs?: string;
  targetScreening?: string;
  capabilities?: Partial<CapabilityFlags>;
  seed?: number;
  runs?: number;
  only?: string[];
  reportDir?: string | null;
  replay?: string;
  regressionsDir?: string;
  saveRegressions?: boolean;
  requestTimeoutMs?: number;
  progress?: boolean;
  /** Root of the project holding contracts/ (defaults to the harness's own checkout). */
  root?: string;
  /** The requirements catalogue (default <root>/contracts/requirements.yaml). */
  requirementsFile?: string;
  /** Key slots the harness may spend to their cap (to observe 402 and its upsell). */
  allowSpend?: string[];
  /** Do not spend a fixed key's rate window (no 429 checks on fixed keys). */
  rateWindows?: boolean;
  /** Known failures: a baseline file or a previous report.json (a path), or a baseline's content (`{ entries }`). */
  baseline?: string | { version?: number; entries: unknown[] };
  /** Write this run's `must` failures as a baseline file here. */
  writeBaseline?: string;
  /** Checks run side by side at most (those sharing a key or the clock still run one after another); 1 runs them in turn. */
  concurrency?: number;
}

export interface HarnessConfig {
  target: string;
  /** Base URLs (origins) per surface; request paths are the full contract paths (/api/v1/jobs…). */
  bases: { screening: string; jobs: string; control: string; site: string };
  mcpUrl: string;
  anonMcpUrl: string | null;
  profileFile: string | null;
  adminToken: string | null;
  keys: Readonly<Partial<Record<KeySlot, string>>>;
  capabilities: Readonly<CapabilityFlags>;
  webhookReceiverUrl: string | null;
  webhookListen: { host: string; port: number } | null;
  webhookSecrets: Readonly<Partial<Record<KeySlot, string>>>;
  inactiveJobId: string | null;
  waits: Readonly<Waits>;
  allowSpend: readonly KeySlot[];
  rateWindows: boolean;
  concurrency: number;
  seed: number;
  seedGiven: boolean;
  runs: number;
  only: readonly string[];
  reportDir: string | null;
  replay: string | null;
  regressionsDir: string;
  saveRegressions: boolean;
  requestTimeoutMs: number;
  progress: boolean;
  root: string;
  requirementsFile: string;
  /** Known failures (--baseline), validated against the catalogue. */
  baseline: Baseline | null;
  /** Where --write-baseline writes this run's failures. */
  writeBaseline: string | null;
}

/** Checks in flight at once by default: most of a run is waiting on the target, not work. */
export const DEFAULT_CONCURRENCY = 8;

const HARNESS_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function loadProfile(file: string): Profile {
  const text = readFileSync(file, 'utf8');
  const data = /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text);
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new Error(`profile ${file}: expected an object`);
  const known = [
    'target',
    'targets',
    'adminToken',
    'keys',
    'capabilities',
    'webhookReceiverUrl',
    'webhookListen',
    'webhookSecrets',
    'inactiveJobId',
    'waits',
  ];
  for (const k of Object.keys(data))
    if (!known.includes(k)) throw new Error(`profile ${file}: unknown field '${k}' (known: ${known.join(', ')})`);
  for (const field of ['keys', 'webhookSecrets'] as const) {
    for (const k of Object.keys(data[field] ?? {})) {
      if (!(KEY_SLOTS as readonly string[]).includes(k))
        throw new Error(`profile ${file}: unknown key slot '${k}' in ${field} (known: ${KEY_SLOTS.join(', ')})`);
    }
  }
  for (const k of Object.keys(data.waits ?? {})) {
    if (!(k in DEFAULT_WAITS))
      throw new Error(`profile ${file}: unknown wait '${k}' (known: ${Object.keys(DEFAULT_WAITS).join(', ')})`);
  }
  return data as Profile;
}

function url(value: string, what: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`${what} must be an absolute http(s) URL, got '${value}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`${what} must be an http(s) URL, got '${value}'`);
  return value.replace(/\/+$/, '');
}

function hostPort(value: string, fallbackPort: number): { host: string; port: number } {
  const m = /^(.*?)(?::(\d+))?$/.exec(value)!;
  return { host: m[1] || '0.0.0.0', port: m[2] ? Number(m[2]) : fallbackPort };
}

export function resolveHarnessConfig(raw: RawOptions): Readonly<HarnessConfig> {
  const profile: Profile = raw.profile ? loadProfile(raw.profile) : {};
  const targetRaw = raw.target ?? profile.target;
  if (!targetRaw) throw new Error('--target <base URL> is required (or `target` in the profile)');
  const target = url(targetRaw, '--target');
  // programmatic callers pass a profile's fields as options: their `targets` count as the profile's
  const t = { ...profile.targets, ...raw.targets };
  const screening = url(raw.targetScreening ?? t.screening ?? target, 'screening target');
  const jobs = url(raw.targetJobs ?? t.jobs ?? target, 'jobs target');
  const control = url(t.control ?? target, 'control target');
  const anon = raw.anonMcp ?? t.anonMcp;
  const caps = { ...profile.capabilities, ...raw.capabilities };
  const seedGiven = raw.seed !== undefined;
  const seed = seedGiven ? raw.seed! : (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
  if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');
  const runs = raw.runs ?? 20;
  if (!Number.isInteger(runs) || runs < 1 || runs > 10_000)
    throw new Error('--runs must be an integer from 1 to 10000');
  const concurrency = raw.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new Error('--concurrency must be an integer from 1 to 64');
  const receiverUrl = raw.webhookReceiverUrl ?? profile.webhookReceiverUrl;
  const receiver = receiverUrl ? url(receiverUrl, 'webhookReceiverUrl') : null;
  const listen = raw.webhookListen ?? profile.webhookListen;
  const root = path.resolve(raw.root ?? HARNESS_ROOT);
  const waits = { ...DEFAULT_WAITS, ...profile.waits, ...raw.waits };
  for (const [k, v] of Object.entries(waits))
    if (!Number.isInteger(v) || v < 0)
      throw new Error(`waits.${k} must be a non-negative integer (milliseconds), got '${v}'`);
  const keys = Object.freeze({ ...profile.keys, ...raw.keys });
  const allowSpend = (raw.allowSpend ?? []).map((slot) => {
    if (!(KEY_SLOTS as readonly string[]).includes(slot))
      throw new Error(`--allow-spend: unknown key slot '${slot}' (known: ${KEY_SLOTS.join(', ')})`);
    return slot as KeySlot;
  });
  const reportDir =
    raw.reportDir === undefined ? path.resolve('reports/conformance') : raw.reportDir && path.resolve(raw.reportDir);
  const cfg: HarnessConfig = {
    target,
    bases: { screening, jobs, control, site: target },
    mcpUrl: url(t.mcp ?? `${target}/api/mcp`, 'keyed MCP URL'),
    anonMcpUrl: anon ? url(anon, '--anon-mcp') : null,
    profileFile: raw.profile ?? null,
    adminToken: raw.adminToken ?? profile.adminToken ?? null,
    keys,
    capabilities: Object.freeze({
      reviewDecisions: caps.reviewDecisions ?? null,
      clock: caps.clock ?? null,
      validatingProxy: caps.validatingProxy ?? false,
    }),
    webhookReceiverUrl: receiver,
    webhookListen: receiver
      ? hostPort(listen ?? '', Number(new URL(receiver).port) || 8899)
      : listen
        ? hostPort(listen, 0)
        : null,
    webhookSecrets: Object.freeze({ ...profile.webhookSecrets, ...raw.webhookSecrets }),
    inactiveJobId: raw.inactiveJobId ?? profile.inactiveJobId ?? null,
    waits: Object.freeze(waits),
    allowSpend: Object.freeze(allowSpend),
    rateWindows: raw.rateWindows ?? true,
    concurrency,
    seed,
    seedGiven,
    runs,
    only: Object.freeze([...(raw.only ?? [])]),
    reportDir,
    replay: raw.replay ?? null,
    regressionsDir: raw.regressionsDir ? path.resolve(raw.regressionsDir) : defaultRegressionsDir(target, reportDir),
    saveRegressions: raw.saveRegressions ?? true,
    requestTimeoutMs: raw.requestTimeoutMs ?? 15_000,
    progress: raw.progress ?? true,
    root,
    requirementsFile: path.resolve(raw.requirementsFile ?? path.join(root, 'contracts/requirements.yaml')),
    baseline: null,
    writeBaseline: raw.writeBaseline ? path.resolve(raw.writeBaseline) : null,
  };
  if (!existsSync(cfg.requirementsFile)) throw new Error(`requirements catalogue not found at ${cfg.requirementsFile}`);
  if (raw.baseline !== undefined) {
    const ids = new Set(loadCatalogue(cfg.requirementsFile).all.map((r) => r.id));
    cfg.baseline =
      typeof raw.baseline === 'string'
        ? loadBaseline(path.resolve(raw.baseline), ids)
        : parseBaseline(raw.baseline, 'options', ids);
  }
  return Object.freeze(cfg);
}

/** A file-name-safe name of a target (its origin and path), so each target's counterexamples live apart. */
export const targetSlug = (target: string) =>
  target
    .replace(/^https?:\/\//, '')
    .replace(/[^a-zA-Z0-9.-]+/g, '_')
    .replace(/^_|_$/g, '');

/**
 * Counterexamples belong to the target they were found on: kept per target under the report directory
 * (or the working directory), never in the harness's source tree.
 */
function defaultRegressionsDir(target: string, reportDir: string | null): string {
  return path.join(reportDir ?? path.resolve('.conformance'), 'regressions', targetSlug(target));
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command line that reproduces this run's target selection (secrets replaced by an env reference). */
export function baseCommand(cfg: HarnessConfig): string {
  const parts = ['npm', 'run', 'conformance', '--', '--target', shellQuote(cfg.target)];
  if (cfg.profileFile)
    parts.push('--profile', shellQuote(path.relative(process.cwd(), cfg.profileFile) || cfg.profileFile));
  if (cfg.bases.screening !== cfg.target) parts.push('--target-screening', shellQuote(cfg.bases.screening));
  if (cfg.bases.jobs !== cfg.target) parts.push('--target-jobs', shellQuote(cfg.bases.jobs));
  if (cfg.anonMcpUrl) parts.push('--anon-mcp', shellQuote(cfg.anonMcpUrl));
  if (cfg.adminToken && !cfg.profileFile) parts.push('--admin-token', '"$SANDBOX_ADMIN_TOKEN"');
  return parts.join(' ');
}
