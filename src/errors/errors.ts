// One error type for the whole sandbox (D-15). A leaf: it imports nothing, so the contract loader below
// the domain can throw it too. Adapters map it to the wire in one place each: src/web/envelope.ts (the
// HTTP error envelope) and src/mcp/errors.ts (MCP tool errors).

export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  internal: 500,
  service_disabled: 503,
  // MCP-only: draft_application could not ground its claims in the saved resume.
  ungrounded: 422,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface Upsell {
  upgradeUrl: string;
  freeScreenCap?: number;
}

export interface ErrorDetails {
  /** Present on payment_required: the next step the caller can take. */
  upsell?: Upsell;
  /** Seconds until a rate-limited caller may retry (Retry-After). */
  retryAfter?: number;
  /** The request field or parameter the error is about, when there is one. */
  field?: string;
  /** An HTTP status other than the code's own, for refusals of the request's framing (413, 415, 431; D-80). */
  status?: number;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    // an answer to a call (a 4xx), not a fault: no stack is captured, which cost more than the rest of a 404's
    // answer (D-182)
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return this.details.status ?? ERROR_STATUS[this.code];
  }
}

export const invalid = (message: string, field?: string) =>
  new DomainError('invalid_request', message, field ? { field } : {});
export const notFound = (message: string) => new DomainError('not_found', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const unauthorized = (message: string) => new DomainError('unauthorized', message);
export const paymentRequired = (message: string, upsell: Upsell) =>
  new DomainError('payment_required', message, { upsell });
export const rateLimited = (message: string, retryAfter: number) =>
  new DomainError('rate_limited', message, { retryAfter });
