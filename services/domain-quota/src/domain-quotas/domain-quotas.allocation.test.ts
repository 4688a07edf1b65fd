/**
 * The edit protocol's arithmetic on one parent: whatever order reservations, child writes, fences and settlements
 * come in (interleaved edits of several children, some abandoned as by a crash and settled by a reconciler), the
 * parent's sums equal expectedSums at every step, and equal the plain sums of the children once nothing is pending.
 */
import { UNLIMITED } from '@stratum/quota-items';
import { emptyQuotaSet, type ItemChange, type QuotaSetState } from '../registry/registry.repository';
import { type ChildRecord, expectedSums, pendingOf, prunedMarks, withReservation, withSettled } from './domain-quotas.allocation';

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
});
