// The locks of batches that run beside other instances' batches (D-173). A batch made only of tenants' calls takes
// the log's lock shared and a lock of each of its tenants, applies what was committed before, runs its calls and
// appends them under a short lock of the append alone: two instances run batches of different tenants at once.
// Steps of different tenants commute (tenant-interleaving.test.ts), so a batch that ran without the steps other
// instances appended meanwhile leaves the state that applying the log in its order gives. Every other step (of no
// tenant, of every tenant, a listener's, a webhook's answer, a timer) still runs under the log's lock taken
// exclusively, which waits for those batches and holds them off.
// Requirements: none of its own; decision D-173.

/** The advisory locks' first key of tenants' locks (the two-key form: this, then the tenant's hash). */
export const TENANT_LOCK_SPACE = 0x5a4e_1066;
/** The advisory lock that orders the appends of batches run beside each other (any constant shared by every instance). */
export const APPEND_LOCK = 0x5a4e_1067;

/** A tenant's lock key: its id's 32-bit FNV-1a hash, as a signed int4 (two tenants sharing one only wait for each other). */
export function tenantLockKey(tenantId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < tenantId.length; i++) {
    h ^= tenantId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * The statements that take the tenants' locks for the current transaction, one statement per lock in the order of
 * their keys: every instance takes them in that order, after the log's lock shared, so no two wait for each other.
 */
export function tenantLocksSql(tenantIds: Iterable<string>): string {
  const keys = [...new Set([...tenantIds].map(tenantLockKey))].sort((a, b) => a - b);
  return keys.map((k) => `SELECT pg_advisory_xact_lock(${TENANT_LOCK_SPACE}, ${k}); `).join('');
}

/**
 * An expression that tries the tenants' locks for the current transaction without waiting (any order: nothing waits),
 * true when every one was granted.
 */
export function tryTenantLocksSql(tenantIds: Iterable<string>): string {
  const keys = [...new Set([...tenantIds].map(tenantLockKey))];
  return `(SELECT bool_and(pg_try_advisory_xact_lock(${TENANT_LOCK_SPACE}, k)) FROM unnest(ARRAY[${keys.join(', ')}]::int[]) AS k)`;
}
