// One HTTP attempt of a webhook delivery: POST the raw body, wait at most the timeout, and report
// the status (2xx is success; redirects are not followed and count as failures) or the network error.

export interface SendOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export async function postWebhook(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendOutcome> {
  const t0 = performance.now();
  const elapsed = () => Math.round(performance.now() - t0);
  try {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    // the receiver's answer body is not used; drain it so the connection can be reused
    await res.arrayBuffer().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { statusCode: res.status, error: ok ? null : `receiver answered ${res.status}`, durationMs: elapsed() };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const why = timedOut ? `no answer within ${timeoutMs} ms` : `network error: ${e.cause?.code ?? e.cause?.message ?? e.message}`;
    return { statusCode: null, error: why, durationMs: elapsed() };
  }
}
