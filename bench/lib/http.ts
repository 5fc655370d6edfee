// A small fetch wrapper for set-up calls (tenants, seeding, polling), every call bounded in time.

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body (undefined when it is not JSON): the bench's set-up calls read it untyped. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  json: any;
}

export async function request(
  method: string,
  url: string,
  {
    token,
    body,
    headers = {},
    timeoutMs = 10_000,
  }: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpResponse> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Throws with the response's status and body unless the status is the expected one. */
export function expectStatus(res: HttpResponse, expected: number | number[], what: string): HttpResponse {
  const ok = Array.isArray(expected) ? expected.includes(res.status) : res.status === expected;
  if (!ok) throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

/** A client bound to a base URL and bearer token. */
export function clientFor(baseUrl: string, token?: string) {
  return (method: string, path: string, body?: unknown, timeoutMs?: number) =>
    request(method, baseUrl + path, { token, body, timeoutMs });
}

export type Client = ReturnType<typeof clientFor>;

/** Runs `fn` over `items` with at most `concurrency` in flight. */
export async function pool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}
