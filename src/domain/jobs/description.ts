// Job descriptions are stored as a handful of template indices and rendered on demand, which keeps a
// 100,000-job corpus small. The search terms of a job come from the same pieces, tokenized once per
// distinct piece, so indexing never has to render and re-scan every description.
// Requirements: POL-SEARCH-2; decisions D-43, D-44.

import { tokenize } from './text.js';
import type { StoredJob } from './types.js';
import type { Company, RoleFamily, Vocabulary } from './vocab.js';

type Part = { lit: string } | { ph: string };

/** "an" before a vowel sound, including spoken acronyms such as "an SEO Specialist" or "an HR team". */
export function withArticle(phrase: string): string {
  const vowel = /^[aeiou]/i.test(phrase) && !/^(u[ix]\b|uni|use|one)/i.test(phrase);
  const spokenAcronym = /^[FHLMNRSX][A-Z&]/.test(phrase);
  return `${vowel || spokenAcronym ? 'an' : 'a'} ${phrase}`;
}

export class Describer {
  private readonly families: Map<string, RoleFamily>;
  private readonly companies: Map<string, Company>;
  private readonly compiled = new Map<string, Part[]>();
  private readonly articles = new Map<string, string>();

  constructor(private readonly vocab: Vocabulary) {
    this.families = new Map(vocab.families.map((f) => [f.slug, f]));
    this.companies = new Map(vocab.companies.map((c) => [c.name, c]));
  }

  /** Picks the description sentences of a new job. */
  static partsFor(vocab: Vocabulary, family: RoleFamily, rng: { int(min: number, max: number): number }): number[] {
    const d = vocab.descriptions;
    // three distinct responsibilities (a partial Fisher-Yates shuffle)
    const order: number[] = [];
    for (let i = 0; i < family.responsibilities.length; i++) order.push(i);
    for (let k = 0; k < 3; k++) {
      const j = rng.int(k, order.length - 1);
      [order[k], order[j]] = [order[j], order[k]];
    }
    const [r1, r2, r3] = order;
    return [
      rng.int(0, d.intros.length - 1),
      rng.int(0, d.roleLines.length - 1),
      r1,
      r2,
      r3,
      rng.int(0, d.requirements.length - 1),
      rng.int(0, d.remote.length - 1),
      rng.int(0, d.benefits.length - 1),
    ];
  }

  render(job: StoredJob): string {
    const out: string[] = [];
    this.visit(job, (piece) => out.push(piece));
    return out.join('');
  }

  /**
   * Calls `fn` with every searchable piece of a job: title, company, skills, then the description in
   * pieces whose boundaries never fall inside a word (so the union of the pieces' tokens is exactly
   * the tokens of the whole text). Pieces repeat across jobs, which lets callers cache per piece.
   */
  visitTerms(job: StoredJob, fn: (piece: string) => void): void {
    fn(job.title);
    fn(job.company);
    for (const skill of job.skills) fn(skill);
    this.visit(job, fn);
  }

  /** The distinct search terms of a job. */
  terms(job: StoredJob): string[] {
    const out = new Set<string>();
    this.visitTerms(job, (piece) => {
      for (const t of tokenize(piece)) out.add(t);
    });
    return [...out];
  }

  private article(phrase: string): string {
    let a = this.articles.get(phrase);
    if (a === undefined) {
      a = withArticle(phrase);
      this.articles.set(phrase, a);
    }
    return a;
  }

  private value(job: StoredJob, family: RoleFamily, company: Company, name: string, fn: (piece: string) => void): void {
    switch (name) {
      case 'company':
        return fn(company.name);
      case 'industry':
        return fn(company.industry);
      case 'aIndustry':
        return fn(this.article(company.industry));
      case 'hq':
        return fn(company.hq);
      case 'title':
        return fn(job.title);
      case 'aTitle':
        return fn(this.article(job.title));
      case 'family':
        return fn(family.name.en);
      case 'location':
        return fn(job.location);
      case 'jobType':
        return fn(job.jobType);
      case 'skills':
        return this.list(job.skills, Math.min(4, job.skills.length), fn);
      default:
        throw new Error(`unknown description placeholder {${name}}`);
    }
  }

  private visit(job: StoredJob, fn: (piece: string) => void): void {
    const d = this.vocab.descriptions;
    const family = this.families.get(job.roleFamily)!;
    const company = this.companies.get(job.company)!;
    const [intro, roleLine, r1, r2, r3, req, remote, benefit] = job.descParts;
    const resp = family.responsibilities;
    this.fill(d.intros[intro], job, family, company, fn);
    fn(' ');
    this.fill(d.roleLines[roleLine], job, family, company, fn);
    fn(' You will ');
    fn(resp[r1]);
    fn(', ');
    fn(resp[r2]);
    fn(' and ');
    fn(resp[r3]);
    fn('. ');
    this.fill(d.requirements[req], job, family, company, fn);
    fn(' ');
    this.fill(d.remote[remote], job, family, company, fn);
    fn(' ');
    this.fill(d.benefits[benefit], job, family, company, fn);
  }

  private fill(
    template: string,
    job: StoredJob,
    family: RoleFamily,
    company: Company,
    fn: (piece: string) => void,
  ): void {
    for (const part of this.compile(template)) {
      if ('lit' in part) fn(part.lit);
      else this.value(job, family, company, part.ph, fn);
    }
  }

  private list(items: string[], count: number, fn: (piece: string) => void): void {
    for (let i = 0; i < count; i++) {
      if (i > 0) fn(i === count - 1 ? ' and ' : ', ');
      fn(items[i]);
    }
  }

  private compile(template: string): Part[] {
    let parts = this.compiled.get(template);
    if (parts) return parts;
    parts = [];
    const re = /\{(\w+)\}/g;
    let last = 0;
    for (let m = re.exec(template); m; m = re.exec(template)) {
      if (m.index > last) parts.push({ lit: template.slice(last, m.index) });
      parts.push({ ph: m[1] });
      last = m.index + m[0].length;
    }
    if (last < template.length) parts.push({ lit: template.slice(last) });
    this.compiled.set(template, parts);
    return parts;
  }
}
