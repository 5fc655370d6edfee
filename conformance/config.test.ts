import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli } from './args.js';
import { baseCommand, resolveHarnessConfig } from './config.js';

describe('harness config', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'conformance-config-'));

  it('reads a YAML profile and lets flags win', () => {
    const file = path.join(dir, 'profile.yaml');
    writeFileSync(
      file,
      'target: https://api.example.com/\nkeys:\n  free: rjk_live_free\n  pro: rjk_live_pro\ncapabilities:\n  clock: false\n',
    );
    const cfg = resolveHarnessConfig({ profile: file, seed: 7 });
    expect(cfg.target).toBe('https://api.example.com');
    expect(cfg.keys).toEqual({ free: 'rjk_live_free', pro: 'rjk_live_pro' });
    expect(cfg.capabilities.clock).toBe(false);
    expect(cfg.mcpUrl).toBe('https://api.example.com/api/mcp');
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(resolveHarnessConfig({ profile: file, target: 'http://127.0.0.1:9' }).target).toBe('http://127.0.0.1:9');
  });

  it("takes a profile's `targets` passed as options (the programmatic form of a profile)", () => {
    const cfg = resolveHarnessConfig({
      target: 'http://127.0.0.1:9',
      targets: { anonMcp: 'http://127.0.0.1:10/mcp', mcp: 'http://127.0.0.1:9/mcp/keyed' },
    });
    expect(cfg.anonMcpUrl).toBe('http://127.0.0.1:10/mcp');
    expect(cfg.mcpUrl).toBe('http://127.0.0.1:9/mcp/keyed');
  });

  it('refuses unknown profile fields and key slots, and bad values', () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ target: 'http://x', keyz: {} }));
    expect(() => resolveHarnessConfig({ profile: bad })).toThrow(/unknown field 'keyz'/);
    writeFileSync(bad, JSON.stringify({ target: 'http://x', keys: { gold: 'k' } }));
    expect(() => resolveHarnessConfig({ profile: bad })).toThrow(/unknown key slot 'gold'/);
    expect(() => resolveHarnessConfig({ target: 'ftp://x' })).toThrow(/http/);
    expect(() => resolveHarnessConfig({})).toThrow(/--target/);
    expect(() => resolveHarnessConfig({ target: 'http://x', runs: 0 })).toThrow(/--runs/);
  });

  it('the replay command names the target but never the admin token', () => {
    const cfg = resolveHarnessConfig({
      target: 'http://127.0.0.1:8787',
      adminToken: 'sat_secret',
      targetJobs: 'http://127.0.0.1:4010',
      seed: 1,
    });
    const cmd = baseCommand(cfg);
    expect(cmd).toContain('--target http://127.0.0.1:8787');
    expect(cmd).toContain('--target-jobs http://127.0.0.1:4010');
    expect(cmd).not.toContain('sat_secret');
    expect(cmd).toContain('"$SANDBOX_ADMIN_TOKEN"');
  });

  it('parses the command line', () => {
    const raw = parseCli([
      '--target',
      'http://h',
      '--only',
      'SCR-IDEMP,JOB-RATE',
      '--only',
      'MCP',
      '--seed',
      '42',
      '--runs',
      '5',
      '--no-reports',
      '--validating-proxy',
    ]);
    expect(raw.only).toEqual(['SCR-IDEMP', 'JOB-RATE', 'MCP']);
    expect(raw.seed).toBe(42);
    expect(raw.reportDir).toBeNull();
    expect(raw.capabilities).toEqual({ validatingProxy: true });
    expect(() => parseCli(['--seed', 'x'])).toThrow(/integer/);
    expect(() => parseCli(['--bogus'])).toThrow();
  });
});
