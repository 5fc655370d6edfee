import { describe, expect, it } from 'vitest';
import { checkClaim, evidenceOf } from './grounding.js';
import type { SeekerResume } from './seekerResumes.js';

const resume: SeekerResume = {
  id: 'rsm_test',
  name: 'Test Seeker',
  email: 'test@seeker.example',
  headline: 'Senior Backend Engineer',
  location: 'Jakarta, Indonesia',
  yearsExperience: 6,
  summary: 'Backend engineer building payment APIs in Go.',
  experience: [
    { title: 'Senior Backend Engineer', employer: 'Tanjung Commerce', start: '2022-02', end: null, highlights: ['Moved 12 services to Kubernetes', 'Cut latency by 45 percent'] },
    { title: 'Backend Engineer', employer: 'Rintis Payments', start: '2019-01', end: '2022-01', highlights: ['Built the refund service'] },
  ],
  skills: [{ name: 'Go', years: 5 }, { name: 'PostgreSQL', years: 6 }, { name: 'Kubernetes', years: 2 }],
  education: [{ degree: 'S.Kom. in Computer Science', school: 'Universitas Indonesia', year: 2018 }],
  languages: ['Bahasa Indonesia', 'English'],
};
const ev = evidenceOf(resume);
const check = (claim: string, extra: string[] = []) => checkClaim(claim, ev, extra);

describe('grounding check', () => {
  it.each([
    'I have worked with Go for 5 years and PostgreSQL for 6 years.',
    'I have 4 years of Go.',
    'I am a Senior Backend Engineer with 6 years of experience.',
    'Most recently, as Senior Backend Engineer at Tanjung Commerce, I moved 12 services to Kubernetes.',
    'I cut latency by 45 percent.',
    'I work in Bahasa Indonesia and English.',
    "I hold a bachelor's degree.",
    'Built the refund service.',
  ])('supports %s', (claim) => {
    expect(check(claim)).toMatchObject({ supported: true, reasons: [] });
  });

  it.each([
    ['I have worked with Go for 8 years.', /5 years of Go, not 8/],
    ['I have 9 years of experience.', /6 years of experience, not 9/],
    ['I know Rust well.', /does not list Rust/],
    ['I led the platform at Gojek.', /does not mention Gojek/],
    ['I was Head of Engineering.', /no head title/],
    ['I cut costs by 60 percent.', /number 60/],
    ['I hold a PhD in physics.', /no PhD degree/],
    ['I am a fantastic pianist and chess grandmaster.', /nothing in the resume/],
  ])('refuses %s', (claim, reason) => {
    const v = check(claim, ['Rust']);
    expect(v.supported).toBe(false);
    expect(v.reasons.join('; ')).toMatch(reason);
  });

  it('does not read "go" in ordinary English as the Go language', () => {
    expect(check('Ready to go live with new services.').reasons.join(' ')).not.toMatch(/Go/);
  });
});
