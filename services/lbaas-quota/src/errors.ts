/**
 * Every error group B puts on the wire, by name (as Octavia's `octavia/common/exceptions.py`): the texts are Octavia's
 * where Octavia has one, so python-octaviaclient and openstacksdk show what they show against Octavia. Rendered as
 * Octavia's WSME fault (`renderOctaviaError`). A 415 `Unknown mimetype: <type>` for a body that is not JSON comes from
 * http-kit's body check, the same for every group.
 *
 * Two kinds: AppError factories for what handlers and the service throw, and `invalidInput` texts, the messages the
 * zod schemas of quotas.schema.ts give their issues (validate() turns the first into a 400 with `invalidRequest`).
 */
import { AppError, type InvalidRequestError } from '@stratum/http-kit/wire';
import { MAX_QUOTA, MIN_QUOTA } from '@stratum/quota-items';

/**
 * The group's InvalidRequestError: 400 with the message of the part's own problem when it has one (its type, an
 * unknown key, a rule across its fields), else of the first problem zod found. zod reports an object's fields before
 * the object itself; Octavia names an unknown argument before a missing one.
 */
export const invalidRequest: InvalidRequestError = ({ issues }) => {
  const issue = issues.find((i) => i.path.length === 0) ?? issues[0];
  return new AppError(400, issue?.message ?? 'Invalid input.');
};

/** Texts of the 400s a request's schemas report (Octavia's WSME messages, and ours in its style). */
export const invalidInput = {
  /** A body that is not an object, or lacks its wrapper (WSME's MissingArgument). */
  missingArgument: (name: string) => `Missing argument: "${name}"`,
  /** Keys the body does not have (WSME's UnknownAttribute); `argument` is Octavia's name of the object (`quotas.quota`). */
  unknownAttribute: (argument: string, keys: readonly PropertyKey[]) =>
    `Unknown attribute for argument ${argument}: ${keys.map(String).join(', ')}`,
  /** A wrapper whose value is not an object. */
  notAnObject: (field: string, value: unknown) =>
    `Invalid input for field/attribute ${field}. Value: '${JSON.stringify(value)}'. Value should be an object`,
  /** A limit that is not an integer from MIN_QUOTA to MAX_QUOTA (Octavia's three texts, by what is wrong). */
  limit: (field: string, value: unknown) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      return `Invalid input for field/attribute ${field}. Value: '${JSON.stringify(value)}'. Value should be an integer`;
    }
    const bound = value < MIN_QUOTA ? `greater or equal to ${MIN_QUOTA}` : `lower or equal to ${MAX_QUOTA}`;
    return `Invalid input for field/attribute ${field}. Value: '${value}'. Value should be ${bound}`;
  },
  /** A consume, release or in_use count that is not an integer from 0 to MAX_QUOTA. */
  count: (field: string, value: unknown) =>
    `Invalid input for field/attribute ${field}. Value: '${JSON.stringify(value)}'. Value should be an integer from 0 to ${MAX_QUOTA}`,
  /** An enforcement body naming no resource. */
  noResource: (wrapper: string) => `Invalid input for field/attribute ${wrapper}. Value: '{}'. Name at least one resource`,
  /** A usage change that is not exactly one of consume and release. */
  oneAction: 'The body must hold exactly one action: "consume" or "release".',
  /** A project id (path, `project_id` or `marker`) that is empty or too long. */
  projectIdLength: (field: string, max: number) => `Invalid input for field/attribute ${field}. Value should be 1 to ${max} characters`,
  /** A project id holding a control or bidirectional-control character. */
  projectIdChars: (field: string) =>
    `Invalid input for field/attribute ${field}. Value should hold no control or bidirectional-control characters`,
  /** A list parameter that is unknown or repeated (Octavia's pagination helper). */
  duplicateOrInvalid: 'One or more arguments are either duplicate or invalid',
  paginationLimit: (value: unknown) => `Supplied pagination limit '${String(value)}' is not valid.`,
  pageReverse: (value: unknown) => `Supplied page_reverse '${String(value)}' is not valid.`,
  sortKey: (key: unknown) => `Supplied sort key '${String(key)}' is not valid.`,
  sortDirection: (dir: unknown) => `Supplied sort direction '${String(dir)}' is not valid.`,
  /** `fields` naming attributes the response does not have. */
  unknownFields: (fields: readonly string[]) => `Unknown field(s) requested: ${fields.join(', ')}`,
  /** A show or defaults query parameter other than `fields`. */
  unknownArgument: (key: PropertyKey) => `Unknown argument: "${String(key)}"`,
} as const;

/** 400: an `Idempotency-Key` header that is empty, too long, not printable ASCII or repeated. */
export const invalidIdempotencyKey = (maxLength: number) =>
  new AppError(400, `Invalid Idempotency-Key header. Value should be 1 to ${maxLength} printable ASCII characters`);

/** 403: the policy refuses the caller (Octavia's PolicyForbidden). */
export const policyForbidden = () => new AppError(403, 'Policy does not allow this request to be performed.');

/** Text of Octavia's QuotaException: a consume would take these resources (display names) over their limits. */
export const quotaMetMessage = (displayNames: readonly string[]) => `Quota has been met for resources: ${displayNames.join(', ')}`;

/**
 * 403: a consume refused over quota, `message` as quotaMetMessage made it (also when answered again from an idempotency
 * record); `headers` mark a replay.
 */
export const quotaMet = (message: string, headers?: Record<string, string>) => new AppError(403, message, undefined, headers);

/** 404: DELETE of a project without a record (Octavia's NotFound for quotas). */
export const quotaNotFound = (projectId: string) => new AppError(404, `Quotas ${projectId} not found.`);

/** 409: DELETE would put a project over quota; `over` describes each resource (`Pool (6 in use, default 4)`). */
export const resetOverQuota = (projectId: string, over: readonly string[]) =>
  new AppError(
    409,
    `Quotas of ${projectId} cannot be reset: usage is above the default for ${over.join(', ')}. Use force=true to reset anyway.`,
  );

/** 422: an Idempotency-Key sent again with another request (another action or other counts) for the same project. */
export const idempotencyKeyReused = (key: string, projectId: string) =>
  new AppError(
    422,
    `Idempotency key '${key}' was already used for a different request on the usage of project ${projectId}. ` +
      'Use a new key for a new request.',
  );

/** 503: a project's record stayed contended (Octavia's ProjectBusyException, two spaces after each period). */
export const projectBusy = () =>
  new AppError(503, 'Project busy.  Unable to lock the project.  Please try again.', undefined, { 'Retry-After': '1' });
