import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bindConfig, OPTIONS, optionsTable, parseFlags, resolveOptions, usage } from './config.js';

describe('the one list of options', () => {
  it("is the README's table", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(optionsTable());
  });

  it('gives every flag a parse and lists every flag and variable in --help', () => {
    const help = usage();
    for (const o of OPTIONS) {
      if (o.flag) expect(help).toContain(o.flag);
      if (o.env) expect(help).toContain(o.env);
    }
    expect(parseFlags(['--port', '0', '--no-demo', '--bug', 'a', '--bug', 'b', '--store', 'memory', '--log'])).toEqual({
      port: 0,
      seedDemo: false,
      bugs: ['a', 'b'],
      store: 'memory',
      log: true,
    });
    expect(() => parseFlags(['--port'])).toThrow(/--port needs a value/);
    expect(() => parseFlags(['--port', '-1'])).toThrow(/--port needs a non-negative integer/);
    expect(() => parseFlags(['--colour'])).toThrow(/unknown option --colour/);
  });

  it('reads the environment once: switches, lists, the store; flags and input win', () => {
    const env = {
      SANDBOX_DEMO: '0',
      SANDBOX_NO_RATE_LIMITS: '1',
      SANDBOX_FAST_PATH: '0',
      SANDBOX_BUGS: 'x, y,',
      PORT: '9000',
      SANDBOX_DATABASE_URL: 'postgres://u:p@h:5432/d',
    };
    const o = resolveOptions({ port: 0 }, env);
    expect([o.seedDemo, o.noRateLimits, o.fastPath, o.bugs, o.port, o.store]).toEqual([
      false,
      true,
      false,
      ['x', 'y'],
      0,
      'postgres://u:p@h:5432/d',
    ]);
    const d = resolveOptions({}, {});
    expect([
      d.seedDemo,
      d.noRateLimits,
      d.fastPath,
      d.selfCheck,
      d.log,
      d.store,
      d.port,
      d.adminTokenGenerated,
    ]).toEqual([true, false, true, false, false, null, 8787, true]);
    expect(resolveOptions({}, { SANDBOX_DEMO: '1', SANDBOX_LOG: 'yes' }).seedDemo).toBe(true);
    expect(resolveOptions({}, { SANDBOX_LOG: 'yes' }).log).toBe(false);
    expect(() => resolveOptions({ store: 'mysql://x' })).toThrow(/unknown store 'mysql:\/\/x'/);
    expect(resolveOptions({ adminToken: 'sat_given' }, {}).adminTokenGenerated).toBe(false);
  });

  it('binds the public URL to the listening address unless one was given', () => {
    expect(bindConfig(resolveOptions({ port: 0 }), 4321, 4322)).toMatchObject({
      port: 4321,
      anonMcpPort: 4322,
      publicUrl: 'http://127.0.0.1:4321',
    });
    expect(bindConfig(resolveOptions({ host: '::1' }), 5000, 5001).publicUrl).toBe('http://[::1]:5000');
    expect(bindConfig(resolveOptions({}, { SANDBOX_PUBLIC_URL: 'https://sb.example' }), 1, 2).publicUrl).toBe(
      'https://sb.example',
    );
    expect('store' in bindConfig(resolveOptions({}))).toBe(false);
  });

  it('puts the account dashboard under the public URL unless an app URL was given', () => {
    expect(bindConfig(resolveOptions({ port: 0 }), 4321, 4322).appUrl).toBe('http://127.0.0.1:4321/app');
    expect(bindConfig(resolveOptions({}, { SANDBOX_PUBLIC_URL: 'https://sb.example/' }), 1, 2).appUrl).toBe(
      'https://sb.example/app',
    );
    expect(bindConfig(resolveOptions({}, { SANDBOX_APP_URL: 'https://dash.example/app/' }), 1, 2).appUrl).toBe(
      'https://dash.example/app',
    );
    expect(parseFlags(['--app-url', 'https://d.example'])).toEqual({ appUrl: 'https://d.example' });
    expect(() => resolveOptions({ appUrl: 'ftp://x' })).toThrow(/--app-url/);
    expect(() => resolveOptions({ appUrl: '/app' })).toThrow(/absolute http/);
  });
});
