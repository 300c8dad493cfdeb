import { testBackend } from './stack.js';

/**
 * The rounds of a test that runs its subject again only to prove that it runs twice (the README
 * walk against the same stack, an example's generated request_id): every round in the embedded
 * project, which always runs, and the first alone on MySQL, where the first round covers what
 * differs between the backends. Like the files of test/projects.ts, run once, not per backend.
 */
export function rerunRounds<T>(rounds: readonly T[]): readonly T[] {
  return testBackend() === 'embedded' ? rounds : rounds.slice(0, 1);
}
