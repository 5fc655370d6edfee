// Property tests in `npm test` run from one fixed seed so CI is reproducible; set FC_SEED to explore
// other inputs locally (a failure prints its seed and path for replay).

import fc from 'fast-check';

const seed = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : 20261122;
fc.configureGlobal({ seed });
