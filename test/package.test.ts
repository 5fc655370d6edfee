// The package as a pipeline or an integrator's test suite gets it: `npm pack` builds the tarball once, it is
// installed into an empty directory outside the checkout (nothing of the checkout is reachable from there),
// the installed `remote-jobs-sandbox` command starts a sandbox on free ports, the installed
// `remote-jobs-conformance` command runs the harness against it and exits 0, and the typed programmatic API
// (type-checked against the emitted declarations, then run) starts a sandbox in-process and runs the harness
// from code. The commands run are the README's "Install" lines, which the last test holds the README to.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
};
const tarballName = `${pkg.name}-${pkg.version}.tgz`;
const ADMIN_TOKEN = 'sat_package_test_token';

/** The README's install lines; the test runs exactly these (with the tarball's path in place of ./). */
const INSTALL = `npm install --prefer-offline ./${tarballName}`;
const START = 'npx remote-jobs-sandbox --port 0 --anon-port 0';
const HARNESS =
  'npx remote-jobs-conformance --target "$TARGET" --anon-mcp "$ANON_MCP" --admin-token "$SANDBOX_ADMIN_TOKEN" --runs 1 --no-rate-windows';

/** The environment of a user's shell: nothing of this run's npm, vitest or Node options leaks in. */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(npm_|VITEST|NODE_OPTIONS$|NODE_PATH$|INIT_CWD$|TSX_)/i.test(k)),
  ),
  ...extra,
});

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env = cleanEnv(),
  timeout = 300_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** `sh -c line` with the given variables: the README's line, as a user's shell would run it. */
const shell = (line: string, cwd: string, vars: Record<string, string> = {}, timeout?: number) =>
  run('sh', ['-c', line], cwd, cleanEnv(vars), timeout);

const ms = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

describe('the packed package, installed outside the checkout', () => {
  let dir = '';
  let app = '';
  let files: string[] = [];
  const timings: string[] = [];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'rjs-package-')));
    app = path.join(dir, 'app');
    mkdirSync(app);
    let t = Date.now();
    // `npm test` type-checks this tree beside the test files; the build's own check would only repeat it
    const packed = await run(
      'npm',
      ['pack', '--json', '--pack-destination', dir],
      repo,
      cleanEnv({ BUILD_NO_TYPECHECK: '1' }),
    );
    if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}):\n${packed.stderr.slice(-4000)}`);
    // prepack's build prints to stdout before the JSON listing
    const listing = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[/m))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    files = listing[0].files.map((f) => f.path);
    timings.push(`pack ${ms(t)}`);
    t = Date.now();
    writeFileSync(path.join(app, tarballName), readFileSync(path.join(dir, listing[0].filename)));
    const installed = await shell(INSTALL, app);
    if (installed.code !== 0)
      throw new Error(`${INSTALL} failed (${installed.code}):\n${installed.stderr.slice(-4000)}`);
    timings.push(`install ${ms(t)}`);
  }, 600_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(`package test: ${timings.join(', ')}`);
  });

  it('installs where nothing of the checkout is reachable', () => {
    expect(path.relative(repo, app).startsWith('..')).toBe(true);
    // a module lookup from the install walks up through these: only the install's own node_modules exists
    const ancestors: string[] = [];
    for (let d = path.dirname(app); ; d = path.dirname(d)) {
      ancestors.push(d);
      if (d === path.dirname(d)) break;
    }
    expect(ancestors.filter((d) => existsSync(path.join(d, 'node_modules')))).toEqual([]);
    expect(ancestors).not.toContain(path.resolve(repo));
    for (const name of Object.keys(pkg.bin)) {
      const bin = realpathSync(path.join(app, 'node_modules/.bin', name));
      expect(bin.startsWith(path.join(app, 'node_modules', pkg.name, 'dist') + path.sep), `${name} → ${bin}`).toBe(
        true,
      );
    }
  });

  it('ships compiled JavaScript with declarations, the contracts and fixtures, and no tests, reports, bench or sources', () => {
    for (const f of [
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/conformance/index.js',
      'dist/conformance/index.d.ts',
      'dist/contracts/requirements.yaml',
      'dist/contracts/screening.openapi.yaml',
      'dist/fixtures/demo-tenants.json',
      'dist/src/sandbox/console/assets/console.js',
    ]) {
      expect(files, f).toContain(f);
    }
    const stray = files.filter(
      (f) =>
        /(^|\/)(test|bench|reports|\.conformance|node_modules|regressions)\/|\.test\.|\.ts$/.test(f) &&
        !f.endsWith('.d.ts'),
    );
    expect(stray).toEqual([]);
    const installedPkg = JSON.parse(readFileSync(path.join(app, 'node_modules', pkg.name, 'package.json'), 'utf8'));
    expect(Object.keys(installedPkg.dependencies)).not.toContain('tsx');
    // every package the compiled code imports is a runtime dependency (not a dev one that happens to be hoisted)
    const imported = new Set<string>();
    for (const f of files.filter((f) => f.endsWith('.js'))) {
      const js = readFileSync(path.join(app, 'node_modules', pkg.name, f), 'utf8');
      const specifiers =
        /^(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]|\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/gm;
      for (const [, ...alternatives] of js.matchAll(specifiers)) {
        const spec = alternatives.find((a) => a !== undefined)!;
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        imported.add(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        );
      }
    }
    expect(imported.size).toBeGreaterThan(5);
    expect([...imported].filter((name) => !(name in installedPkg.dependencies))).toEqual([]);
  });

  it('starts the sandbox from the installed command and the installed harness passes it (exit 0)', async () => {
    const t = Date.now();
    const sandbox = spawn('sh', ['-c', `exec ${START}`], {
      cwd: app,
      env: cleanEnv({ SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    try {
      const banner = await bannerOf(sandbox);
      const target = /API base URL\s+(\S+)/.exec(banner)![1];
      const anonMcp = /anonymous MCP\s+(\S+)/.exec(banner)![1];
      expect(target).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const harness = await shell(
        `${HARNESS} --seed 1 --report-dir ${path.join(dir, 'reports')} --quiet`,
        app,
        { TARGET: target, ANON_MCP: anonMcp, SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN },
        240_000,
      );
      expect(harness.code, harness.stdout + harness.stderr).toBe(0);
      const report = JSON.parse(readFileSync(path.join(dir, 'reports/report.json'), 'utf8'));
      expect(report.ok).toBe(true);
      expect(existsSync(path.join(dir, 'reports/junit.xml'))).toBe(true);
      // the third command, the webhook listener, reaches the sandbox and says why it was refused
      const listen = await shell(
        `npx remote-jobs-listen --target ${target} --key rjk_live_unknown --forward-to http://127.0.0.1:9/hooks`,
        app,
        {},
        60_000,
      );
      expect([listen.code, listen.stdout + listen.stderr]).toEqual([
        2,
        expect.stringMatching(/refused the key \(401\)/),
      ]);
    } finally {
      await stop(sandbox);
    }
    timings.push(`commands ${ms(t)}`);
  }, 300_000);

  it("offers a typed API: a sandbox in-process and the harness from code, returning the reporters' result", async () => {
    const t = Date.now();
    writeFileSync(path.join(app, 'integrator.mts'), INTEGRATOR);
    // the emitted declarations, checked as an integrator's compiler sees them (strict, NodeNext)
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: TSCONFIG, files: ['integrator.mts'] }),
    );
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);
    expect(compiled.code, compiled.stdout + compiled.stderr).toBe(0);
    const ran = await run(process.execPath, ['integrator.mjs'], app, cleanEnv(), 240_000);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout.trim().split('\n').pop()!);
    expect(out).toMatchObject({ ok: true, meStatus: 200, demoTenants: 5, stoppedRefuses: true });
    expect(out.passed).toBeGreaterThan(0);
    timings.push(`api ${ms(t)}`);
  }, 300_000);

  it("runs the README's install lines", () => {
    const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## Install');
    expect(start).toBeGreaterThan(0);
    const install = readme.slice(start, readme.indexOf('\n## ', start + 1));
    for (const line of ['npm pack', INSTALL, START, HARNESS]) expect(install, line).toContain(line);
  });
});

