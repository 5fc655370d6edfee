// Starts `prism mock` on one of the OpenAPI contracts in its fastest configuration: static examples,
// logging silenced, no CORS handling, no request-violation errors.

import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { freePort, waitFor, type Child, type ChildGroup } from './children.js';
import { request } from './http.js';
import { ROOT } from './sandbox.js';

export const PRISM_ARGS = ['--dynamic', 'false', '--errors', 'false', '--cors', 'false', '-v', 'silent'];

export interface PrismChild {
  child: Child;
  origin: string;
  /** The path prefix of the contract's first server URL (Prism routes on `paths` alone). */
  serverPrefix: string;
}

export function contractPrefix(file: string): string {
  const doc = parse(readFileSync(file, 'utf8')) as {
    servers?: { url?: string; variables?: Record<string, { default?: string }> }[];
  };
  const server = doc.servers?.[0];
  const url = (server?.url ?? '').replace(
    /\{([^}]+)\}/g,
    (_, name: string) => server?.variables?.[name]?.default ?? '',
  );
  try {
    return new URL(url, 'http://x').pathname.replace(/\/$/, '');
  } catch {
    return '';
  }
}

export async function startPrism(
  group: ChildGroup,
  contract: string,
  readinessPath: string,
  token: string,
): Promise<PrismChild> {
  const file = `${ROOT}${contract}`;
  if (!existsSync(file)) throw new Error(`${contract} does not exist yet`);
  const port = await freePort();
  const child = group.spawn(
    `prism (${contract})`,
    `${ROOT}node_modules/.bin/prism`,
    ['mock', file, '-h', '127.0.0.1', '-p', String(port), ...PRISM_ARGS],
    { cwd: ROOT },
  );
  const origin = `http://127.0.0.1:${port}`;
  await waitFor(
    `Prism to serve ${contract}`,
    async () =>
      (await request('GET', origin + readinessPath, { token, timeoutMs: 2000 })).status > 0 ? true : undefined,
    { timeoutMs: 60_000, intervalMs: 250, child },
  );
  return { child, origin, serverPrefix: contractPrefix(file) };
}

/** The path Prism answers for a sandbox path: the server prefix removed. */
export function prismPath(p: PrismChild, sandboxPath: string): string {
  return p.serverPrefix && sandboxPath.startsWith(p.serverPrefix)
    ? sandboxPath.slice(p.serverPrefix.length) || '/'
    : sandboxPath;
}
