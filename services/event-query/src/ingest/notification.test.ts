import { EventConverter } from './definitions';
import { decodeBatch, isCompatibleEnvelopeVersion } from './notification';

describe("oslo envelope version (oslo.messaging's version_is_compatible against 2.0)", () => {
  it.each(['2.0', '2.0.0', ' 2.0'])('reads %p', (v) => {
    expect(isCompatibleEnvelopeVersion(v)).toBe(true);
  });

  it.each(['9.0', '1.0', '3.0', '2.1', '2.0.1', '2', 'two.zero', '', 2, null, undefined])('refuses %p', (v) => {
    expect(isCompatibleEnvelopeVersion(v)).toBe(false);
  });
});

describe('a batch of records (the HTTP publisher endpoint)', () => {
  const opts = { converter: new EventConverter([]) };
  const serialized = (id: string) => ({
    message_id: id,
    event_type: 'port.update.end',
    generated: '2026-11-20T10:00:00.000001',
    traits: [['resource_id', 1, 'r-1']],
  });
  const debug = { message_id: 'n-1', event_type: 'x.y', timestamp: '2026-11-20 10:00:00', priority: 'DEBUG', payload: {} };

  it('decodes every record, keeping the dropped ones by index with their reason', () => {
    const batch = decodeBatch([serialized('e-1'), debug, serialized('e-2')], opts);
    expect(batch.events.map((e) => e.message_id)).toEqual(['e-1', 'e-2']);
    expect(batch.dropped).toEqual([{ index: 1, record: debug, kind: 'priority', reason: expect.stringMatching(/^priority DEBUG /) }]);
    expect(batch.rejected).toEqual([]);
  });

  it('names every record it cannot convert, not only the first', () => {
    const batch = decodeBatch([5, serialized('e-3'), { message_id: 'x' }], opts);
    expect(batch.rejected).toEqual([expect.stringMatching(/^records\[0\]: not a notification/), expect.stringMatching(/^records\[2\]: /)]);
    expect(batch.events.map((e) => e.message_id)).toEqual(['e-3']);
  });
});
