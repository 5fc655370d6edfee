// Hostile requests and the two measures of what they cost everyone else: the stall of a concurrent ping
// (as a ratio to the ping's own baseline) and the peak RSS of the sandbox process. Shared by the hostile
// test suite and the bench's hostile section, so both speak of the same classes.

import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request, type HttpResponse } from './http.js';
import { processIds, processStat } from './machine.js';

/** A JSON POST of prepared text; hostile requests may take long before the fix, hence the generous bound. */
export const post = (url: string, body: string, headers: Record<string, string> = {}): Promise<HttpResponse> =>
  request('POST', url, { body, headers, timeoutMs: 300_000 });

/** `n` distinct short property names (base 36), each with the value 0: the most names per byte. */
export function manyNames(n: number): Record<string, number> {
  const o: Record<string, number> = {};
  for (let i = 0; i < n; i++) o[i.toString(36)] = 0;
  return o;
}

/** A JSON-RPC tools/call, as an MCP client posts it. */
export const toolCall = (name: string, args: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** A structured candidate and job spec, valid, with room for the caller's own job-spec fields. */
export function submitWith(key: string, jobSpec: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    idempotencyKey: key,
    candidate: {
      kind: 'structured',
      fullName: 'Hostile Input',
      skills: ['Go'],
      summary: 'Backend engineer, 6 years of Go.',
    },
    jobSpec: { title: 'Backend Engineer', mustHaves: ['Go'], ...jobSpec },
    ...extra,
  });
}

export interface UploadResult {
  /** 0 when the connection failed before any answer (`error` says how). */
  status: number;
  error?: string;
  text: string;
  /** Bytes the client had written when the answer arrived (or the connection closed). */
  bytesSent: number;
}

/**
 * A chunked upload of `totalBytes` (no Content-Length) that stops writing as soon as an answer arrives:
 * a server that refuses at its limit answers after a few hundred KiB, one that reads everything only at the end.
 */
export function chunkedUpload(url: string, headers: Record<string, string>, totalBytes: number): Promise<UploadResult> {
  return new Promise((resolve) => {
    // '{' first, spaces after: JSON that never ends
    const spaces = Buffer.alloc(64 * 1024, 0x20);
    const first = Buffer.concat([Buffer.from('{'), spaces.subarray(1)]);
    let sent = 0;
    let answered = false;
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, text, bytesSent: sent });
        });
        res.on('error', () => resolve({ status: res.statusCode ?? 0, text, bytesSent: sent }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (!answered) resolve({ status: 0, error: e.code ?? e.message, text: '', bytesSent: sent });
    });
    const pump = () => {
      while (!answered && sent < totalBytes) {
        const piece = (sent === 0 ? first : spaces).subarray(0, Math.min(spaces.length, totalBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** A GET whose head is `headBytes` long (one large header), answered or not. */
export function largeHead(
  url: string,
  headBytes: number,
): Promise<{ status: number; text: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'GET', headers: { 'x-padding': 'a'.repeat(headBytes) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end();
  });
}

export interface Stall {
  /** Median round trip of the ping before the hostile request. */
  baselineMs: number;
  /** Slowest round trip of the ping while the hostile request ran. */
  worstMs: number;
  /** worstMs / baselineMs */
  ratio: number;
}

/** A ping's round trip; a failed ping (a stalled server drops idle keep-alive sockets) counts until it failed. */
async function pingOnce(url: string): Promise<number> {
  const t0 = performance.now();
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
  } catch {
    // the time it took to fail is the stall the client saw
  }
  return performance.now() - t0;
}

/**
 * Runs `during` while pinging `pingUrl` back to back, and reports the worst ping against a baseline taken
 * first. The ping's own baseline, not an absolute time, so a loaded machine does not decide the verdict.
 */
export async function stallDuring<T>(
  pingUrl: string,
  during: () => Promise<T>,
  baselinePings = 30,
): Promise<{ stall: Stall; result: T }> {
  const base: number[] = [];
  for (let i = 0; i < baselinePings; i++) base.push(await pingOnce(pingUrl));
  base.sort((a, b) => a - b);
  const baselineMs = Math.max(base[Math.floor(base.length / 2)], 0.5);
  let running = true;
  let worstMs = 0;
  const pinger = (async () => {
    while (running) {
      worstMs = Math.max(worstMs, await pingOnce(pingUrl));
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  try {
    const result = await during();
    return { stall: { baselineMs, worstMs, ratio: worstMs / baselineMs }, result };
  } finally {
    running = false;
    await pinger;
  }
}

/** Resident set size of a process in bytes, from /proc (Linux), or 0 once it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Processes of a process group (a detached child leads its own: tsx and the node it starts). */
export function groupMembers(pgid: number): number[] {
  return (processIds() ?? []).filter((pid) => processStat(pid)?.pgrp === pgid).map(Number);
}

/** Samples the largest RSS of any process of the group every `everyMs` until stopped; gives the peak. */
export function sampleGroupRss(pgid: number, everyMs = 50): { stop(): number; current(): number } {
  let members = groupMembers(pgid);
  let peak = 0;
  const sample = () => {
    let largest = 0;
    for (const pid of members) largest = Math.max(largest, rssOf(pid));
    peak = Math.max(peak, largest);
    return largest;
  };
  sample();
  const timer = setInterval(() => {
    if (members.length === 0) members = groupMembers(pgid);
    sample();
  }, everyMs);
  return {
    current: sample,
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
