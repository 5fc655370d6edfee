// The one place a stored job becomes the public Job: exactly the 14 fields of the specification.

import type { JobView, StoredJob } from './types.js';

export function toJobView(job: StoredJob, sponsored: boolean): JobView {
  return {
    id: job.id,
    title: job.title,
    company: job.company,
    location: job.location,
    payMin: job.payMin,
    payMax: job.payMax,
    payCurrency: job.payCurrency,
    payPeriod: job.payPeriod,
    remoteType: job.remoteType,
    jobType: job.jobType,
    postedAt: job.postedAt,
    url: job.url,
    applyUrl: job.applyUrl,
    sponsored,
  };
}
