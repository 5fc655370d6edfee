// `npm run gen:types`: regenerates the TypeScript types derived from the contracts (see typegen.ts).

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateTypes } from './typegen.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const [file, content] of Object.entries(await generateTypes())) {
  writeFileSync(root + file, content);
  console.log(`wrote ${file}`);
}
