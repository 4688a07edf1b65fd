/**
 * The edit protocol's arithmetic on one parent: whatever order reservations, child writes, fences and settlements
 * come in (interleaved edits of several children, some abandoned as by a crash and settled by a reconciler), the
 * parent's sums equal expectedSums at every step, and equal the plain sums of the children once nothing is pending.
 */
import { UNLIMITED } from '@stratum/quota-items';
import {
  type ChildRecord,
  conflictsOf,
  expectedSums,
  isFenced,
  limitOf,
  parentDeltas,
  pendingOf,
  prunedMarks,
  quotaOf,
  withMark,
  withReservation,
  withSettled,
} from './domain-quotas.allocation';
import { emptyQuotaSet, type ItemChange, type QuotaSetState } from './domain-quotas.repository';

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const norm = (s: { allocated: Record<string, number>; unlimited: Record<string, number> }) => ({
  allocated: Object.fromEntries(Object.entries(s.allocated).filter(([, v]) => v !== 0)),
  unlimited: Object.fromEntries(Object.entries(s.unlimited).filter(([, v]) => v !== 0)),
});

describe('quota tree edit protocol arithmetic', () => {
  it('withReservation then withSettled forward/back moves allocated by the reserve and release deltas', () => {
    const p0: QuotaSetState = { ...emptyQuotaSet('R', 'default'), allocated: { cores: 10_000 } };
    const changes: ItemChange[] = [
      { item: 'cores', old: 4000, next: 6000 },
      { item: 'ram', old: 2000, next: 1000 },
    ];
    const p1 = withReservation(p0, 'e1', { child: 'd:a', changes, at: 5 });
    expect(p1.allocated).toEqual({ cores: 12_000 });
    expect(p1.pending_since).toBe(5);
    const fwd = withSettled(p1, 'e1', 'forward') as QuotaSetState;
    expect(fwd.allocated).toEqual({ cores: 12_000, ram: -1000 });
    expect(fwd.pending).toBeUndefined();
    expect(fwd.pending_since).toBeUndefined();
    expect((withSettled(p1, 'e1', 'back') as QuotaSetState).allocated).toEqual({ cores: 10_000 });
    expect(withSettled(fwd, 'e1', 'forward')).toBeNull(); // settling twice is a no-op
    expect(pendingOf(p1, 'constructor')).toBeUndefined();
  });

  it('marks are pruned only once their edit is settled as of the parent revision', () => {
    const marks = {
      a: { rev: 3, outcome: 'applied' as const },
      b: { rev: 7, outcome: 'applied' as const },
      c: { rev: 2, outcome: 'aborted' as const },
    };
    const pending = { c: { child: 'd:x', changes: [], at: 1 } };
    expect(Object.keys(prunedMarks(marks, 5, pending)).sort()).toEqual(['b', 'c']);
  });

  it('holds expectedSums through random interleavings of edits, crashes and reconciler settlements', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = rng(seed);
      const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)] as T;
      const items = ['cores', 'ram'];
      const children: ChildRecord[] = ['d:a', 'd:b', 'p:c'].map((ref) => ({ ref, quotas: {}, edits: {} }));
      let parent: QuotaSetState = emptyQuotaSet('R', 'default');
      let rev = 1;
      // Edits in flight: [id, child, changes, stage] (stage: reserved | applied | abandoned).
      const live: { id: string; child: ChildRecord; changes: ItemChange[]; stage: 'reserved' | 'applied' }[] = [];
      let n = 0;
      const check = () => expect(norm(parent)).toEqual(norm(expectedSums(children, parent.pending)));
      for (let step = 0; step < 60; step++) {
        const r = rand();
        if (r < 0.35) {
          // Step 1 of a new edit, decided on the child's current values.
          const child = pick(children);
          const item = pick(items);
          const old = child.quotas[item] ?? 0;
          const next = rand() < 0.1 ? UNLIMITED : Math.floor(rand() * 5) * 1000;
          if (next === old) continue;
          const id = `e${++n}`;
          parent = withReservation(parent, id, { child: child.ref, changes: [{ item, old, next }], at: step });
          rev++;
          live.push({ id, child, changes: [{ item, old, next }], stage: 'reserved' });
        } else if (r < 0.6 && live.length > 0) {
          // Step 2: the child write, refused when stale or fenced (then the edit itself settles back).
          const e = pick(live.filter((x) => x.stage === 'reserved'));
          if (!e) continue;
          const c = e.changes[0] as ItemChange;
          if ((e.child.quotas[c.item] ?? 0) !== c.old || Object.hasOwn(e.child.edits ?? {}, e.id)) {
            parent = withSettled(parent, e.id, 'back') ?? parent;
            rev++;
            live.splice(live.indexOf(e), 1);
          } else {
            e.child.quotas = { ...e.child.quotas, [c.item]: c.next };
            e.child.edits = { ...prunedMarks(e.child.edits, rev, parent.pending), [e.id]: { rev, outcome: 'applied' } };
            e.stage = 'applied';
          }
        } else if (r < 0.8 && live.length > 0) {
          // Step 3 of an applied edit.
          const e = pick(live);
          if (e.stage !== 'applied') continue;
          parent = withSettled(parent, e.id, 'forward') ?? parent;
          rev++;
          live.splice(live.indexOf(e), 1);
        } else if (live.length > 0) {
          // The process died: a reconciler settles the edit (fence first when the child does not hold it).
          const e = pick(live);
          const mark = e.child.edits?.[e.id];
          if (!mark) e.child.edits = { ...prunedMarks(e.child.edits, rev, parent.pending), [e.id]: { rev, outcome: 'aborted' } };
          parent = withSettled(parent, e.id, mark?.outcome === 'applied' ? 'forward' : 'back') ?? parent;
          rev++;
          live.splice(live.indexOf(e), 1);
        }
        check();
      }
      // Settle everything left, then the sums are the children's plain sums.
      for (const e of live) {
        parent = withSettled(parent, e.id, e.stage === 'applied' ? 'forward' : 'back') ?? parent;
        rev++;
        check();
      }
      expect(parent.pending).toBeUndefined();
      expect(norm(parent)).toEqual(norm(expectedSums(children, undefined)));
    }
  });

  it('a fence outlives its pruning: a slow edit rolled back by a reconciler cannot apply later', () => {
    // e1 and e2 reserved on d:x (revisions 2 and 3); both outlive the lease and a reconciler fences and rolls back
    // each, the second fence write pruning the first (settled) one. e1's process was only slow: its step 2 refuses.
    const child = { ref: 'd:x', quotas: { cores: 10_000 }, edits: {} as ChildRecord['edits'] };
    const changes = (next: number): ItemChange[] => [{ item: 'cores', old: 10_000, next }];
    let parent: QuotaSetState = { ...emptyQuotaSet('R', 'default'), allocated: { cores: 10_000 } };
    parent = withReservation(parent, 'e1', { child: 'd:x', changes: changes(4000), at: 1 }); // revision 2
    parent = withReservation(parent, 'e2', { child: 'd:x', changes: changes(6000), at: 1 }); // revision 3
    Object.assign(child, withMark(child, 'e1', { rev: 3, outcome: 'aborted' }, parent.pending));
    parent = withSettled(parent, 'e1', 'back') as QuotaSetState; // revision 4
    Object.assign(child, withMark(child, 'e2', { rev: 4, outcome: 'aborted' }, parent.pending));
    parent = withSettled(parent, 'e2', 'back') as QuotaSetState; // revision 5
    expect(Object.keys(child.edits ?? {})).toEqual(['e2']); // e1's fence was pruned...
    expect(isFenced(child, 'e1', 2)).toBe(true); // ...and e1 still refuses
    expect(isFenced(child, 'e2', 3)).toBe(true);
    expect(isFenced(child, 'e3', 5)).toBe(false); // an edit reserved after the pruning goes ahead
    expect(norm(parent)).toEqual(norm(expectedSums([child], parent.pending)));
  });

  it('holds expectedSums when reconcilers settle edits whose process was only slow (their step 2 comes later)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = rng(seed);
      const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)] as T;
      const children: ChildRecord[] = ['d:a', 'd:b'].map((ref) => ({ ref, quotas: {}, edits: {} }));
      let parent: QuotaSetState = emptyQuotaSet('R', 'default');
      let rev = 1;
      type Live = { id: string; child: ChildRecord; c: ItemChange; applied: boolean; rev: number; pending: QuotaSetState['pending'] };
      const live: Live[] = [];
      let n = 0;
      for (let step = 0; step < 80; step++) {
        const r = rand();
        if (r < 0.35) {
          // Step 1 (revision `rev` holds the reservation).
          const child = pick(children);
          const c = { item: 'cores', old: child.quotas.cores ?? 0, next: Math.floor(rand() * 5) * 1000 };
          if (c.next === c.old) continue;
          const id = `e${++n}`;
          parent = withReservation(parent, id, { child: child.ref, changes: [c], at: step });
          rev++;
          live.push({ id, child, c, applied: false, rev, pending: parent.pending });
        } else if (r < 0.6) {
          // Step 2, possibly of an edit a reconciler already settled: refused when fenced or stale (then settles back).
          const e = pick(live.filter((x) => !x.applied));
          if (!e) continue;
          if ((e.child.quotas.cores ?? 0) !== e.c.old || isFenced(e.child, e.id, e.rev)) {
            parent = withSettled(parent, e.id, 'back') ?? parent;
            rev++;
            live.splice(live.indexOf(e), 1);
          } else {
            Object.assign(e.child, withMark(e.child, e.id, { rev: e.rev, outcome: 'applied' }, e.pending));
            e.child.quotas = { cores: e.c.next };
            e.applied = true;
          }
        } else if (r < 0.8) {
          // Step 3 (a no-op when a reconciler settled it first).
          const e = pick(live.filter((x) => x.applied));
          if (!e) continue;
          parent = withSettled(parent, e.id, 'forward') ?? parent;
          rev++;
          live.splice(live.indexOf(e), 1);
        } else {
          // A reconciler settles an edit past its lease; half the time its process was only slow and goes on.
          const e = pick(live);
          if (!e || !pendingOf(parent, e.id)) continue;
          const mark = e.child.edits?.[e.id];
          if (!mark) Object.assign(e.child, withMark(e.child, e.id, { rev, outcome: 'aborted' }, parent.pending));
          parent = withSettled(parent, e.id, mark?.outcome === 'applied' ? 'forward' : 'back') ?? parent;
          rev++;
          if (rand() < 0.5) live.splice(live.indexOf(e), 1);
        }
        expect(norm(parent)).toEqual(norm(expectedSums(children, parent.pending)));
      }
    }
  });
});