/** An integrator's compiler settings: strict, NodeNext, no @types package installed. */
const TSCONFIG = {
  strict: true,
  module: 'nodenext',
  moduleResolution: 'nodenext',
  target: 'es2022',
  lib: ['es2023', 'dom'],
  types: [],
  skipLibCheck: true,
};

/** An integrator's test file: typed use of both entry points (a wrong option must not compile), then a run. */
const INTEGRATOR = `
import { startSandbox, type Sandbox, type SandboxOptions } from '${pkg.name}';
import { runConformance, type RunResult } from '${pkg.name}/conformance';

// @ts-expect-error a port is a number: the declarations are real types, not any
const wrong: SandboxOptions = { port: 'eighty' };
void wrong;

const sandbox: Sandbox = await startSandbox({ corpusSize: 300 });
let stoppedRefuses = false;
try {
  const pro = sandbox.demoTenants.find((t) => t.planTier === 'pro')!;
  const me = await fetch(sandbox.urls.jobs + '/me', { headers: { authorization: 'Bearer ' + pro.apiKey } });
  const result: RunResult = await runConformance({
    target: sandbox.baseUrl,
    anonMcp: sandbox.anonMcpUrl,
    adminToken: sandbox.adminToken,
    seed: 1,
    runs: 1,
    only: ['screening.submit', 'jobs.search', 'mcp.keyed.initialize'],
    rateWindows: false,
    reportDir: null,
    progress: false,
  });
  const passed = result.counts.must.pass;
  await sandbox.stop();
  stoppedRefuses = await fetch(sandbox.urls.openapi).then(() => false, () => true);
  console.log(JSON.stringify({ ok: result.ok, passed, meStatus: me.status, demoTenants: sandbox.demoTenants.length, stoppedRefuses }));
} finally {
  await sandbox.stop();
}
`;

function bannerOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no banner within 60 s:\n${out}`)), 60_000);
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (/demo tenants[\s\S]*Demo Jobs-only/.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited (${code}) before its banner:\n${out}`));
    });
  });
}

/** SIGTERM to the process group this test started (npx and the sandbox under it); waits for the exit. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      resolve();
    }
  });
}
