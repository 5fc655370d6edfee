// `npm start`'s banner: a generated admin token is printed (nobody could sign in otherwise); one the
// operator supplied is not, so it never lands in a log.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function banner(env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', '--port', '0', '--anon-port', '0', '--no-demo', '--corpus', '50'],
      {
        cwd: ROOT,
        env: { ...process.env, SANDBOX_ADMIN_TOKEN: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no banner within 30 s: ${out}`));
    }, 30_000);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('corpus')) {
        clearTimeout(timer);
        child.kill();
        resolve(out);
      }
    });
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  });
}

describe('start-up banner', () => {
  it('prints a generated admin token and hides a supplied one', async () => {
    const generated = await banner({});
    expect(generated).toMatch(/admin token\s+sat_[0-9a-z]+\s+\(generated/i);
    const supplied = await banner({ SANDBOX_ADMIN_TOKEN: 'operator-secret-token-123' });
    expect(supplied).toContain('admin token');
    expect(supplied).not.toContain('operator-secret-token-123');
  }, 70_000);
});
