/**
 * Every error group A answers with, by name: code and tests use these factories, so each wire text is written once.
 *
 * The texts are Panko's and Ceilometer's where they have one (docs/upstream/events.md §4-§5 and §9), unchanged;
 * the renderer (`renderPankoError`) puts the message in `{"error_message": {"faultstring": …}}`. Schemas take the
 * `.message` of a factory for their zod issues (the invalid-request mapping below then answers it).
 */
import { AppError, type InvalidRequestError } from '@stratum/http-kit/wire';

// --- Arguments (query string and body) -------------------------------------------------------------------------

/** 400: a query-string or body key the route does not take. */
export const unknownArgument = (name: string) => new AppError(400, `Unknown argument: "${name}"`);

/** 400: a key given twice (`?k=a&k=b`, or in both the query string and the body). */
export const givenSeveralTimes = (name: string) => new AppError(400, `Parameter ${name} was given several times`);

/** 400: the list's body is not a JSON object. */
export const bodyNotObject = () => new AppError(400, 'The request body must be a JSON object.');

/** 400: more `q.field`s than `q.value`s in the query string. */
export const qValueMissing = () => new AppError(400, 'Mandatory field missing: q.value');

/** 400: an indexed `q[i].*` element without a field or a value. */
export const qElementIncomplete = () => new AppError(400, 'Each q element needs a field and a value');

/** 400: a body `q` that is not a list of `{field, op, value, type}`; `reason` is zod's text for the first problem. */
export const invalidQ = (reason: string) => new AppError(400, `Invalid input for field/attribute q: ${reason}`);

/** 400: `marker` given several times in the query string, or not a string in the body. */
export const markerNotOne = () => new AppError(400, 'Invalid input for field/attribute marker: give one message_id.');

/** 400: `limit` that is not an integer; `text` as given. */
export const limitNotInteger = (text: string) =>
  new AppError(400, `Invalid input for field/attribute limit. Value: '${text}'. unable to convert to int`);

/** 400: `limit` zero or negative; `text` as given. */
export const limitNotPositive = (text: string) =>
  new AppError(400, `Invalid input for field/attribute limit. Value: '${text}'. the limit should be a positive integer.`);

/** 400: `limit` above EVENTS_MAX_LIMIT. */
export const limitTooLarge = (limit: number, max: number) =>
  new AppError(400, `Invalid input for field/attribute limit. Value: '${limit}'. the limit may not exceed ${max}.`);

/** 400: an oslo boolean of the wrong JSON type (`value` absent) or an unknown spelling. */
export const notBoolean = (name: string, value?: string) =>
  new AppError(
    400,
    value === undefined
      ? `Invalid input for field/attribute ${name}. Expected a boolean.`
      : `Invalid input for field/attribute ${name}. Value: '${value}'. Expected a boolean.`,
  );

/** 400: the complex query's `desc` sort mode is none of true/false/asc/desc. */
export const invalidDesc = (value: string) =>
  new AppError(400, `Invalid input for field/attribute desc. Value: '${value}'. Expected true/false or asc/desc.`);

/** 400: the complex query's body is not the expected shape; `path` the field (`body` for the whole), `reason` zod's text. */
export const invalidQueryBody = (path: string, reason: string) => new AppError(400, `Invalid query body: ${path}: ${reason}`);

// --- Simple query (`q`) and sort ----------------------------------------------------------------------------------

/** 400: an empty trait name; `what` names the input, e.g. `q.field`. */
export const traitNameEmpty = (what: string) =>
  new AppError(400, `Invalid input for field/attribute ${what}. Value: ''. A trait name cannot be empty.`);

/** 400: a trait name holding NUL, which no stored field name can. */
export const traitNameHasNul = (what: string, name: string) =>
  new AppError(400, `Invalid input for field/attribute ${what}. Value: ${JSON.stringify(name)}. A trait name cannot contain NUL.`);

/** 400: a `q.value` that does not convert to its `q.type` (`integer`, `float` or `datetime`). */
export const notConvertible = (value: string, type: string) =>
  new AppError(400, `Unable to convert the value ${value} to the expected data type ${type}.`);

/** 400: a `q.type` Panko does not know. */
export const typeNotSupported = (type: string) =>
  new AppError(400, `The data type ${type} is not supported. The supported data type list is: ['integer', 'float', 'string', 'datetime']`);

