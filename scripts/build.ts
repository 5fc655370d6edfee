// `npm run build` (also `prepack`): compiles the sandbox and the harness to JavaScript with declarations
// under dist/, beside the files they read at run time, so an installed package needs no TypeScript
// runner. Modules find their data relative to themselves (`../../contracts/` from dist/src/contract/),
// so dist/ mirrors the checkout: dist/{src,conformance,contracts,fixtures}. Every command named in
// package.json "bin" gets a `#!/usr/bin/env node` line and the executable bit: a new command is one
// line there.

import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const started = Date.now();

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// BUILD_NO_TYPECHECK=1 emits without checking types (the same output): for a caller that has just run
// `npm run typecheck` on the same tree, as `npm test` does beside the packaging test.
const noCheck = process.env.BUILD_NO_TYPECHECK === '1' ? ['--noCheck'] : [];
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), ...noCheck], {
  stdio: 'inherit',
  cwd: root,
});

// Data read at run time: the contracts (OpenAPI, MCP schemas, limits, requirements catalogue, the two
// documents) and the fixtures (corpus vocabulary, demo tenants, resumes). Saved counterexamples of the
// harness's own self-tests stay in the checkout.
cpSync(path.join(root, 'contracts'), path.join(dist, 'contracts'), { recursive: true });
cpSync(path.join(root, 'fixtures'), path.join(dist, 'fixtures'), {
  recursive: true,
  filter: (src) => path.relative(path.join(root, 'fixtures'), src) !== 'regressions',
});

// Files beside the code that are not code (console assets, the example profile): copied as they are.
function copyAssets(dir: string): void {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) copyAssets(file);
    else if (!/\.ts$/.test(name)) cpSync(file, path.join(dist, path.relative(root, file)));
  }
}
copyAssets(path.join(root, 'src'));
copyAssets(path.join(root, 'conformance'));

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
for (const [name, target] of Object.entries(pkg.bin ?? {})) {
  const file = path.join(root, target);
  if (!existsSync(file)) throw new Error(`bin ${name}: ${target} was not built`);
  const text = readFileSync(file, 'utf8');
  if (!text.startsWith('#!')) writeFileSync(file, `#!/usr/bin/env node\n${text}`);
  chmodSync(file, 0o755);
}

console.log(
  `built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s${noCheck.length ? ' (types not checked)' : ''}`,
);
