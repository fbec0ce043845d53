import type { BatchVerdict } from '../maker.ts';

/** Whether a verdict counts its tokens as `Other`: the maker answered a word Herald does not know, which the protocol then logs (`batch.unknownWord`). */
export function saysOther(verdict: BatchVerdict): boolean {
  switch (verdict.kind) {
    case 'tokens':
      return verdict.others.kind !== 'delivered' && verdict.others.reason === 'Other';
    case 'auth-rejected':
      return verdict.outcome.kind !== 'delivered' && verdict.outcome.reason === 'Other';
    case 'quota-exhausted':
      return false;
  }
}
