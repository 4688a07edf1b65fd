import { isDuplicateKeyError, RevisionConflictError, RevisionedRecords } from './index';

describe('revisions: pure parts', () => {
  it('a record document without _id and revision is its state', () => {
    expect(RevisionedRecords.stateOf({ _id: 'k', revision: 3, a: 1, b: { c: 2 } })).toEqual({ a: 1, b: { c: 2 } });
  });

  it('knows E11000 by its code only', () => {
    expect(isDuplicateKeyError({ code: 11000, message: 'E11000 duplicate key' })).toBe(true);
    expect(isDuplicateKeyError({ code: '11000' })).toBe(false);
    expect(isDuplicateKeyError(new Error('E11000 duplicate key'))).toBe(false);
    expect(isDuplicateKeyError(null)).toBe(false);
  });

  it('names the contended key', () => {
    const err = new RevisionConflictError('quota:p1');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('RevisionConflictError');
    expect(err.message).toBe('record quota:p1 is busy: too many concurrent changes');
  });
});
