// The type of a parsed OpenAPI or JSON Schema document as the code walks it by key.

/**
 * A node of a parsed OpenAPI document or JSON Schema. Its shape is the OpenAPI 3.1 schema's, checked when
 * the document is loaded (swagger-parser) and by the contract's tests; TypeScript cannot follow `$ref`s
 * and keyword combinations, so walkers of these documents read the nodes untyped, through this one name.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: a document node, checked at load
export type DocNode = any;

/** An object node of such a document (a schema, an operation, a path item, the document itself). */
export type Doc = Record<string, DocNode>;
