// A deep copy of JSON-safe data (plain objects, arrays, strings, numbers, booleans, null) for snapshots of
// the state: several times faster than structuredClone on the many small records an export copies, whose
// fixed cost per call dominates there (a shared sandbox's calls wait while the state is copied, D-146).
// Anything that is not a plain object or array is copied by structuredClone.
// Requirements: none of the documents (a property of the sandbox's storage); decisions D-137, D-146.

export function copyData<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyData(value[i] as unknown);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyData((value as Record<string, unknown>)[key]);
  return out as T;
}

/**
 * Freezes plain data in place, deeply (arrays and plain objects; anything else is left as it is), and returns it:
 * data frozen so may be shared instead of copied, and changing it throws (these modules are strict).
 */
export function freezeData<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  for (const v of Object.values(value)) freezeData(v as unknown);
  return Object.freeze(value);
}
