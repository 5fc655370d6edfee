// A free loopback port for servers a test starts later or in a child process (port 0 cannot be passed there).
// It is drawn below the kernel's ephemeral range (32768 and up on Linux), where neither a `listen(0)` nor an
// outgoing connection of any process can take it between this check and the server's own listen: a port from
// `listen(0)` could be handed to another test's connection in that gap (EADDRINUSE on a busy run).

import { createServer } from 'node:net';

const LOW = 20_000;
const HIGH = 32_767;

function tryPort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW + 1));
    if (await tryPort(port)) return port;
  }
  throw new Error(`no free loopback port between ${LOW} and ${HIGH}`);
}
