// post_job: a job-post order with a checkout link in IDR; the pilot tier is free and goes to manual
// review. Every posting passes the scam check first; a flagged one gets no checkout link.
// Requirements: MCP-TOOL-11, POL-MCP-17; decisions D-49.

import type { KeyedPostJobInput } from '../../contract/types.js';
import type { Principal } from '../tenants.js';
import { invalid } from '../../errors/errors.js';
import type { Listing, Postings } from './postings.js';
import { scamCheck } from './scamCheck.js';

export type PostJobArgs = KeyedPostJobInput;

/** Pay rules shared with hire: a range needs a currency and must not be upside down. */
export function payOf(args: Pick<PostJobArgs, 'pay_min' | 'pay_max' | 'pay_currency' | 'pay_period'>): Listing['pay'] {
  if (args.pay_min === undefined && args.pay_max === undefined) return null;
  if (args.pay_min !== undefined && args.pay_max !== undefined && args.pay_min > args.pay_max) {
    throw invalid(`pay_max (${args.pay_max}) must not be below pay_min (${args.pay_min})`, 'pay_max');
  }
  if (!args.pay_currency) throw invalid('pay_currency is required when pay_min or pay_max is given', 'pay_currency');
  return { min: args.pay_min, max: args.pay_max, currency: args.pay_currency, period: args.pay_period ?? 'month' };
}

export function postJob(postings: Postings, principal: Principal, args: PostJobArgs) {
  const hosted = args.host_apply_form === true;
  if (!hosted && !args.apply_url) throw invalid('apply_url is required unless host_apply_form is true', 'apply_url');
  if (hosted && !args.contact_email)
    throw invalid(
      'contact_email is required when host_apply_form is true (applicants are forwarded there)',
      'contact_email',
    );
  if (args.title.trim() === '') throw invalid('title must not be blank', 'title');
  if (args.company.trim() === '') throw invalid('company must not be blank', 'company');
  if (args.description.trim().length < 50)
    throw invalid('description must have at least 50 characters besides spaces', 'description');
  const listing: Listing = {
    title: args.title.trim(),
    company: args.company.trim(),
    description: args.description,
    applyUrl: hosted ? null : args.apply_url!,
    hostedApplyForm: hosted,
    contactEmail: args.contact_email ?? null,
    location: args.location ?? null,
    remoteType: args.remote_type ?? null,
    jobType: args.job_type ?? null,
    pay: payOf(args),
  };
  const check = scamCheck({ ...listing });
  const order = postings.createOrder(principal.tenant.id, args.tier ?? 'standard', listing, check);
  return order;
}
