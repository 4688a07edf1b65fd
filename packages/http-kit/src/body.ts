/**
 * Request body validation with zod, for routes whose body is a plain document (no lossless numbers needed).
 */
import type { z } from 'zod';
import { AppError } from './errors';

/** One problem of a body: the dotted path of the field (`region.volume_types.0`) and zod's message. */
export interface BodyIssue {
  field: string;
  reason: string;
}

/**
 * Parses `body` with `schema`.
 * @returns the parsed value.
 * @throws AppError 400 `Invalid input: …` naming every problem, each also in `details` as a BodyIssue.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const details: BodyIssue[] = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', reason: i.message }));
  throw new AppError(400, `Invalid input: ${details.map((d) => `${d.field}: ${d.reason}`).join('; ')}`, details);
}
