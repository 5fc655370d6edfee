// Job-post orders (post_job) and free listings (hire with publish_if_no_match), with the sandbox
// checkout that turns a pending order live.
// Requirements: MCP-TOOL-11, MCP-TOOL-13, POL-MCP-17; decisions D-49.

import { hash, timingSafeEqual } from 'node:crypto';
import type { CoreContext } from '../context.js';
import { invalid, notFound } from '../../errors/errors.js';
import { secureToken } from '../rng.js';
import type { ScamCheckResult } from './scamCheck.js';

export type OrderTier = 'pilot' | 'standard' | 'featured';
export type PostingStatus = 'pending_payment' | 'manual_review' | 'live' | 'rejected';

/** Listing prices in IDR (sandbox policy; the pilot tier is free and always reviewed by hand). */
export const ORDER_PRICES_IDR: Record<OrderTier, number> = { pilot: 0, standard: 750_000, featured: 1_950_000 };
/** A checkout link stays valid this long. */
export const CHECKOUT_TTL_MS = 24 * 3600 * 1000;

// digests of equal length, so the comparison takes the same time whatever the given token
const sameToken = (given: string, expected: string) =>
  timingSafeEqual(Buffer.from(hash('sha256', given, 'hex')), Buffer.from(hash('sha256', expected, 'hex')));

export interface Listing {
  title: string;
  company: string;
  description: string;
  applyUrl: string | null;
  hostedApplyForm: boolean;
  contactEmail: string | null;
  location: string | null;
  remoteType: string | null;
  jobType: string | null;
  pay: { min?: number; max?: number; currency?: 'IDR' | 'USD'; period?: string } | null;
}

export interface Order {
  orderId: string;
  tenantId: string;
  status: PostingStatus;
  tier: OrderTier;
  amount: number;
  currency: 'IDR';
  checkoutUrl: string | null;
  expiresAt: number | null;
  listing: Listing;
  scamCheck: ScamCheckResult;
  createdAt: number;
  paidAt: number | null;
  /** The secret of the checkout link, from crypto (D-84): the order id alone opens nothing. */
  checkoutToken: string;
}

export interface FreeListing {
  listingId: string;
  tenantId: string;
  status: Exclude<PostingStatus, 'pending_payment'>;
  listing: Listing;
  scamCheck: ScamCheckResult;
  createdAt: number;
}

export interface PostingsTenantState {
  orders: Order[];
  listings: FreeListing[];
}

export class Postings {
  private orders = new Map<string, Order>();
  private listings = new Map<string, FreeListing>();

  constructor(private readonly ctx: Pick<CoreContext, 'ids' | 'clock' | 'config'>) {}

  createOrder(tenantId: string, tier: OrderTier, listing: Listing, scamCheck: ScamCheckResult): Order {
    const now = this.ctx.clock.of(tenantId).now();
    const orderId = this.ctx.ids.nextOf(tenantId, 'ord');
    const status: PostingStatus =
      tier === 'pilot' ? 'manual_review' : scamCheck.verdict === 'live' ? 'pending_payment' : scamCheck.verdict;
    const payable = status === 'pending_payment';
    const checkoutToken = secureToken(32);
    const order: Order = {
      orderId,
      tenantId,
      status,
      tier,
      amount: ORDER_PRICES_IDR[tier],
      currency: 'IDR',
      checkoutUrl: payable ? `${this.ctx.config.publicUrl}/checkout/${orderId}?token=${checkoutToken}` : null,
      expiresAt: payable ? now + CHECKOUT_TTL_MS : null,
      listing,
      scamCheck,
      createdAt: now,
      paidAt: null,
      checkoutToken,
    };
    this.orders.set(orderId, order);
    return order;
  }

  /**
   * The order behind a checkout link. A wrong or missing token reads as an unknown order, so the link's
   * holder alone learns that the order exists.
   */
  checkout(orderId: string, token: string | undefined): Order {
    const o = this.orders.get(orderId);
    if (!o || token === undefined || !sameToken(token, o.checkoutToken)) {
      throw notFound(`no checkout for order ${orderId} with this token; open the checkoutUrl post_job returned`);
    }
    return o;
  }

  /** The sandbox checkout's "pay" button: a pending, unexpired order goes live. */
  pay(orderId: string, token: string | undefined): Order {
    const o = this.checkout(orderId, token);
    if (o.status !== 'pending_payment')
      throw invalid(`order ${orderId} is ${o.status}, not pending_payment`, 'orderId');
    const now = this.ctx.clock.of(o.tenantId).now();
    if (o.expiresAt !== null && now > o.expiresAt)
      throw invalid(`the checkout link of order ${orderId} expired`, 'orderId');
    o.status = 'live';
    o.paidAt = now;
    return o;
  }

  createListing(tenantId: string, listing: Listing, scamCheck: ScamCheckResult): FreeListing {
    const l: FreeListing = {
      listingId: this.ctx.ids.nextOf(tenantId, 'lst'),
      tenantId,
      status: scamCheck.verdict,
      listing,
      scamCheck,
      createdAt: this.ctx.clock.of(tenantId).now(),
    };
    this.listings.set(l.listingId, l);
    return l;
  }

  listing(listingId: string): FreeListing {
    const l = this.listings.get(listingId);
    if (!l) throw notFound(`listing ${listingId} does not exist`);
    return l;
  }

  listingUrl(listingId: string): string {
    return `${this.ctx.config.publicUrl}/listings/${listingId}`;
  }

  clear(): void {
    this.orders.clear();
    this.listings.clear();
  }

  /** A tenant's orders and free listings (D-137). */
  exportTenant(tenantId: string): PostingsTenantState {
    return structuredClone({
      orders: [...this.orders.values()].filter((o) => o.tenantId === tenantId),
      listings: [...this.listings.values()].filter((l) => l.tenantId === tenantId),
    });
  }

  importTenant(tenantId: string, state: PostingsTenantState): void {
    this.forgetTenant(tenantId);
    const s = structuredClone(state);
    for (const o of s.orders) this.orders.set(o.orderId, o);
    for (const l of s.listings) this.listings.set(l.listingId, l);
  }

  forgetTenant(tenantId: string): void {
    for (const [id, o] of [...this.orders]) if (o.tenantId === tenantId) this.orders.delete(id);
    for (const [id, l] of [...this.listings]) if (l.tenantId === tenantId) this.listings.delete(id);
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An order as post_job and the checkout page show it. */
export function orderView(o: Order) {
  return {
    orderId: o.orderId,
    status: o.status,
    tier: o.tier,
    amount: o.amount,
    currency: o.currency,
    checkoutUrl: o.checkoutUrl,
    expiresAt: iso(o.expiresAt),
    listing: {
      title: o.listing.title,
      company: o.listing.company,
      applyUrl: o.listing.applyUrl,
      hostedApplyForm: o.listing.hostedApplyForm,
      contactEmail: o.listing.contactEmail,
    },
    scamCheck: { passed: o.scamCheck.passed, score: o.scamCheck.score, rules: o.scamCheck.rules },
    createdAt: iso(o.createdAt)!,
  };
}

/** A free listing as hire and the listing page show it. */
export function listingView(l: FreeListing, url: string) {
  return {
    listingId: l.listingId,
    status: l.status,
    title: l.listing.title,
    company: l.listing.company,
    url: l.status === 'live' ? url : null,
    applicantsForwardedTo: l.listing.contactEmail ?? '',
    scamCheck: { passed: l.scamCheck.passed, score: l.scamCheck.score, rules: l.scamCheck.rules },
  };
}
