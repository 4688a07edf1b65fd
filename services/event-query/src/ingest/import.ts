/**
 * Import of a file of notifications or serialized events (the CLI's `import`, the embedded stack's sample load):
 * a JSON array, or JSON lines (one record per non-empty line). Records go through the same decoding and storing
 * as the bus and the HTTP endpoint; a record that cannot be converted is reported, not stored, and does not stop
 * the import.
 */

import type { Event } from '@stratum/traits';
import type { IngestService } from './ingest.service';
import { type DecodeOptions, decodeRecord, parseRecord, RejectedRecord } from './notification';
import { parsePyJson } from './python';

export interface ImportSummary {
  records: number;
  stored: number;
  duplicates: number;
  /** Records that hold no event (a priority or type that is not converted). */
  ignored: number;
  /** `record` is 1-based: the line of a JSON-lines file, the element of an array. */
  rejected: { record: number; reason: string }[];
}

/** The records of a file's text: array elements (already parsed), or lines (parsed one by one). */
function splitRecords(text: string): { value?: unknown; text?: string }[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    const all = parsePyJson(trimmed);
    if (!Array.isArray(all)) throw new RejectedRecord('the file is not a JSON array or JSON lines');
    return all.map((value) => ({ value }));
  }
  return text.split('\n').map((line) => ({ text: line }));
}

/**
 * Decodes and stores every record of `text`, `batchSize` events per write.
 * @param onProgress called after each write with the number of records handled so far and the total.
 * @throws SyntaxError when a JSON array file is not valid JSON; the store's error when it fails (records already
 *   written stay written; a rerun skips them as duplicates).
 */
export async function importRecords(
  text: string,
  decode: DecodeOptions,
  ingest: IngestService,
  onProgress?: (done: number, total: number) => void,
  batchSize = 500,
): Promise<ImportSummary> {
  const records = splitRecords(text);
  const summary: ImportSummary = { records: 0, stored: 0, duplicates: 0, ignored: 0, rejected: [] };
  let batch: Event[] = [];
  const flush = async (done: number) => {
    if (batch.length > 0) {
      const r = await ingest.store(batch);
      summary.stored += r.stored;
      summary.duplicates += r.duplicates;
      batch = [];
    }
    onProgress?.(done, records.length);
  };
  for (const [i, rec] of records.entries()) {
    if (rec.text !== undefined && rec.text.trim() === '') continue;
    summary.records++;
    try {
      const d = decodeRecord(rec.text !== undefined ? parseRecord(rec.text) : rec.value, decode);
      if (d.events.length === 0) summary.ignored++;
      batch.push(...d.events);
    } catch (err) {
      if (!(err instanceof RejectedRecord)) throw err;
      summary.rejected.push({ record: i + 1, reason: err.message });
    }
    if (batch.length >= batchSize) await flush(i + 1);
  }
  await flush(records.length);
  return summary;
}
