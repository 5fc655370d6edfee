// The two untyped things the harness reads, each through one name rather than a bare `any`.

/**
 * A JSON value a target answered (or a body the harness built and sends): its shape is the deployment's,
 * which the documents may leave open, so a check reads it untyped and guards every read that matters
 * (a missing field reads as absent and is judged, never a crash of the harness).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: JSON of a deployment never seen
export type Answer = any;

/**
 * A node of a contract document or of a JSON Schema taken from it (checked when the contract loaded);
 * TypeScript cannot follow `$ref`s and keyword combinations, so walkers read the nodes untyped.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: a contract node, checked at load
export type SchemaNode = any;