/** 400: a `q.op` Panko does not know. */
export const operatorNotSupported = (op: string) =>
  new AppError(400, `Operator ${op} is not supported. The supported operators are: ('lt', 'le', 'eq', 'ne', 'ge', 'gt')`);

/** 400: an operator a special field (event_type, message_id, the timestamps) does not take; `only` is Panko's one. */
export const operatorOnly = (op: string, only: string, field: string) =>
  new AppError(400, `Operator ${op} is not supported. Only \`${only}' operator is available for field ${field}`);

const SORT_HELP =
  "the sort parameter should be a pair of sort key and sort dir combined with ':', or only sort key specified and sort dir will be default 'asc'";

/** 400: a `sort` whose key is not one of message_id, generated, event_type (or with more than one `:`). */
export const invalidSortKey = (sort: string) =>
  new AppError(
    400,
    `Invalid input for field/attribute sort. Value: '${sort}'. ${SORT_HELP}, the supported sort keys are: ('message_id', 'generated', 'event_type')`,
  );

/** 400: a `sort` whose direction is not asc or desc. */
export const invalidSortDirection = (sort: string) =>
  new AppError(
    400,
    `Invalid input for field/attribute sort direction. Value: '${sort}'. ${SORT_HELP}, the supported sort directions are: ('asc', 'desc')`,
  );

// --- Complex query -------------------------------------------------------------------------------------------------

/** Prefix of every complex-query filter error (Ceilometer's). */
export const FILTER_NOT_VALID = 'Filter expression not valid: ';
/** Prefix of every complex-query order-by error (Ceilometer's). */
export const ORDER_BY_NOT_VALID = 'Order-by expression not valid: ';

/** 400: a complex-query filter that is not valid JSON or not the grammar; `detail` says what. */
export const filterNotValid = (detail: string) => new AppError(400, `${FILTER_NOT_VALID}${detail}`);

/** 400: an `orderby` that is not valid JSON or not a list of `{field: direction}`. */
export const orderByNotValid = (detail: string) => new AppError(400, `${ORDER_BY_NOT_VALID}${detail}`);

/** 400: a timestamp in a complex filter that does not parse (Ceilometer's text). */
export const badTimestamp = (value: string) => new AppError(400, `Failed to parse the timestamp value ${value}`);

/** 403: a non-admin's complex filter names another project (Ceilometer answered 401 with this text). */
export const projectNotAuthorized = (project: string) => new AppError(403, `Not Authorized to access project ${project}`);

// --- Policy, lookups, store -----------------------------------------------------------------------------------------

/** 403: the policy refuses the action (Panko's text). */
export const rbacFailed = () => new AppError(403, 'RBAC Authorization Failed');

/** 404: no event with that message_id, or one the caller may not see. */
export const eventNotFound = (messageId: string) => new AppError(404, `Event ${messageId} Not Found`);

/** 404: `GET /v2/event_types/{type}`, Panko's unused API. */
export const eventTypeNotFound = (type: string) => new AppError(404, `Event type ${type} Not Found`);

/** 400: a paging marker that is unknown or not visible (Panko answered 500). */
export const markerNotFound = (marker: string) => new AppError(400, `Marker ${marker} not found.`);

/** 503: the store did not answer a valid query within EVENTS_QUERY_TIMEOUT_MS. */
export const queryTimedOut = (ms: number) =>
  new AppError(503, `The query did not finish within ${ms} ms; narrow it with event_type, resource_id or a time window.`);

// --- Ingestion ---------------------------------------------------------------------------------------------------

/** 400: `POST /v2/ingest/events` without a body. */
export const ingestBodyMissing = () => new AppError(400, 'Missing request body: an array of serialized events');

/** 400: an ingest body that is not JSON (found when it is read again for exact numbers). */
export const notJson = () => new AppError(400, 'Request is not in valid JSON format');

/** 400: an ingest batch with records that cannot be stored; nothing was stored. `reasons` as `records[i]: …`. */
export const nothingStored = (reasons: readonly string[]) => new AppError(400, `Nothing was stored. ${reasons.join('; ')}`);

// --- validate() ----------------------------------------------------------------------------------------------------

/**
 * Group A's InvalidRequestError for http-kit's `validate()`: a 400 with the first issue's message. The schemas
 * (events.schema.ts) give every issue its Panko text, so this adds nothing to it.
 */
export const invalidRequest: InvalidRequestError = ({ issues }) => new AppError(400, issues[0]?.message ?? 'Invalid input.');
