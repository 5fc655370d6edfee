// The contract loader's behaviour: request bodies and parameters are validated with messages that name the
// field, concrete paths map to operations, responses are checked for status, body and headers, component
// and webhook schemas validate by name, policy can be stripped, and MCP tool arguments are checked.

import { describe, expect, it } from 'vitest';
import { loadContracts, specView } from '../src/contract/index.js';
import { DomainError } from '../src/errors/errors.js';

const contracts = await loadContracts();

/** The DomainError a call throws (fails the test when it throws nothing or something else). */
function thrown(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

const validSubmit = () => ({
  idempotencyKey: 'key-1',
  candidate: { kind: 'structured', fullName: 'Sari Wulandari', skills: ['Go'] },
  jobSpec: { title: 'Backend Engineer', mustHaves: ['Go'] },
});

describe('request validation names the offending field', () => {
  const submit = contracts.operation('submitScreen');

  it('accepts a valid submission and an empty mustHaves list', () => {
    expect(() => submit.checkBody(validSubmit())).not.toThrow();
    expect(() => submit.checkBody({ ...validSubmit(), jobSpec: { title: 'x', mustHaves: [] } })).not.toThrow();
  });

  it('refuses an unknown property in JobSpec', () => {
    const e = thrown(() => submit.checkBody({ ...validSubmit(), jobSpec: { title: 't', mustHaves: [], salary: 5 } }));
    expect(e.code).toBe('invalid_request');
    expect(e.message).toContain("jobSpec: unknown property 'salary'");
    expect(e.details.field).toBe('jobSpec.salary');
  });

  it('refuses a CandidateBlob carrying both variants’ fields', () => {
    const e = thrown(() =>
      submit.checkBody({ ...validSubmit(), candidate: { kind: 'structured', fullName: 'A', resumeRef: 'res_1' } }),
    );
    expect(e.message).toBe("candidate: unknown property 'resumeRef'");
    const r = thrown(() =>
      submit.checkBody({ ...validSubmit(), candidate: { kind: 'resume_ref', resumeRef: 'r', fullName: 'A' } }),
    );
    expect(r.message).toBe("candidate: unknown property 'fullName'");
  });

  it('explains an unknown or missing candidate kind in one message', () => {
    expect(thrown(() => submit.checkBody({ ...validSubmit(), candidate: { kind: 'pdf' } })).message).toBe(
      'candidate.kind must be one of resume_ref, structured',
    );
    expect(thrown(() => submit.checkBody({ ...validSubmit(), candidate: { fullName: 'A' } })).message).toBe(
      'candidate.kind is required (one of resume_ref, structured)',
    );
  });

  it('names missing, mistyped and out-of-bounds fields', () => {
    const { jobSpec: _omit, ...noJobSpec } = validSubmit();
    expect(thrown(() => submit.checkBody(noJobSpec)).message).toBe('jobSpec is required');
    expect(thrown(() => submit.checkBody({ ...validSubmit(), idempotencyKey: 7 })).message).toBe(
      'idempotencyKey must be a string',
    );
    expect(thrown(() => submit.checkBody({ ...validSubmit(), extra: true })).message).toBe("unknown property 'extra'");
    const long = thrown(() =>
      submit.checkBody({ ...validSubmit(), jobSpec: { title: 'x'.repeat(10_001), mustHaves: [] } }),
    );
    expect(long.message).toBe('jobSpec.title must be 1 to 10000 characters long');
    const skills = thrown(() =>
      submit.checkBody({ ...validSubmit(), candidate: { kind: 'structured', fullName: 'A', skills: ['ok', 3] } }),
    );
    expect(skills.message).toBe('candidate.skills[1] must be a string');
    expect(thrown(() => submit.checkBody([])).message).toBe('body must be an object');
    expect(thrown(() => submit.checkBody(undefined)).message).toBe('request body is required');
  });

  it('checks the apply body (message 80..3000 characters)', () => {
    const apply = contracts.operation('applyToJob');
    const ok = { candidate_name: 'Dewi', candidate_email: 'dewi@example.com', message: 'm'.repeat(80) };
    expect(() => apply.checkBody(ok)).not.toThrow();
    expect(thrown(() => apply.checkBody({ ...ok, message: 'm'.repeat(79) })).message).toBe(
      'message must be 80 to 3000 characters long',
    );
    expect(thrown(() => apply.checkBody({ ...ok, message: 'm'.repeat(3001) })).details.field).toBe('message');
  });
});

describe('query and path parameters', () => {
  const audit = contracts.operation('getAudit');
  const q = (s: string) => audit.parseQuery(new URLSearchParams(s));

  it('applies defaults and coerces integers', () => {
    expect(q('')).toEqual({ limit: 100 });
    expect(q('limit=7&cursor=abc')).toEqual({ limit: 7, cursor: 'abc' });
    expect(contracts.operation('searchJobs').parseQuery(new URLSearchParams('q=go&remote_type=worldwide'))).toEqual({
      q: 'go',
      remote_type: 'worldwide',
      limit: 20,
      offset: 0,
    });
    expect(contracts.operation('listSkills').parseQuery(new URLSearchParams())).toEqual({ limit: 25 });
  });

  it('refuses an audit limit of 0 and 501, naming the parameter and its range', () => {
    for (const v of ['0', '501']) {
      const e = thrown(() => q(`limit=${v}`));
      expect(e.code).toBe('invalid_request');
      expect(e.message).toBe(`limit must be an integer from 1 to 500 (got '${v}')`);
      expect(e.details.field).toBe('limit');
    }
  });

  it('accepts only plain decimal integers', () => {
    for (const v of ['1.5', 'abc', '1e3', '', '+5', '007', '0x10', ' 5']) {
      expect(thrown(() => q(`limit=${encodeURIComponent(v)}`)).message, v).toMatch(
        /^limit must be an integer from 1 to 500/,
      );
    }
  });

  it('refuses unknown and repeated parameters', () => {
    expect(thrown(() => q('limt=5')).message).toBe(
      "unknown query parameter 'limt'; this endpoint accepts since, cursor, limit",
    );
    expect(thrown(() => q('limit=5&limit=6')).message).toBe('query parameter limit must be given at most once');
    expect(thrown(() => contracts.operation('getMe').parseQuery(new URLSearchParams('x=1'))).message).toBe(
      "unknown query parameter 'x'; this endpoint takes no query parameters",
    );
  });

  it('checks enums and formats', () => {
    expect(thrown(() => q('since=yesterday')).message).toBe("since must be a valid date-time (got 'yesterday')");
    const search = contracts.operation('searchJobs');
    expect(thrown(() => search.parseQuery(new URLSearchParams('job_type=gig'))).message).toBe(
      "job_type must be one of full-time, part-time, contract, freelance (got 'gig')",
    );
    expect(thrown(() => search.parseQuery(new URLSearchParams('limit=51'))).message).toMatch(
      /^limit must be an integer from 1 to 50 /,
    );
    expect(thrown(() => search.parseQuery(new URLSearchParams('offset=-1'))).message).toMatch(
      /^offset must be an integer from 0 to 10000 /,
    );
  });

  it('validates path parameters', () => {
    const report = contracts.operation('getRoleReport');
    expect(report.parsePath({ role: 'backend-engineering' })).toEqual({ role: 'backend-engineering' });
    expect(thrown(() => report.parsePath({ role: 'Not A Slug' })).details.field).toBe('role');
  });
});

describe('routing, responses and component schemas', () => {
  it('maps concrete paths to operations, preferring literal segments', () => {
    expect(contracts.match('GET', '/api/v1/jobs/job_1')).toMatchObject({
      op: { operationId: 'getJob' },
      params: { id: 'job_1' },
    });
    expect(contracts.match('POST', '/api/v1/jobs/a%2Fb/apply')).toMatchObject({
      op: { operationId: 'applyToJob' },
      params: { id: 'a/b' },
    });
    expect(contracts.match('get', '/api/v1/market/roles')?.op.operationId).toBe('listRoles');
    expect(contracts.match('GET', '/api/v1/market/roles/data-science')?.op.operationId).toBe('getRoleReport');
    expect(contracts.match('GET', '/api/screening/v1/audit')?.op.operationId).toBe('getAudit');
    expect(contracts.match('DELETE', '/api/screening/v1/audit')).toBeNull();
    expect(contracts.match('GET', '/api/v1/jobs/a/b')).toBeNull();
    expect(contracts.match('POST', '/api/mcp')).toBeNull();
  });

  it('checks a response body, its documented status and its required headers', () => {
    const search = contracts.operation('searchJobs');
    const headers = new Headers({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
      'X-RateLimit-Reset': '12',
    });
    const page = { tier: 'free', jobs: [], page: 0, hasMore: false };
    expect(search.checkResponse(200, page, headers)).toEqual([]);
    expect(search.checkResponse(200, { ...page, tier: 'scale' }, headers)).toEqual([
      'body.tier must be one of free, starter, pro',
    ]);
    headers.delete('X-RateLimit-Remaining');
    headers.set('X-RateLimit-Reset', 'soon');
    expect(search.checkResponse(200, page, headers)).toEqual([
      'header X-RateLimit-Remaining is missing',
      "header X-RateLimit-Reset must be an integer >= 0 (got 'soon')",
    ]);
    expect(search.checkResponse(500, { error: { code: 'internal', message: 'x' } })).toEqual([
      'status 500 is not documented for searchJobs (documented: 200, 400, 401, 402, 403, 429)',
    ]);
    const limited = contracts
      .operation('getJob')
      .checkResponse(429, { error: { code: 'rate_limited', message: 'slow down' } }, new Headers());
    expect(limited).toContain('header Retry-After is missing');
  });

  it('validates component schemas and webhook bodies by name', () => {
    const score = {
      schemaVersion: 1,
      score: 70,
      dimensions: [{ name: 'fit', score: 70, evidence: 'e' }],
      confidence: 0.5,
      modelId: 'm',
      promptVersion: 'p',
    };
    expect(contracts.validate('ScoreResultV1', score)).toEqual(['rationale is required']);
    expect(contracts.validate('ScoreResultV1', { ...score, rationale: 'r', dimensions: [] })).toEqual([
      'dimensions must have 1 to 200 items',
    ]);
    const delivery = {
      requestId: 'scr_1',
      tenantId: 't',
      event: 'screening.scored',
      result: { ...score, rationale: 'r' },
      deliveredAt: '2026-01-01T00:00:00Z',
    };
    expect(contracts.validate('ScoredDelivery', delivery)).toEqual([]);
    expect(contracts.validate('WebhookDelivery', delivery)).toEqual([]);
    expect(contracts.validate('WebhookDelivery', { ...delivery, event: 'screening.review_decided' })).toContain(
      'result.decision is required',
    );
    expect(
      contracts.validate('ScreeningUsage', {
        tenantId: 't',
        planTier: 'pro',
        creditsRemaining: 1,
        creditsCap: 2,
        usagePercent: 0.5,
        nearLimit: false,
        resetAt: null,
        freeScreenCap: 3,
      }),
    ).toEqual(['freeScreenCap is allowed only when planTier is "free"']);
    expect(
      contracts.validate('jobs:PaymentRequiredEnvelope', { error: { code: 'payment_required', message: 'm' } }),
    ).toEqual(['error.upsell is required']);
    expect(() => contracts.validate('NoSuchSchema', {})).toThrow(/unknown schema/);
  });

  it('the webhook operations check delivery bodies too', () => {
    expect(() =>
      contracts.operation('screeningReviewDecided').checkBody({ event: 'screening.review_decided' }),
    ).toThrow(/requestId is required/);
  });

  it('specView strips exactly the policy parts', () => {
    const s = contracts.dereferenced.screening.components.schemas;
    const review = specView(s.ReviewDecisionV1);
    expect(review.required).toBeUndefined();
    expect(review.additionalProperties).toBeUndefined();
    expect(review.properties.decision).toEqual({ type: 'string' });
    expect(review.properties.schemaVersion).toEqual({ type: 'number', const: 1 });
    const score = specView(s.ScoreResultV1);
    expect(score.required).toEqual(s.ScoreResultV1.required);
    expect(score.properties.score).toEqual({ type: 'number' });
    expect(score.properties.rationale).toEqual({ type: 'string', minLength: 1 });
    expect(specView(contracts.dereferenced.jobs.components.schemas.Me)).toEqual({});
  });
});

describe('MCP tool contracts', () => {
  it('loads every tool file present and compiles its input schema', () => {
    for (const server of ['keyed', 'anon'] as const) {
      for (const [name, tool] of Object.entries(contracts.mcpTools[server])) {
        expect(tool.name).toBe(name);
        expect(typeof tool.description).toBe('string');
        expect(Array.isArray(contracts.checkToolInput(server, name, {}))).toBe(true);
      }
    }
    expect(contracts.checkToolInput('anon', 'no_such_tool', {})).toEqual([
      "unknown tool 'no_such_tool' on the anon MCP server",
    ]);
  });

  it('apply_to_job takes the job id plus the REST ApplyRequest, so the two bodies cannot drift', () => {
    const input = contracts.mcpTools.keyed.apply_to_job.inputSchema as Record<string, any>;
    const rest = contracts.dereferenced.jobs.components.schemas.ApplyRequest;
    expect(input.required).toEqual(['id', ...rest.required]);
    expect(Object.keys(input.properties)).toEqual(['id', ...Object.keys(rest.properties)]);
    for (const [name, field] of Object.entries<Record<string, unknown>>(rest.properties)) {
      for (const k of ['type', 'format', 'minLength', 'maxLength', 'enum'])
        expect(input.properties[name][k], `${name}.${k}`).toEqual(field[k]);
    }
    const tooLong = `${'a'.repeat(250)}@b.co`;
    const body = { candidate_name: 'Ayu', candidate_email: tooLong, message: 'm'.repeat(80) };
    expect(contracts.checkToolInput('keyed', 'apply_to_job', { id: 'job_1', ...body })).toHaveLength(1);
    expect(() => contracts.operation('applyToJob').checkBody(body)).toThrow(/candidate_email/);
  });

  it.skipIf(!contracts.mcpTools.keyed.get_job)('names the offending argument', () => {
    expect(contracts.checkToolInput('keyed', 'get_job', {})).toEqual(['id is required']);
    expect(contracts.checkToolInput('keyed', 'get_job', { id: 5 })).toEqual(['id must be a string']);
  });
});
