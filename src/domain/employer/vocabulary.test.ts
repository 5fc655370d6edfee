import { describe, expect, it } from 'vitest';
import { criteriaView, isEmptyCriteria, parseCriteria, skillsIn } from './vocabulary.js';

describe('parseCriteria', () => {
  it('reads roles, skills, seniority, years and place from plain words', () => {
    const c = parseCriteria({ query: 'Senior backend engineer, 5+ years, golang and postgres, based in Bandung' });
    expect(criteriaView(c)).toEqual({
      roles: ['backend-engineer'],
      skills: ['PostgreSQL', 'Go'],
      minYears: 5,
      seniority: 'senior',
      location: 'Bandung',
    });
  });

  it('reads Indonesian words', () => {
    const c = parseCriteria({ query: 'desainer UI/UX berpengalaman di Yogyakarta, Figma' });
    expect(criteriaView(c)).toMatchObject({
      roles: ['product-designer'],
      skills: ['Figma'],
      seniority: 'senior',
      location: 'Yogyakarta',
    });
  });

  it('merges explicit filters, dropping and counting unknown ones', () => {
    const c = parseCriteria({
      skills: ['k8s', 'Cobol'],
      roles: ['devops-engineer', 'astronaut'],
      location: 'Atlantis',
    });
    expect(criteriaView(c)).toMatchObject({ roles: ['devops-engineer'], skills: ['Kubernetes'], location: null });
    expect(c.unrecognized).toBe(3);
  });

  it('never keeps words it does not know, so a name in the brief cannot come back out', () => {
    const c = parseCriteria({ query: 'Budi Santoso from Acme' });
    expect(isEmptyCriteria(c)).toBe(true);
    expect(JSON.stringify(criteriaView(c))).not.toMatch(/Budi|Acme/);
  });

  it('prefers longer skill names and matches short ones only as written', () => {
    expect(skillsIn('React Native and React')).toEqual(['React Native', 'React']);
    expect(skillsIn('we go live soon')).toEqual([]);
    expect(skillsIn('Go and gRPC')).toEqual(['gRPC', 'Go']);
  });
});
