// Maps a concrete method and path (GET /api/v1/jobs/abc) to the operation serving it, with its path
// parameters, through regexes built once from the path templates.

import type { OperationContract } from './index.js';

interface Route {
  method: string;
  regex: RegExp;
  names: string[];
  op: OperationContract;
  literalLength: number;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class Router {
  private readonly routes: Route[] = [];

  add(op: OperationContract): void {
    const names: string[] = [];
    const source = op.path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const m = /^\{([^}]+)\}$/.exec(part);
        if (!m) return escape(part);
        names.push(m[1]);
        return '([^/]+)';
      })
      .join('');
    this.routes.push({
      method: op.method,
      regex: new RegExp(`^${source}$`),
      names,
      op,
      literalLength: op.path.replace(/\{[^}]+\}/g, '').length,
    });
    // Literal segments beat parameters when two templates could match the same path.
    this.routes.sort((a, b) => b.literalLength - a.literalLength);
  }

  match(method: string, path: string): { op: OperationContract; params: Record<string, string> } | null {
    const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    for (const r of this.routes) {
      if (r.method !== m) continue;
      const hit = r.regex.exec(path);
      if (!hit) continue;
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => {
        params[n] = safeDecode(hit[i + 1]);
      });
      return { op: r.op, params };
    }
    return null;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
