// The sandbox's stand-ins for the pages post_job and hire link to: the checkout of an order (GET shows
// it, POST .../pay completes it and the listing goes live) and a free listing's public page.

import { Hono } from 'hono';
import { listingView, orderView } from '../domain/employer/postings.js';
import type { AppEnv } from '../web/env.js';

export function employerPages() {
  const r = new Hono<AppEnv>();
  // the link's token is required: order ids are not secrets (D-84)
  r.get('/checkout/:orderId', (c) =>
    c.json({ order: orderView(c.var.core.employer.postings.checkout(c.req.param('orderId'), c.req.query('token'))) }),
  );
  r.post('/checkout/:orderId/pay', (c) =>
    c.json({ order: orderView(c.var.core.employer.postings.pay(c.req.param('orderId'), c.req.query('token'))) }),
  );
  r.get('/listings/:listingId', (c) => {
    const { postings } = c.var.core.employer;
    const id = c.req.param('listingId');
    return c.json({ listing: listingView(postings.listing(id), postings.listingUrl(id)) });
  });
  return r;
}
