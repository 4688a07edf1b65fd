/**
 * `@stratum/http-kit/wire`: what a service's contract (its zod schemas, error factories and OpenAPI descriptions)
 * needs from http-kit, without express, the driver or a logger: the error type and bodies, the text rules for stored
 * ids, and validate()'s issue types. Importing it opens and loads nothing else.
 */
export * from './app-error';
export * from './text';
export { type FieldIssue, fieldIssues, firstIssue, type InvalidRequest, type InvalidRequestError, type RequestPart } from './validate';
