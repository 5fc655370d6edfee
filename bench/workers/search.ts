// In-process search scaling for one corpus size: runs the jobs search benchmark (bench/search.ts)
// in this child, so each corpus is built in a fresh heap.

import { benchSearch, type SearchBenchResult } from '../search.js';
import { runAsWorker } from './ipc.js';

export interface SearchArgs {
  corpus: number;
}

export type SearchResult = SearchBenchResult;

runAsWorker<SearchArgs, SearchResult>(({ corpus }) => benchSearch({ corpus }));
