// The throughput ceiling: a bare node:http server answering each benchmarked route with fixed bytes
// captured from the sandbox. Usage: bare-server.ts <port> <routes.json>, where routes.json is
// [{ method, path, status, body }]; the query string is ignored when matching.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

interface Route {
  method: string;
  path: string;
  status: number;
  body: string;
}

const [portArg, routesFile] = process.argv.slice(2);
const routes = new Map<string, { status: number; body: Buffer }>();
for (const r of JSON.parse(readFileSync(routesFile, 'utf8')) as Route[]) {
  routes.set(`${r.method} ${r.path}`, { status: r.status, body: Buffer.from(r.body, 'utf8') });
}

const notFound = Buffer.from('{"error":{"code":"not_found","message":"no route"}}');

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const route = routes.get(`${req.method} ${q < 0 ? url : url.slice(0, q)}`);
  // read the request body before answering, as any real server must
  req.resume();
  req.on('end', () => {
    const body = route ? route.body : notFound;
    res.writeHead(route ? route.status : 404, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(portArg), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
