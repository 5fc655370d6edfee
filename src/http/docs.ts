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

const APIS: Record<ApiName, { file: string; fallbackTitle: string }> = {
  screening: { file: 'screening.openapi.yaml', fallbackTitle: 'Candidate Screening API' },
  jobs: { file: 'jobs.openapi.yaml', fallbackTitle: 'Jobs, Market Data and MCP API' },
};
const CONTRACTS_DIR = fileURLToPath(new URL('../../contracts/', import.meta.url));
const CONTROL_FILE = 'control.openapi.yaml';
let controlDoc: Record<string, any> | undefined;

/** The control API's description (not a contract of either public API; read once). */
function controlDocument(core: Core): Record<string, any> {
  controlDoc ??= parse(readFileSync(join(CONTRACTS_DIR, CONTROL_FILE), 'utf8')) as Record<string, any>;
  const doc = structuredClone(controlDoc);
  doc.servers = [{ url: core.config.publicUrl.replace(/\/+$/, ''), description: 'This sandbox' }];
  return doc;
}

/** The bundled document from the loaded contracts, or straight from the YAML while none is loaded. */
function sourceDocument(core: Core, api: ApiName): Record<string, any> {
  const loaded = core.contracts.documents[api];
  if (loaded && Object.keys(loaded).length > 0) return loaded;
  try {
    return parse(readFileSync(join(CONTRACTS_DIR, APIS[api].file), 'utf8')) as Record<string, any>;
  } catch {
    throw notFound(`the ${api} contract (contracts/${APIS[api].file}) is not available`);
  }
}

/** The path prefix of the document's first server (e.g. /api/screening/v1), '' when it has none. */
function serverPrefix(doc: Record<string, any>): string {
  const server = doc.servers?.[0];
  if (!server || typeof server.url !== 'string') return '';
  const url = server.url.replace(/\{([^}]+)\}/g, (_: string, name: string) => String(server.variables?.[name]?.default ?? ''));
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
export function servedDocument(core: Core, api: ApiName, origin?: string): Record<string, any> {
  const doc = structuredClone(sourceDocument(core, api));
  const base = (origin ?? core.config.publicUrl).replace(/\/+$/, '');
  doc.servers = [{ url: `${base}${serverPrefix(doc)}`, description: 'This sandbox' }];
  return doc;
}

/** The origin a request reached the sandbox at (scheme, Host header and port). */
export const requestOrigin = (c: Context) => new URL(c.req.url).origin;

const PAGE = `<!doctype html>
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
<script src="/docs/init.js"></script>
</body>
</html>`;

const CSS = `body { margin: 0; }
.sandbox-bar { display: flex; gap: 1rem; align-items: baseline; padding: 0.55rem 1.2rem; background: #111a2b; color: #dfe6f3; font: 15px/1.4 system-ui, sans-serif; }
.sandbox-bar span { color: #9fb0cc; }
.sandbox-bar nav { margin-left: auto; display: flex; gap: 1rem; }
.sandbox-bar a { color: #fff; }
.skip { position: absolute; left: 0.5rem; top: -3rem; background: #f5a524; color: #000; padding: 0.5rem 0.8rem; z-index: 10; }
.skip:focus { top: 0.5rem; }
:focus-visible { outline: 3px solid #f5a524; outline-offset: 2px; }
.swagger-ui .topbar { background: #1b2536; padding: 8px 0; }
.swagger-ui .topbar .topbar-wrapper > a { visibility: hidden; }
main:focus { outline: none; }`;

function initScript(core: Core): string {
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
  return `// Generated by the sandbox: Swagger UI over both contracts and the control API.
(function () {
  var urls = ${JSON.stringify(urls)};
  // the contract's example idempotency keys: a second Execute with one of them would be a silent replay
  var exampleKeys = ${JSON.stringify(exampleKeys)};
  function freshKey() {
    return 'docs-' + (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2));
  }
  var wanted = new URLSearchParams(location.search).get('api');
  var primary = urls.filter(function (u) { return u.url === '/docs/' + wanted + '.json'; })[0];
  window.ui = SwaggerUIBundle({
    urls: urls,
    'urls.primaryName': primary ? primary.name : urls[0].name,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    validatorUrl: null,
    requestInterceptor: function (req) {
      if (typeof req.body === 'string' && req.body.indexOf('idempotencyKey') >= 0) {
        try {
          var body = JSON.parse(req.body);
          if (body && exampleKeys.indexOf(body.idempotencyKey) >= 0) {
            body.idempotencyKey = freshKey();
            req.body = JSON.stringify(body);
          }
        } catch (e) {
          // not JSON: sent as typed
        }
      }
      return req;
    },
    // Swagger UI warns on any jsonSchemaDialect but the OAS default; the served JSON keeps it as written.
    responseInterceptor: function (res) {
      var isContract = urls.some(function (u) { return (res.url || '').endsWith(u.url); });
      if (isContract && res.body && res.body.jsonSchemaDialect) {
        delete res.body.jsonSchemaDialect;
        res.text = res.data = JSON.stringify(res.body);
      }
      return res;
    }
  });
})();
`;
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

  r.get('/', (c) => c.html(PAGE));
  r.get('/docs.css', (c) => c.body(CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));
  r.get('/init.js', (c) => c.body(initScript(c.var.core), 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }));
  r.get('/screening.json', (c) => c.json(withDerivedExamples(servedDocument(c.var.core, 'screening', requestOrigin(c)))));
  r.get('/jobs.json', (c) => c.json(withDerivedExamples(servedDocument(c.var.core, 'jobs', requestOrigin(c)))));
  r.get('/control.json', (c) => c.json(withDerivedExamples(controlDocument(c.var.core)), 200, { 'access-control-allow-origin': '*' }));
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
