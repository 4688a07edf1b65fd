/**
 * One validation step per route: zod schemas for the path parameters, the query string and the JSON body, parsed
 * before the handler runs. The schema is the parser and the documentation (the same object goes into the route's
 * OpenAPI description), so every rule is stated once.
 *
 * Usage (a route's handler reads typed input, never `req.params`/`req.query`/`req.body`):
 * ```ts
 * const showQuota = validate({ params: ProjectParams, query: ShowQuery }, invalidOctavia);
 * router.get('/quotas/:projectId', showQuota, (req, res) => {
 *   const { params, query } = showQuota.input(res);
 * });
 * ```
 */
import type { RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { AppError } from './app-error';

/** The parts of a request a route may validate. */
export type RequestPart = 'params' | 'query' | 'body';

/** The schemas of one route; a part without a schema is not read. */
export type RequestSchemas = Partial<Record<RequestPart, z.ZodType>>;

/** What a handler gets: each validated part, as its schema's output type. */
export type ValidatedInput<S extends RequestSchemas> = { [K in keyof S]: S[K] extends z.ZodType ? z.output<S[K]> : never };

/** A part that failed: which one, and zod's issues in the order zod found them (the schema's own messages). */
export interface InvalidRequest {
  part: RequestPart;
  issues: z.core.$ZodIssue[];
}

/** Turns a failed part into the group's error (a 4xx AppError): each group's errors module gives one. */
export type InvalidRequestError = (invalid: InvalidRequest) => AppError;

/** One problem of a request: the dotted path of the field (`region.volume_types.0`) and the schema's message. */
export interface FieldIssue {
  field: string;
  reason: string;
}

/** zod's issues as FieldIssues; `(body)`, `(query)` or `(params)` names the whole part. */
export function fieldIssues({ part, issues }: InvalidRequest): FieldIssue[] {
  return issues.map((i) => ({ field: i.path.map(String).join('.') || `(${part})`, reason: i.message }));
}

/**
 * The default error: 400 whose message is the first issue's message (the schema states the wire text, e.g.
 * Octavia's or Panko's), with every issue in `details`.
 */
export const firstIssue: InvalidRequestError = (invalid) =>
  new AppError(400, invalid.issues[0]?.message ?? 'Invalid input.', fieldIssues(invalid));

/** A validating middleware with a typed accessor for what it parsed. */
export interface Validator<S extends RequestSchemas> extends RequestHandler {
  /** The parsed input of this request (only after the middleware ran). */
  input(res: Response): ValidatedInput<S>;
}

const PARTS: RequestPart[] = ['params', 'query', 'body'];

/**
 * Middleware that parses `req.params`, `req.query` and `req.body` with `schemas`, in that order, and stops at the
 * first part that fails.
 * @param invalid maps the failed part to the group's 4xx (default firstIssue: 400 with the first issue's message).
 * @returns the middleware; `validator.input(res)` gives the handler the parsed values.
 * @throws (to express's error handler) what `invalid` returns; a schema that throws instead of reporting issues is a
 *   programming error and becomes a 500.
 */
export function validate<S extends RequestSchemas>(schemas: S, invalid: InvalidRequestError = firstIssue): Validator<S> {
  const parts = PARTS.filter((p) => schemas[p] !== undefined);
  // Each validator keeps its own input, so a route may run several (its path before an authorization step, its body after).
  const slot = Symbol('stratum.validatedInput');
  const middleware: RequestHandler = (req, res, next) => {
    const out: Partial<Record<RequestPart, unknown>> = {};
    for (const part of parts) {
      const parsed = (schemas[part] as z.ZodType).safeParse(req[part]);
      if (!parsed.success) {
        next(invalid({ part, issues: parsed.error.issues }));
        return;
      }
      out[part] = parsed.data;
    }
    (res.locals as Record<symbol, unknown>)[slot] = out;
    next();
  };
  return Object.assign(middleware, {
    input(res: Response): ValidatedInput<S> {
      const got = (res.locals as Record<symbol, unknown>)[slot];
      if (got === undefined) throw new Error('validate(): input() read before the validating middleware ran');
      return got as ValidatedInput<S>;
    },
  });
}
