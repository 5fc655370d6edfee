// Node preload (NODE_OPTIONS=--import) for tools that cannot send a bearer key themselves, such as
// the MCP conformance runner: adds Authorization: Bearer $MCP_BEARER to every global fetch call.

const token = process.env.MCP_BEARER;
if (token) {
  const original = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    return original(input, { ...init, headers });
  };
}
