// The benchmark sections, in the order they run.

import type { Section } from '../lib/section.js';
import { harnessSection } from './harness.js';
import { hostileSection } from './hostile.js';
import { mutantsSection } from './mutants.js';
import { scalingSection } from './scaling.js';
import { tenantsSection } from './tenants.js';
import { postgresSection, throughputSection } from './throughput.js';
import { webhooksSection } from './webhooks.js';

export const SECTIONS: Section[] = [
  throughputSection,
  postgresSection,
  scalingSection,
  webhooksSection,
  harnessSection,
  hostileSection,
  mutantsSection,
  tenantsSection,
];
