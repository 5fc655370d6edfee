// The words of a plain-words brief the employer vocabulary did not understand: what is left once every
// known role, skill, seniority word, place and "N years" is taken out, minus filler words. Results say
// them back (D-95) so an agent can tell the user what the search could not use, instead of silently
// matching on the rest.
// Requirements: MCP-TOOL-8, MCP-TOOL-9, MCP-TOOL-12; decisions D-95.

import { PLACES, roleTerms, SENIORITY_WORDS, skillTerms, termPattern, YEARS } from './vocabulary.js';

export const MAX_IGNORED = 20;

// Filler that carries no criterion, in English and Indonesian.
const FILLER = new Set(
  (
    'a an and or the of in at on for to with who which that is are be as by from into per our we i you they need needs needed want wants ' +
    'looking seeking hire hiring find someone somebody person people candidate candidates role position job work working remote based ' +
    'able can must should good great strong solid experience experienced exp year years yr yrs plus least more than about around ' +
    'di dan atau yang untuk dengan dari ke pada sebagai butuh membutuhkan mencari cari orang kandidat posisi kerja bekerja pengalaman tahun minimal lebih'
  ).split(' '),
);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export function ignoredWords(text: string): string[] {
  if (!text.trim()) return [];
  let rest = ` ${text} `;
  const strip = (re: RegExp) => {
    rest = rest.replace(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`), ' ');
  };
  for (const t of [...roleTerms, ...skillTerms].sort((a, b) => b.term.length - a.term.length)) strip(t.re);
  for (const [re] of SENIORITY_WORDS) strip(re);
  for (const p of PLACES) {
    strip(termPattern(p.city));
    strip(termPattern(p.region));
  }
  strip(new RegExp(escape('jabodetabek'), 'i'));
  strip(YEARS);
  const words = rest
    .toLowerCase()
    .split(/[^\p{L}\p{N}+#.-]+/u)
    .map((w) => w.replace(/^[.-]+|[.-]+$/g, ''))
    .filter((w) => w.length > 1 && !/^\d+$/.test(w) && !FILLER.has(w));
  return [...new Set(words)].slice(0, MAX_IGNORED);
}
