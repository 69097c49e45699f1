import { expect, it } from 'vitest';
import { AmbiguousIdError } from '../../src/model/errors.js';

it('an ambiguous prefix names five of the ids it matches and says how many more there are', () => {
  const ids = Array.from({ length: 13 }, (_, i) => `01a2-${i}`);
  const err = new AmbiguousIdError('01a2', ids);
  expect(err.message).toContain('matches 13 sessions: 01a2-0, 01a2-1, 01a2-2, 01a2-3, 01a2-4, … (8 more)');
  expect(new AmbiguousIdError('01a2', ids.slice(0, 2)).message).toMatch(/matches 2 sessions: 01a2-0, 01a2-1$/);
  expect(err.candidates).toEqual(ids);
});
