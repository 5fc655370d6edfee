// V8 builds long strings (JSON.stringify output, concatenations) as trees of pieces, which can take
// twice the memory of the text itself. A string the sandbox keeps for as long as a request lives is
// flattened once, on creation, so it is held as one piece; the tree is then garbage.
// Requirements: none (memory layout).

/** The same string, stored flat from now on. */
export function flatten(s: string): string {
  // converting to a number reads the string's characters in one piece, which flattens it in place
  void Number(s);
  return s;
}
