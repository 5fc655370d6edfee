// Success rate per webhook endpoint (tenant + URL): attempts and 2xx answers counted as they are
// recorded, so a console page shows each endpoint's health without walking every delivery.
// Bounded: past MAX_ENDPOINTS the least recently used endpoint is forgotten.
// Requirements: none of the documents (console health figures); decisions D-109.

const MAX_ENDPOINTS = 2000;

export interface EndpointStats {
  tenantId: string;
  url: string;
  attempts: number;
  succeeded: number;
  /** succeeded / attempts, 0..1 (null before the first attempt). */
  successRate: number | null;
  lastStatusCode: number | null;
  lastAttemptAt: string;
}

export class EndpointStatsBook {
  private byKey = new Map<string, EndpointStats>();

  record(tenantId: string, url: string, statusCode: number | null, at: string): void {
    const key = `${tenantId} ${url}`;
    const s = this.byKey.get(key) ?? {
      tenantId,
      url,
      attempts: 0,
      succeeded: 0,
      successRate: null,
      lastStatusCode: null,
      lastAttemptAt: at,
    };
    this.byKey.delete(key);
    s.attempts++;
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) s.succeeded++;
    s.successRate = s.succeeded / s.attempts;
    s.lastStatusCode = statusCode;
    s.lastAttemptAt = at;
    this.byKey.set(key, s);
    if (this.byKey.size > MAX_ENDPOINTS) this.byKey.delete(this.byKey.keys().next().value!);
  }

  list(tenantId?: string): EndpointStats[] {
    const out: EndpointStats[] = [];
    for (const s of this.byKey.values()) if (!tenantId || s.tenantId === tenantId) out.push({ ...s });
    return out.reverse();
  }

  /** A tenant's endpoints, least recently used first (D-136). */
  exportTenant(tenantId: string): EndpointStats[] {
    return [...this.byKey.values()].filter((s) => s.tenantId === tenantId).map((s) => ({ ...s }));
  }

  importTenant(tenantId: string, state: readonly EndpointStats[]): void {
    this.forgetTenant(tenantId);
    for (const s of state) this.byKey.set(`${s.tenantId} ${s.url}`, { ...s });
  }

  forgetTenant(tenantId: string): void {
    for (const [key, s] of [...this.byKey]) if (s.tenantId === tenantId) this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
  }
}
