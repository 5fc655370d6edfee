// Interactive API reference at /docs: Swagger UI (swagger-ui-dist, served from node_modules, no CDN)
// over both contracts and the control API's own description, each served with `servers` pointing at
// this sandbox so "Try it out" works, with examples per status derived from the contracts, and a
// fresh idempotency key put in each submit Execute sends.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import { parse } from 'yaml';
import type { ApiName } from '../contract/index.js';
import type { Core } from '../domain/core.js';
import { notFound } from '../errors/errors.js';
import type { AppEnv } from '../web/env.js';
import { exampleIdempotencyKeys, withDerivedExamples } from './docsExamples.js';
import type { Doc } from '../contract/doc.js';

const require = createRequire(import.meta.url);
const swaggerDir: string = (require('swagger-ui-dist/absolute-path.js') as () => string)();

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};
const assetCache = new Map<string, Buffer>();
/** The page's own stylesheet and script (kept as files beside this module, read once). */
const OWN_ASSETS = Object.fromEntries(
  ['docs.css', 'docs-init.js'].map((name) => [
    name,
    readFileSync(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)), 'utf8'),
  ]),
) as Record<'docs.css' | 'docs-init.js', string>;

const APIS: Record<ApiName, { file: string; fallbackTitle: string }> = {
  screening: { file: 'screening.openapi.yaml', fallbackTitle: 'Candidate Screening API' },
  jobs: { file: 'jobs.openapi.yaml', fallbackTitle: 'Jobs, Market Data and MCP API' },
};
const CONTRACTS_DIR = fileURLToPath(new URL('../../contracts/', import.meta.url));
const CONTROL_FILE = 'control.openapi.yaml';
let controlDoc: Doc | undefined;

/** The control API's description (not a contract of either public API; read once), `servers` set as servedDocument() does. */
function controlDocument(core: Core, origin?: string): Doc {
  controlDoc ??= parse(readFileSync(join(CONTRACTS_DIR, CONTROL_FILE), 'utf8')) as Doc;
  const doc = structuredClone(controlDoc);
  doc.servers = [{ url: (origin ?? core.config.publicUrl).replace(/\/+$/, ''), description: 'This sandbox' }];
  return doc;
}

/** The bundled document from the loaded contracts, or straight from the YAML while none is loaded. */
function sourceDocument(core: Core, api: ApiName): Doc {
  const loaded = core.contracts.documents[api];
  if (loaded && Object.keys(loaded).length > 0) return loaded;
  try {
    return parse(readFileSync(join(CONTRACTS_DIR, APIS[api].file), 'utf8')) as Doc;
  } catch {
    throw notFound(`the ${api} contract (contracts/${APIS[api].file}) is not available`);
  }
}

/** The path prefix of the document's first server (e.g. /api/screening/v1), '' when it has none. */
function serverPrefix(doc: Doc): string {
  const server = doc.servers?.[0];
  if (!server || typeof server.url !== 'string') return '';
  const url = server.url.replace(/\{([^}]+)\}/g, (_: string, name: string) =>
    String(server.variables?.[name]?.default ?? ''),
  );
  let path = url;
  if (!url.startsWith('/')) {
    try {
      path = new URL(url).pathname;
    } catch {
      path = /^[^/]*\/\/[^/]*(\/[^?#]*)?/.exec(url)?.[1] ?? '';
    }
  }
  return path.replace(/\/+$/, '');
}

/**
 * The contract with `servers` set to this sandbox: to `origin` (the origin the request reached it at,
 * so "Try it out" and fuzzers call the host they read the document from), else the public URL.
 */
export function servedDocument(core: Core, api: ApiName, origin?: string): Doc {
  const doc = structuredClone(sourceDocument(core, api));
  const base = (origin ?? core.config.publicUrl).replace(/\/+$/, '');
  doc.servers = [{ url: `${base}${serverPrefix(doc)}`, description: 'This sandbox' }];
  return doc;
}

/** The origin a request reached the sandbox at (scheme, Host header and port). */
export const requestOrigin = (c: Context) => new URL(c.req.url).origin;

/** The page, with its script's data as a JSON block (not executed, so the CSP's script-src 'self' holds). */
const page = (config: unknown) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Remote-jobs sandbox</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/docs.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
</head>
<body>
<a class="skip" href="#swagger-ui">Skip to the API reference</a>
<header class="sandbox-bar">
  <strong>Remote-jobs sandbox</strong> <span>API reference</span>
  <nav aria-label="Sandbox"><a href="/console">Console</a> <a href="/docs/screening.json">screening.json</a> <a href="/docs/jobs.json">jobs.json</a> <a href="/docs/control.json">control.json</a></nav>
</header>
<main id="swagger-ui" tabindex="-1"></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script id="docs-config" type="application/json">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>
<script src="/docs/init.js"></script>
</body>
</html>`;

/** What the page's script needs: the documents to list and the contract's example idempotency keys. */
function docsConfig(core: Core): { urls: { url: string; name: string }[]; exampleKeys: string[] } {
  const urls = (Object.keys(APIS) as ApiName[]).map((api) => {
    let title = APIS[api].fallbackTitle;
    try {
      title = String(sourceDocument(core, api).info?.title ?? title);
    } catch {
      // the selector still lists the API; selecting it shows the 404 message
    }
    return { url: `/docs/${api}.json`, name: title };
  });
  urls.push({ url: '/docs/control.json', name: 'Sandbox Control API' });
  let exampleKeys: string[] = [];
  try {
    exampleKeys = exampleIdempotencyKeys(sourceDocument(core, 'screening'));
  } catch {
    // no screening contract: nothing to swap
  }
  return { urls, exampleKeys };
}

export function docsRoutes() {
  const r = new Hono<AppEnv>();

  r.use('*', async (c, next) => {
    await next();
    const origin = new URL(c.var.core.config.publicUrl).origin;
    // Swagger UI sets inline styles; "Try it out" calls this sandbox's public URL.
    c.res.headers.set(
      'content-security-policy',
      `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ${origin}; frame-ancestors 'none'; base-uri 'none'; object-src 'none'`,
    );
    c.res.headers.set('x-content-type-options', 'nosniff');
  });

  r.get('/', (c) => c.html(page(docsConfig(c.var.core))));
  r.get('/docs.css', (c) => c.body(OWN_ASSETS['docs.css'], 200, { 'content-type': 'text/css; charset=utf-8' }));
  r.get('/init.js', (c) =>
    c.body(OWN_ASSETS['docs-init.js'], 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
  r.get('/screening.json', (c) =>
    c.json(withDerivedExamples(servedDocument(c.var.core, 'screening', requestOrigin(c)))),
  );
  r.get('/jobs.json', (c) => c.json(withDerivedExamples(servedDocument(c.var.core, 'jobs', requestOrigin(c)))));
  r.get('/control.json', (c) =>
    c.json(withDerivedExamples(controlDocument(c.var.core, requestOrigin(c))), 200, {
      'access-control-allow-origin': '*',
    }),
  );
  r.get('/assets/:file', (c) => {
    const name = c.req.param('file');
    // own keys only: `constructor` or `__proto__` must not reach Object.prototype
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!type) throw notFound(`no docs asset ${name}`);
    let buf = assetCache.get(name);
    if (!buf) {
      buf = readFileSync(join(swaggerDir, name));
      assetCache.set(name, buf);
    }
    return c.body(new Uint8Array(buf), 200, { 'content-type': type, 'cache-control': 'public, max-age=3600' });
  });

  return r;
}