describe('quota arithmetic of one change (docs/upstream/domain-quota.md §6.1, §6.4 step 7)', () => {
  const U = UNLIMITED;
  const show = (m: number) => (m === U ? -1 : m / 1000);
  const noChildren = { allocated: 0, unlimited: 0 };
  /** The reasons of the conflicts of `old` → `next` under `parent`, with the child's own children `child`. */
  const reasons = (old: number, next: number, parent: { quota: number; allocated: number }, child = noChildren) =>
    conflictsOf('R1', { item: 'cores', old, next }, parent, child, show).map((d) => d.reason);

  it('limits: what the parent leaves free plus the child own share; -1 under an unlimited parent', () => {
    expect(limitOf({ quota: 1000, allocated: 850 }, 300)).toBe(450);
    expect(limitOf({ quota: 1000, allocated: 850 }, U)).toBe(150);
    expect(limitOf({ quota: 1000, allocated: 1200 }, 300)).toBe(100); // over-committed: only its own share minus the excess
    expect(limitOf({ quota: U, allocated: 850 }, 300)).toBe(U);
  });

  it('a missing quota is unlimited for the cloud and 0 for a department or project', () => {
    expect(quotaOf({ quotas: {} }, 'cores', 'default')).toBe(U);
    expect(quotaOf({ quotas: {} }, 'cores', 'finance')).toBe(0);
    expect(quotaOf({ quotas: { cores: 5 } }, 'cores', 'default')).toBe(5);
  });

  it('raising: up to limits exactly is allowed, one milli-unit more exceeds it (with max)', () => {
    const parent = { quota: 1_000_000, allocated: 850_000 };
    expect(reasons(300_000, 450_000, parent)).toEqual([]);
    const over = conflictsOf('R1', { item: 'cores', old: 300_000, next: 450_001 }, parent, noChildren, show);
    expect(over).toEqual([{ region: 'R1', item: 'cores', requested: 450.001, current: 300, min: 0, max: 450, reason: 'exceeds_limit' }]);
  });

  it('lowering or keeping is always allowed against the parent, even when it is over-committed (grandfathering)', () => {
    const over = { quota: 1_000_000, allocated: 1_200_000 };
    expect(reasons(500_000, 400_000, over)).toEqual([]);
    expect(reasons(500_000, 500_000, over)).toEqual([]);
    expect(reasons(500_000, 500_001, over)).toEqual(['exceeds_limit']);
  });

  it('lowering: down to what the children hold exactly, one milli-unit less is below_allocated (with min)', () => {
    const parent = { quota: U, allocated: 0 };
    const child = { allocated: 200_000, unlimited: 0 };
    expect(reasons(300_000, 200_000, parent, child)).toEqual([]);
    const below = conflictsOf('R1', { item: 'cores', old: 300_000, next: 199_999 }, parent, child, show);
    expect(below).toEqual([{ region: 'R1', item: 'cores', requested: 199.999, current: 300, min: 200, reason: 'below_allocated' }]);
    // Raising a child that is already below its children's sum is allowed.
    expect(reasons(100_000, 150_000, parent, child)).toEqual([]);
  });

  it('unlimited only under an unlimited parent; finite only without unlimited children', () => {
    expect(reasons(10_000, U, { quota: 1_000_000, allocated: 0 })).toEqual(['unlimited_under_finite_parent']);
    expect(reasons(10_000, U, { quota: U, allocated: 0 })).toEqual([]);
    expect(reasons(U, 10_000, { quota: U, allocated: 0 }, { allocated: 0, unlimited: 1 })).toEqual(['unlimited_children']);
    expect(reasons(U, 10_000, { quota: U, allocated: 0 }, { allocated: 20_000, unlimited: 0 })).toEqual(['below_allocated']);
  });

  it('parent deltas: increases reserved first, decreases released after; unlimited counts move with -1', () => {
    expect(parentDeltas({ item: 'cores', old: 4000, next: 6000 })).toEqual({
      reserve: { allocated: 2000, unlimited: 0 },
      release: { allocated: 0, unlimited: 0 },
    });
    expect(parentDeltas({ item: 'cores', old: 6000, next: 4000 })).toEqual({
      reserve: { allocated: 0, unlimited: 0 },
      release: { allocated: -2000, unlimited: 0 },
    });
    expect(parentDeltas({ item: 'cores', old: 6000, next: U })).toEqual({
      reserve: { allocated: 0, unlimited: 1 },
      release: { allocated: -6000, unlimited: 0 },
    });
    expect(parentDeltas({ item: 'cores', old: U, next: 6000 })).toEqual({
      reserve: { allocated: 6000, unlimited: 0 },
      release: { allocated: 0, unlimited: -1 },
    });
  });
});
